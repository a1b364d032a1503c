"""The CPU grid (panel 1) computed from a sample: the CPU list, the heat map over it when the
CPUs do not fit, its title, and the help strip for the CPU under the cursor; the App applies
them (tui/scene.py's `show_*`).

The grid's cursor logic lives here: `cursor_moved` (the list's cursor moved: help strip and
heat-map selection follow) and `cpu_under_cursor`.
"""

from __future__ import annotations

from tuitune.core.units import pct, rate
from tuitune.core.watch.cpuview import SORT_LABELS, next_sort
from tuitune.tui.panels.cpugrid import ALL_KEY, OPTIONAL, GridData, grid_rows
from tuitune.tui.scene import PanelUpdate, Scene, shown_rates


class GridView:
    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self._kept: set[str] = set()  # optional CPU columns once shown (GridData.kept)
        self.ticked: frozenset[int] = frozenset()  # CPUs ticked for a process (GridPick)

    def data(self) -> GridData:
        s = self.scene
        local: frozenset[int] = frozenset()
        place = s.nic.placement if s.nic is not None else None
        online = s.host.topology.online if s.host is not None else frozenset()
        # Mark NIC-local CPUs only when that says something: not when every CPU is local.
        if place is not None and place.local_cpus and not online <= place.local_cpus:
            local = place.local_cpus
        topology = s.host.topology if s.host else None
        rps_on = s.nic is not None and any(
            q.name.startswith("rx-") and isinstance(q.cpus, frozenset) and q.cpus
            for q in s.nic.queues
        )
        kept = frozenset(self._kept)
        return GridData(shown_rates(s), topology, local, kept, rps_on, self.ticked)

    def heat_mode(self, data: GridData, height: int | None = None) -> bool:
        """Whether the heat map shows; `height` the panel's, when the caller read it."""
        if self.scene.grid_mode != "auto":
            return self.scene.grid_mode == "heat"
        if data.rates is None:
            return False
        nodes = len(data.topology.nodes) if data.topology else 1
        rows_needed = len(data.rates.cpus) + 2 + (nodes if nodes > 1 else 0)
        if height is None:
            height = self.scene.panel("cpus").height
        room = height - 4  # border, title line, help strip
        return rows_needed > room

    def sort_of(self, heat: bool) -> str:
        if self.scene.cpu_sort != "auto":
            return self.scene.cpu_sort
        return "load" if heat else "topology"

    def draw(self) -> None:
        s = self.scene
        panel = s.panel("cpus")
        data = self.data()
        height = panel.height  # looked up in the compositor's map at each ask: once a tick
        heat = self.heat_mode(data, height)
        sort = self.sort_of(heat)
        # At most half of the panel (border, help strip and margin aside): the list keeps
        # the other half, so every CPU stays reachable by scrolling it.
        many = s.show_heat(data if heat else None, max(1, (height - 5) // 2))
        nic_irqs = [q.irq for q in s.nic.irqs] if s.nic else []
        # Each CPU's row of the last tick, kept where nothing in it changed (cpugrid.grid_rows).
        last = {r.key: r for r in panel.rows}
        cols, rows = grid_rows(data, s.glyphs, s.palette, sort=sort, nic_irqs=nic_irqs, last=last)
        self._kept.update(c.title for c in cols if c.title in OPTIONAL)
        mode = "per CPU"
        if heat:
            mode = "heat map" + (f", {many} CPUs a cell" if many > 1 else "")
        mode += f", {SORT_LABELS[sort]}" if sort != "topology" else ""
        if s.sample is not None and s.sample.since_baseline is not None:
            mode += ", averages since the baseline"
        elif s.sample is not None and s.sample.rates is None and s.sample.boot_rates:
            got = s.sample.captured
            mode += ", averages since boot" if got is None else f", the capture's {got:.0f} s"
        s.show_panel("cpus", PanelUpdate(cols, rows, title=f"CPUs ({mode})"))
        self.help()

    def cpu_under_cursor(self) -> int | None:
        key = self.scene.panel("cpus").cursor_key
        return int(key.split(":")[1]) if key and key != ALL_KEY else None

    def help(self) -> None:
        s = self.scene
        rates = shown_rates(s)
        cpu = self.cpu_under_cursor()
        local = self.data().local
        text = "v: heat map / list.  o: order.  " + (
            f"NIC-local CPUs are marked {s.glyphs.local_mark}" if local else ""
        )
        c = rates.cpus.get(cpu) if rates is not None and cpu is not None else None
        if rates is not None and cpu is not None and c is not None:
            where = []
            if s.nic is not None:
                for q in s.nic.irqs:
                    r = rates.irqs.get(q.irq)
                    if r and r.per_cpu.get(cpu):
                        where.append(f"{q.name} {rate(r.per_cpu[cpu])}/s")
            node = ""
            if s.host is not None:
                for n, members in s.host.topology.nodes.items():
                    if cpu in members:
                        node = f" node {n}"
            mark = " NIC-local" if cpu in local else ""
            text = (
                f"cpu{cpu}{node}{mark}: busy {pct(c.busy).strip()}% "
                f"(sys {pct(c.sys).strip()} soft {pct(c.soft).strip()}); "
                + ("NIC IRQs here: " + ", ".join(where[:4]) if where else "no NIC IRQ here")
            )
            irq = s.panel("irqs").cursor_key
            if irq and irq.startswith("irq:") and not s.read_only:  # m moves nothing there
                text += f".  m: move IRQ {irq[4:]} here"
        s.show_panel("cpus", PanelUpdate(help=text))

    def cursor_moved(self) -> None:
        """The list's cursor moved: its help strip, and the heat map marks the same CPU."""
        self.help()
        self.scene.show_heat_cursor(self.cpu_under_cursor())

    def next_mode(self) -> str:
        """v: the other of heat map and list, so every press changes the screen (the cycle
        through "automatic" had a press that changed nothing: on a big host the first one,
        automatic already showing the heat map). Automatic is the start, the size's choice,
        until the user makes theirs. The notice to show."""
        s = self.scene
        heat = self.heat_mode(self.data())
        s.grid_mode = "list" if heat else "heat"
        self.draw()
        other = "list" if s.grid_mode == "heat" else "heat map"
        return f"CPU grid: {'heat map' if s.grid_mode == 'heat' else 'list'} (v: {other})"

    def next_sort(self) -> str:
        """o: the next order of the CPU list. The notice to show."""
        s = self.scene
        s.cpu_sort = next_sort(self.sort_of(self.heat_mode(self.data())))
        self.draw()
        return f"CPU list: {SORT_LABELS[s.cpu_sort]} (o: next order)"
