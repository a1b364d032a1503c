"""The all-IRQs view (a): the host's own rows (NMI, LOC, TLB...) by their description, shown and
refused as settings with a reason; other devices' IRQs with their affinity, kept between the
ticks that re-read it, and their editor starting from it. Issue 22 item 13."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.edit_host import EditHost, editing
from tuitune.tui.screens.dialogs import EditorScreen


def pin_irq16(tree: Path) -> None:
    """The recorded host's IRQ 16 (ehci_hcd:usb1, not the NIC's) allowed on CPUs 4-7."""
    (tree / "proc" / "irq" / "16").mkdir(parents=True, exist_ok=True)
    for name in ("smp_affinity_list", "effective_affinity_list"):
        (tree / "proc" / "irq" / "16" / name).write_text("4-7\n")


async def all_view(h: EditHost) -> None:
    await h.tui.press("2", "a")
    await h.wait(lambda: "IRQs (all of the host" in h.screen())


async def test_kernel_rows_are_named_and_refused_with_a_reason(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        await all_view(h)
        nmi = h.row("irqs", "irq:NMI")
        assert nmi.split()[:3] == ["Non-maskable", "interrupts", "NMI"], nmi
        assert "fixed" in nmi.split(), nmi
        tlb = h.row("irqs", "irq:TLB")
        assert tlb.startswith("TLB shootdowns"), tlb
        await h.tui.press("e")
        assert not isinstance(h.app.screen, EditorScreen)
        assert "TLB is not a device IRQ" in h.tui.header()
        assert h.nothing_written()


async def test_another_devices_irq_keeps_its_affinity_and_edits_from_it(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        pin_irq16(h.tree)
        await all_view(h)
        await h.wait(lambda: "4-7" in h.row("irqs", "irq:16").split())
        first = h.app.samples_drawn
        # Every IRQ's affinity is re-read on slow ticks only: some ticks later, still shown.
        await h.wait(lambda: h.app.samples_drawn >= first + 3)
        line = h.row("irqs", "irq:16")
        assert "4-7" in line.split(), line
        await h.tui.press("e")
        await h.wait(lambda: isinstance(h.app.screen, EditorScreen))
        assert "now: 4-7" in h.screen()
        await h.tui.press("escape")


async def test_a_kernel_row_is_refused_before_a_move_or_a_drag(tmp_path: Path) -> None:
    """A drag of NMI and m on it: refused up front in one line (while dragging already), no
    question, nothing written."""
    from tuitune.tui.panels.panels import CpuList, IrqList
    from tuitune.tui.screens.dialogs import ChoiceScreen

    reason = "NMI cannot be moved: not a device IRQ (the kernel counts it per CPU)"
    async with editing(tmp_path) as h:
        await all_view(h)
        irqs, cpus = h.app.query_one(IrqList), h.app.query_one(CpuList)
        assert irqs.move_cursor_to("irq:LOC")  # the row help names LOC, not NMI
        index = [r.key for r in irqs.shown].index("irq:NMI")
        irqs.scroll_to(y=max(0, index - 2), animate=False)
        await h.tui.pilot.pause()
        source_y = next(
            y
            for y in range(irqs.size.height)
            if (i := irqs.row_at(y)) is not None and irqs.shown[i].key == "irq:NMI"
        )
        keys = [r.key for r in cpus.shown]
        target_y = 1 + keys.index("cpu:3") - int(cpus.scroll_y)
        await h.tui.pilot.mouse_down(irqs, offset=(2, source_y))
        assert irqs.dragging == "NMI"
        await h.tui.pilot.hover(cpus, offset=(2, target_y))
        await h.wait(lambda: reason in h.shown(h.app.panels["irqs"].help_strip))
        await h.tui.pilot.mouse_up(cpus, offset=(2, target_y))
        await h.wait(lambda: reason in h.tui.header())
        assert not isinstance(h.app.screen, ChoiceScreen)
        assert cpus.move_cursor_to("cpu:all")
        assert irqs.move_cursor_to("irq:NMI")
        await h.tui.press("m")  # no CPU picked: the reason, not how to pick one
        assert reason in h.tui.header()
        assert cpus.move_cursor_to("cpu:3")
        await h.tui.press("m")
        assert reason in h.tui.header()
        assert not isinstance(h.app.screen, ChoiceScreen)
        assert h.nothing_written()


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_the_all_view_says_every_rate_is_the_last_ticks(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """While the all-IRQs view is open the sampler reads /proc/interrupts whole at every tick
    (Sampler.set_all_irqs): another device's rate is that tick's, as the NIC's are. The title
    says so; no row, title or help strip calls it an average over the full-read window (it
    did: issue 31 item 16's "* = 10 s average")."""
    async with editing(tmp_path, size=size) as h:
        await all_view(h)
        assert "IRQs (all of the host, re-read every tick)" in h.screen()
        first = h.app.samples_drawn
        await h.wait(lambda: h.app.samples_drawn >= first + 2)  # two ticks with the view open
        sample = h.app.sample
        assert sample is not None and sample.counters is not None
        assert sample.counters.irq_full  # the whole table, this tick
        other = h.row("irqs", "irq:16").split()
        assert not other[2].endswith("*"), other  # ehci_hcd:usb1, IRQ 16, its rate
        assert h.app.panels["irqs"].view.move_cursor_to("irq:16")
        await h.wait(lambda: "irq 16" in h.shown(h.app.panels["irqs"].help_strip).lower())
        assert "average" not in h.shown(h.app.panels["irqs"].help_strip)
        assert "average" not in str(h.app.panels["irqs"].border_title)


async def test_a_from_the_cpu_grid_lists_every_irq_as_the_hint_line_offers(tmp_path: Path) -> None:
    """A recorded host's hint line says "a lists every IRQ" whatever has the focus: from the
    CPU grid (the focus at start) too; a again gives back the NIC's IRQs."""
    from tuitune.tui.panels.panels import CpuList

    async with editing(tmp_path) as h:
        await h.tui.press("1")
        assert isinstance(h.app.focused, CpuList)
        await h.tui.press("a")
        await h.wait(lambda: "IRQs (all of the host" in h.screen())
        assert isinstance(h.app.focused, CpuList)  # the focus stays where it was
        await h.tui.press("a")
        await h.wait(lambda: "IRQs (all of the host" not in h.screen())
