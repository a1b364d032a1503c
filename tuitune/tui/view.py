"""The live screen's presenter: it takes each sample into the App's state (`Scene`) and
computes the header and the panels from it, sized to what they hold; the App applies them.

The CPU grid has its own presenter (tui/grid_view.py); this one owns the IRQ, NIC and sysctl
panels, the help strips under them and the header. No kernel reads here: only the sample;
no widget either: what a panel shows goes out as a `PanelUpdate` (tui/scene.py).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from tuitune.core.host.ethtool import short_name
from tuitune.core.session.outcome import Outcome
from tuitune.core.watch.cpuview import landing
from tuitune.core.watch.sampler import Sample
from tuitune.tui.controllers.irqmove import irq_help
from tuitune.tui.grid_view import GridView
from tuitune.tui.panels.cpugrid import cpu_order
from tuitune.tui.panels.header import HeaderData, header_text
from tuitune.tui.panels.irqpanel import IrqData, IrqMemo, irq_rows
from tuitune.tui.panels.layout import split_rows, wanted
from tuitune.tui.panels.nicpanel import COLUMNS as NIC_COLUMNS
from tuitune.tui.panels.nicpanel import nic_rows
from tuitune.tui.panels.rowview import Column, Row, plain_text
from tuitune.tui.panels.sysctlpanel import COLUMNS as SYSCTL_COLUMNS
from tuitune.tui.panels.sysctlpanel import help_summary, sysctl_rows
from tuitune.tui.scene import Baseline, PanelUpdate, Scene, irq_affinity, shown_rates
from tuitune.tui.steady import SteadyFigure


class LiveView:
    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.grid = GridView(scene)
        self.top_rows = -1  # the wide layout's top row height, last set (-1: set it again)
        self.drag_text: str | None = None  # feedback while an IRQ row is dragged
        self._nic_drawn: tuple[object, ...] = ()  # what the NIC panel's rows were built from
        self._irq_memo: IrqMemo = {}  # the IRQ rows of the last tick, kept where unchanged
        self._cost = SteadyFigure()  # the header's "read N ms", steady between real moves
        self._cost_of: object = None  # the sample last fed to it (header() runs more often)

    def start(self) -> None:
        """What the panels say before the first sample."""
        s = self.scene
        waiting = "no interface picked" if not s.ifname else "reading..."
        for name, text in (
            ("cpus", "waiting for the second sample..."),
            ("irqs", waiting),
            ("nic", waiting),
            ("sysctls", "reading..."),
        ):
            s.show_panel(name, PanelUpdate(empty_text=text))
        self.header()

    def take(self, sample: Sample) -> bool:
        """A new sample into the state (the App then feeds the advisor and calls `redraw`).
        Whether the NIC and sysctl panels need drawing again, not only the rates."""
        s = self.scene
        previous = s.sample
        gone_changed = sample.gone != bool(previous and previous.gone)
        if gone_changed:
            # Gone: its last state is not its state now, and the NIC and IRQ panels say so.
            s.nic = None if sample.gone else s.nic
            text = f"{s.ifname} is gone: waiting for it" if sample.gone else "reading..."
            for name in ("nic", "irqs"):
                s.show_panel(name, PanelUpdate(empty_text=text))
        if sample.nic is not None:
            s.nic = sample.nic
        if sample.host is not None:
            s.host = sample.host
        if sample.all_affinity is not None:  # read every few ticks only: kept until the next
            s.all_affinity = sample.all_affinity
        s.sample = sample
        # The NIC and sysctl panels change only when their state was re-read or the baseline
        # came or went: redrawing them every tick would be work for nothing.
        base_changed = previous is None or (previous.baseline is None) != (sample.baseline is None)
        state = sample.nic is not None or sample.host is not None or base_changed
        return state or gone_changed

    def toggle_baseline(self) -> str:
        """b: a baseline set (every rate a delta against it from the next sample on) or
        cleared, in `scene.baseline`: the App tells the sampler. The notice to show."""
        s = self.scene
        if s.sample is not None and s.sample.baseline is not None:
            s.baseline = None
            return "baseline cleared: rates per interval again"
        sysctls = {}
        if s.host is not None:
            sysctls = {v.key: v.value for v in s.host.sysctls if isinstance(v.value, str)}
        s.baseline = Baseline(sysctls)
        return "baseline set: from the next sample on, everything is a delta against it"

    def show_read_back(self, outs: Sequence[Outcome]) -> None:
        """The journal has read the new values back: on their rows now, in this frame, not
        after the re-read that follows (a forced sample and a frame later; issue 18, goal 3)."""
        s = self.scene
        # The kinds' handlers patch the rows: loaded with the first change (issue 38).
        from tuitune.core.session.readback import patch_host, patch_nic, read_back

        values = read_back(outs)
        if values and s.sample is not None:
            nic, host = patch_nic(s.nic, values), patch_host(s.host, values)
            if nic is not s.nic:
                s.nic = nic
                self.nic()
            if host is not s.host:
                s.host = host
                self.sysctls()

    def redraw(self, state: bool = True) -> None:
        self.header()
        self.grid.draw()
        self.irqs()
        if state:
            self.nic()
            self.sysctls()
        self.size_panels()

    def redraw_panel(self, name: str) -> None:
        """The one panel a small terminal (tabs) or zoom now shows, at its size."""
        draw = {
            "cpus": self.grid.draw,
            "irqs": self.irqs,
            "nic": self.nic,
            "sysctls": self.sysctls,
        }.get(name)
        if draw is None:
            self.redraw()
            return
        self.header()
        draw()

    def size_panels(self) -> None:
        """The wide layout's two rows of panels, sized by what they hold (tui/layout.py)."""
        s = self.scene
        height = s.rows_height
        if height <= 0:
            return  # tabs or zoom (one panel at a time), or not laid out yet
        p = s.panel
        # The CPU list's rows (every CPU, also under a heat map): the heat map is what shows
        # when they do not fit, so it must not feed back into the height asked for; +2 for
        # the margin GridView.heat_mode keeps.
        cpus = wanted(len(p("cpus").rows)) + 2
        top = max(cpus, wanted(len(p("irqs").rows)))
        bottom = max(wanted(len(p("nic").rows)), wanted(len(p("sysctls").rows)))
        rows = split_rows(height, top, bottom)
        if rows != self.top_rows:
            self.top_rows = rows
            s.show_top_rows(rows)  # and the grid drawn again: heat map or list by the height

    def header(self) -> None:
        s = self.scene
        sample = s.sample
        data = HeaderData(
            host=s.host,
            nic=s.nic,
            ifname=s.ifname,
            rates=sample.rates if sample else None,
            since_baseline=sample.since_baseline if sample else None,
            paused=s.paused,
            interval=s.interval,
            cost_ms=self._cost_ms(),
            error=sample.error if sample else None,
            notice=s.notice,
            read_only=s.read_only,
            trial=self._trial_text(),
            changes=s.changed_settings,
            gone=bool(sample and sample.gone),
            findings=s.advisor.counts(),
            recording=s.recording,
        )
        s.show_header(header_text(data, s.palette))

    def _cost_ms(self) -> float | None:
        sample = self.scene.sample
        if sample is None or not self.scene.show_cost:
            return None
        if sample is not self._cost_of:
            self._cost_of = sample
            self._cost.feed(sample.cost * 1000)
        return self._cost.shown

    def _trial_text(self) -> str | None:
        editor = self.scene.editor
        if editor.trial_deadline is None:
            return None
        left = max(0, round(editor.trial_deadline - time.monotonic()))
        return f"TRIAL {editor.trial_label}: reverts in {left} s unless you press y"

    def irqs(self) -> None:
        s = self.scene
        panel = s.panel("irqs")
        sample, nic = s.sample, s.nic
        data = IrqData(
            nic_irqs=nic.irqs if nic else (),
            affinity=irq_affinity(s),
            interrupts=sample.counters.interrupts if sample and sample.counters else None,
            rates=shown_rates(s),
            baseline=bool(sample and sample.since_baseline),
            cpus=cpu_order(self.grid.data()),
            show_all=s.show_all_irqs,
            queues=sample.queues if sample else None,
            ifname=s.ifname if nic else None,
        )
        fixed = 9 + 5 + 6 + 9 + 9 + 4 + 7 + (8 if data.baseline else 0)
        fixed += 7 if data.queues is not None else 0  # pkt/s (drop/s and B/s give way)
        fixed += 14 if s.show_all_irqs else 0  # the wider name column
        room = max(0, panel.width - fixed)
        cols, rows = irq_rows(data, room, s.glyphs, s.palette, self._irq_memo)
        empty = None
        if nic is not None and not nic.irqs and not s.show_all_irqs:
            empty = f"{s.ifname} has no IRQs of its own (a virtual device): press a for all IRQs"
        s.show_panel("irqs", PanelUpdate(cols, self._with_drift(rows, cols), empty))
        self.irq_help()  # rates and "pending" change every tick (read after the new rows)
        title = f"IRQs of {s.ifname}" if s.ifname else "IRQs"
        if s.show_all_irqs:
            # Live, the sampler reads /proc/interrupts whole at every tick while this view is
            # open (Sampler.set_all_irqs): each rate is the last tick's, the host's as the
            # NIC's. A recording holds the whole table at its whole-read samples only, and a
            # recorded host tree (--root of a capture) the table of its one moment.
            how = "as recorded" if s.recorded else "re-read every tick"
            title = f"IRQs (all of the host, {how})"
        s.show_panel("irqs", PanelUpdate(title=title))

    def nic(self) -> None:
        s = self.scene
        panel = s.panel("nic")
        base = s.editor.compare_nic
        if base is None and s.sample and s.sample.baseline:
            base = s.sample.baseline.nic
        ncpus = len(s.host.topology.cpus) if s.host else 1
        # The width beside a scrollbar, whether one shows now or not: the offloads at a glance
        # keep their columns when the rows grow past the panel's height (issue 31 item 15).
        outer = panel.width  # 0 before the first layout
        width = outer - panel.scrollbar if outer > 0 else 80
        # The NIC is re-read every few ticks and mostly found the same: its rows are a pure
        # function of these, so the same inputs skip building them again (issue 18, goal 4).
        notes = tuple(sorted(s.editor.row_notes().items()))
        key = (s.nic, base, ncpus, s.glyphs, s.palette, width, notes)
        title = (f"NIC {s.ifname}" if s.ifname else "NIC") + s.platform_note
        if key != self._nic_drawn:
            self._nic_drawn = key
            rows = nic_rows(s.nic, base, ncpus, s.glyphs, s.palette, width)
            drawn = self._with_drift(rows, NIC_COLUMNS)
            s.show_panel("nic", PanelUpdate(NIC_COLUMNS, drawn, title=title))
        else:
            s.show_panel("nic", PanelUpdate(title=title))

    def sysctls(self) -> None:
        s = self.scene
        if s.host is None:
            return
        ns = s.host.netns
        base = s.editor.compare_sysctls
        if base is None and s.baseline:
            base = s.baseline.sysctls
        rows = self._with_drift(sysctl_rows(s.host.sysctls, base, s.palette), SYSCTL_COLUMNS)
        title = f"sysctls (netns {ns})" if ns else "sysctls"
        s.show_panel("sysctls", PanelUpdate(SYSCTL_COLUMNS, rows, title=title))

    def _with_drift(self, rows: list[Row], columns: list[Column]) -> list[Row]:
        """Rows of settings someone else changed after tuitune, or that the kernel refused as
        a state (locked, not supported): say so in the row's widest (flexible) cell."""
        notes = self.scene.editor.row_notes()
        if not notes:
            return rows
        at = next((i for i, c in enumerate(columns) if c.flex), len(columns) - 1)
        out = []
        for row in rows:
            note = notes.get(row.key)
            if note is None:
                out.append(row)
                continue
            cells = list(row.values) + [""] * (at + 1 - len(row.values))
            cells[at] = ((note, self.scene.palette.warn),)
            out.append(
                Row(
                    row.key,
                    tuple(cells),
                    row.style,
                    row.section,
                    row.search,
                    search_more=row.search_more,
                )
            )
        return out

    # -- the help strips -------------------------------------------------------------------
    def cursor_moved(self, name: str) -> None:
        """The cursor of panel `name` moved: its help strip follows."""
        if name == "cpus":
            self.grid.cursor_moved()
        elif name == "irqs":
            self.irq_help()
        else:
            self.scene.show_panel(name, PanelUpdate(help=self.row_help_line(name)))

    def row_help_line(self, name: str) -> str:
        """The help strip: what Enter gives, the row's note in full (a narrow column cuts
        it), then the one-line summary and the reports behind it."""
        row = self.scene.panel(name).cursor_row
        if row is None:
            return ""
        cells = row.values
        note = plain_text(cells[-1]) if len(cells) > 1 and name == "nic" else ""
        summary = help_summary(row.key)
        short = short_name(row.key[8:]) if row.key.startswith("feature:") else ""
        group = f"g: all of {short}." if short and not self.scene.read_only else ""
        parts = ["Enter: more." if summary else "Enter: this row in full.", group, note, summary]
        return "  ".join(p for p in parts if p)

    def irq_help(self) -> None:
        s = self.scene
        panel = s.panel("irqs")
        key = panel.cursor_key
        if self.drag_text is not None and panel.dragging:
            text = self.drag_text  # a refresh while dragging keeps it
        elif not key or not key.startswith("irq:"):
            text = self.row_help_line("irqs")
        else:
            irq, rates = key[4:], shown_rates(s)
            lands = landing(rates.irqs.get(irq) if rates else None)
            aff = irq_affinity(s).get(irq)
            said = irq_help(irq, lands, aff, s.panel("cpus").cursor_key, s.read_only)
            text = f"{said}  {self.row_help_line('irqs')}"
        s.show_panel("irqs", PanelUpdate(help=text))

    def dragging(self, text: str) -> None:
        """While an IRQ row is dragged: what a release would do, on both panels' strips."""
        self.drag_text = text
        self.scene.show_panel("irqs", PanelUpdate(help=text))
        self.scene.show_panel("cpus", PanelUpdate(help=text))
