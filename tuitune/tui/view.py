"""The live screen's presenter: it takes each sample into the App's state (`Scene`) and
redraws the header and the panels from it, sized to what they hold.

The CPU grid has its own presenter (tui/grid_view.py); this one owns the IRQ, NIC and sysctl
panels, the help strips under them and the header. No kernel reads here: only the sample.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from tuitune.core.host.ethtool import short_name
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.readback import patch_host, patch_nic, read_back
from tuitune.core.watch.cpuview import landing
from tuitune.core.watch.sampler import Sample
from tuitune.tui.controllers.irqmove import irq_help
from tuitune.tui.grid_view import GridView
from tuitune.tui.panels.cpugrid import CpuList, cpu_order
from tuitune.tui.panels.header import HeaderData, header_text
from tuitune.tui.panels.irqpanel import IrqData, IrqMemo, irq_rows
from tuitune.tui.panels.layout import split_rows, wanted
from tuitune.tui.panels.nicpanel import COLUMNS as NIC_COLUMNS
from tuitune.tui.panels.nicpanel import nic_rows
from tuitune.tui.panels.panels import IrqList, NicList
from tuitune.tui.panels.rowview import Column, Row, RowView, plain_text
from tuitune.tui.panels.sysctlpanel import COLUMNS as SYSCTL_COLUMNS
from tuitune.tui.panels.sysctlpanel import help_summary, sysctl_rows
from tuitune.tui.scene import Baseline, Scene, irq_affinity, shown_rates, subtitle


class LiveView:
    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.grid = GridView(scene)
        self.top_rows = -1  # the wide layout's top row height, last set (-1: set it again)
        self.drag_text: str | None = None  # feedback while an IRQ row is dragged
        self._nic_drawn: tuple[object, ...] = ()  # what the NIC panel's rows were built from
        self._irq_memo: IrqMemo = {}  # the IRQ rows of the last tick, kept where unchanged

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
            s.panels[name].view.empty_text = text
        self.header()

    def take(self, sample: Sample) -> None:
        """A new sample: into the state, then on the screen."""
        s = self.scene
        previous = s.sample
        gone_changed = sample.gone != bool(previous and previous.gone)
        if gone_changed:
            # Gone: its last state is not its state now, and the NIC and IRQ panels say so.
            s.nic = None if sample.gone else s.nic
            text = f"{s.ifname} is gone: waiting for it" if sample.gone else "reading..."
            for name in ("nic", "irqs"):
                s.panels[name].view.empty_text = text
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
        s.advisor.feed(sample)  # before the header is drawn: it shows the Advisor's count
        state = sample.nic is not None or sample.host is not None or base_changed
        self.redraw(state=state or gone_changed)

    def toggle_baseline(self) -> str:
        """b: a baseline set (every rate a delta against it from the next sample on) or
        cleared. The notice to show."""
        s = self.scene
        if s.sample is not None and s.sample.baseline is not None:
            s.baseline = None
            s.sampler.set_baseline(False)
            return "baseline cleared: rates per interval again"
        sysctls = {}
        if s.host is not None:
            sysctls = {v.key: v.value for v in s.host.sysctls if isinstance(v.value, str)}
        s.baseline = Baseline(sysctls)
        s.sampler.set_baseline(True)
        return "baseline set: from the next sample on, everything is a delta against it"

    def show_read_back(self, outs: Sequence[Outcome]) -> None:
        """The journal has read the new values back: on their rows now, in this frame, not
        after the re-read that follows (a forced sample and a frame later; issue 18, goal 3)."""
        s = self.scene
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
        if s.has_class("-tabs") or s.has_class("-zoom"):
            return
        if s.body.size.height <= 0:
            return  # not laid out yet
        p = s.panels
        # The CPU list's rows (every CPU, also under a heat map): the heat map is what shows
        # when they do not fit, so it must not feed back into the height asked for; +2 for
        # the margin GridView.heat_mode keeps.
        cpus = wanted(len(p["cpus"].view.rows)) + 2
        top = max(cpus, wanted(len(p["irqs"].view.rows)))
        bottom = max(wanted(len(p["nic"].view.rows)), wanted(len(p["sysctls"].view.rows)))
        rows = split_rows(s.body.size.height, top, bottom)
        if rows != self.top_rows:
            self.top_rows = rows
            s.body.styles.grid_rows = f"{rows} 1fr"
            s.call_after_refresh(self.grid.draw)  # heat map or list: by the new height

    def header(self) -> None:
        s = self.scene
        sample = s.sample
        data = HeaderData(
            host=s.host,
            nic=s.nic,
            ifname=s.ifname,
            rates=sample.rates if sample else None,
            since_baseline=sample.since_baseline if sample else None,
            paused=s.sampler.paused,
            interval=s.interval,
            cost_ms=sample.cost * 1000 if sample and s.show_cost else None,
            error=sample.error if sample else None,
            notice=s.notice,
            read_only=s.session.read_only,
            trial=self._trial_text(),
            changes=s.session.change_count(),
            gone=bool(sample and sample.gone),
            findings=s.advisor.counts(),
            recording=s.rec.badge(),
        )
        text = header_text(data, s.palette)
        if s.header.is_attached:  # not while shutting down: a notice's timer may fire then
            s.header.show(text)

    def _trial_text(self) -> str | None:
        editor = self.scene.editor
        if editor.trial_deadline is None:
            return None
        left = max(0, round(editor.trial_deadline - time.monotonic()))
        return f"TRIAL {editor.trial_label}: reverts in {left} s unless you press y"

    def irqs(self) -> None:
        s = self.scene
        panel = s.panels["irqs"]
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
            held_seconds=(
                s.sampler.full_every * s.sampler.interval
                if s.show_all_irqs and not (sample and sample.since_baseline)
                else None
            ),
        )
        fixed = 9 + 5 + 6 + 9 + 9 + 4 + 7 + (8 if data.baseline else 0)
        fixed += 7 if data.queues is not None else 0  # pkt/s (drop/s and B/s give way)
        fixed += 14 if s.show_all_irqs else 0  # the wider name column
        room = max(0, panel.view.size.width - fixed)
        cols, rows = irq_rows(data, room, s.glyphs, s.palette, self._irq_memo)
        panel.view.set_columns(cols)
        panel.view.set_rows(self._with_drift(rows, cols))
        if nic is not None and not nic.irqs and not s.show_all_irqs:
            panel.view.empty_text = (
                f"{s.ifname} has no IRQs of its own (a virtual device): press a for all IRQs"
            )
        self.irq_help()  # rates and "pending" change every tick
        title = f"IRQs of {s.ifname}" if s.ifname else "IRQs"
        if s.show_all_irqs:
            held = data.held_seconds
            title = "IRQs (all of the host" + (
                f"; * = {held:g} s average)" if held is not None else ")"
            )
        panel.set_titles(title, subtitle(panel.view))

    def nic(self) -> None:
        s = self.scene
        panel = s.panels["nic"]
        base = s.editor.compare_nic
        if base is None and s.sample and s.sample.baseline:
            base = s.sample.baseline.nic
        ncpus = len(s.host.topology.cpus) if s.host else 1
        # The width beside a scrollbar, whether one shows now or not: the offloads at a glance
        # keep their columns when the rows grow past the panel's height (issue 31 item 15).
        view = panel.view
        outer = view.size.width  # 0 before the first layout
        width = outer - view.styles.scrollbar_size_vertical if outer > 0 else 80
        # The NIC is re-read every few ticks and mostly found the same: its rows are a pure
        # function of these, so the same inputs skip building them again (issue 18, goal 4).
        notes = tuple(sorted(s.editor.row_notes().items()))
        key = (s.nic, base, ncpus, s.glyphs, s.palette, width, notes)
        if key != self._nic_drawn:
            self._nic_drawn = key
            rows = nic_rows(s.nic, base, ncpus, s.glyphs, s.palette, width)
            panel.view.set_rows(self._with_drift(rows, NIC_COLUMNS))
            panel.view.set_columns(NIC_COLUMNS)
        title = (f"NIC {s.ifname}" if s.ifname else "NIC") + s.platform_note
        panel.set_titles(title, subtitle(panel.view))

    def sysctls(self) -> None:
        s = self.scene
        panel = s.panels["sysctls"]
        if s.host is None:
            return
        ns = s.host.netns
        base = s.editor.compare_sysctls
        if base is None and s.baseline:
            base = s.baseline.sysctls
        panel.view.set_columns(SYSCTL_COLUMNS)
        rows = sysctl_rows(s.host.sysctls, base, s.palette)
        panel.view.set_rows(self._with_drift(rows, SYSCTL_COLUMNS))
        panel.set_titles(f"sysctls (netns {ns})" if ns else "sysctls", subtitle(panel.view))

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

    def refresh_subtitles(self) -> None:
        for panel in self.scene.panels.values():
            panel.set_titles(str(panel.border_title or ""), subtitle(panel.view))

    # -- the help strips -------------------------------------------------------------------
    def cursor_moved(self, view: RowView) -> None:
        panels = self.scene.panels
        if isinstance(view, CpuList):
            self.grid.cursor_moved()
        elif view is panels["irqs"].view:
            self.irq_help()
        else:
            for panel in panels.values():
                if panel.view is view:
                    panel.help_strip.show(self.row_help_line(view))

    def row_help_line(self, view: RowView) -> str:
        """The help strip: what Enter gives, the row's note in full (a narrow column cuts
        it), then the one-line summary and the reports behind it."""
        row = view.cursor_row
        if row is None:
            return ""
        cells = row.values
        note = plain_text(cells[-1]) if len(cells) > 1 and isinstance(view, NicList) else ""
        summary = help_summary(row.key)
        short = short_name(row.key[8:]) if row.key.startswith("feature:") else ""
        group = f"g: all of {short}." if short and not self.scene.session.read_only else ""
        parts = ["Enter: more." if summary else "Enter: this row in full.", group, note, summary]
        return "  ".join(p for p in parts if p)

    def irq_help(self) -> None:
        s = self.scene
        panel = s.panels["irqs"]
        view = panel.view
        key = view.cursor_key
        if self.drag_text is not None and isinstance(view, IrqList) and view.dragging:
            panel.help_strip.show(self.drag_text)  # a refresh while dragging keeps it
            return
        if not key or not key.startswith("irq:"):
            panel.help_strip.show(self.row_help_line(view))
            return
        irq, rates = key[4:], shown_rates(s)
        lands = landing(rates.irqs.get(irq) if rates else None)
        aff = irq_affinity(s).get(irq)
        text = irq_help(irq, lands, aff, s.panels["cpus"].view.cursor_key)
        nic_irqs = {q.irq for q in s.nic.irqs} if s.nic else set()
        sample = s.sample
        if s.show_all_irqs and irq not in nic_irqs and not (sample and sample.since_baseline):
            held = s.sampler.full_every * s.sampler.interval
            text += (
                f" Rate*: a {held:g} s average (the whole /proc/interrupts is read every "
                f"{held:g} s; the NIC's own IRQs every tick)."
            )
        panel.help_strip.show(f"{text}  {self.row_help_line(view)}")

    def dragging(self, text: str) -> None:
        """While an IRQ row is dragged: what a release would do, on both panels' strips."""
        self.drag_text = text
        self.scene.panels["irqs"].help_strip.show(text)
        self.scene.panels["cpus"].help_strip.show(text)
