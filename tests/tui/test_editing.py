"""Changing things from the live screen, on a fixture host whose /proc/irq files the journal
writes: drag an IRQ onto a CPU, type a CPU list, bad input, undo, read-only mode.

What is asserted is what the kernel would hold (the tree's smp_affinity_list) and what the
user sees (header, editor message), never only internal flags.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot

from tests.support.fixture_hosts import SHARED_FIXTURES as SHARED
from tests.support.fixture_hosts import ReplayReader, host_32cpu, igb_ethtool
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tuitune.core.irqplan import spread_plan
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.tui.app import TuituneApp
from tuitune.tui.panels.cpugrid import CpuList
from tuitune.tui.panels.panels import IrqList
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen

IRQ = "92"  # eth0-TxRx-0 of the 32-CPU fixture host, on CPU 0


@asynccontextmanager
async def running(
    tmp_path: Path,
    editable: bool = True,
    limit: int | None = 3,
    reader: ReplayReader | None = None,
) -> AsyncIterator[Pilot[int]]:
    if reader is None:
        reader, ifname = host_32cpu(tmp_path / "host", samples=5)
    else:
        ifname = "eth0"
    app = screen_app(
        reader,
        ifname,
        interval=0.05,
        limit=limit,  # None: keeps sampling (re-reads after changes show on screen)
        editable=editable,
        journal_dir=tmp_path / "journal",
    )
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.samples_drawn >= 3 and app.nic is not None)
            yield pilot
    finally:
        reader.close()


def affinity(pilot: Pilot[int]) -> str:
    app = pilot.app
    assert isinstance(app, TuituneApp)
    return (app.reader.root.proc / f"irq/{IRQ}/smp_affinity_list").read_text().strip()


async def test_drag_irq_onto_cpu_then_undo(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        app = pilot.app
        assert isinstance(app, TuituneApp)
        assert affinity(pilot) == "0"
        irqs = app.query_one(IrqList)
        cpus = app.query_one(CpuList)
        source_y = 1 + [r.key for r in irqs.shown].index(f"irq:{IRQ}")
        target_y = 1 + [r.key for r in cpus.shown].index("cpu:5") - int(cpus.scroll_y)
        await pilot.mouse_down(irqs, offset=(2, source_y))
        await pilot.hover(cpus, offset=(2, target_y))
        await pilot.mouse_up(cpus, offset=(2, target_y))
        await until(pilot, lambda: affinity(pilot) == "5")
        await until(pilot, lambda: "1 changed" in screen_text(app))
        await pilot.press("u")
        await until(pilot, lambda: affinity(pilot) == "0")
        # The kernel holds it before the outcome's message reaches the screen.
        await until(pilot, lambda: "put back" in screen_text(app))


async def test_keyboard_affinity_and_bad_cpu_lists(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        app = pilot.app
        assert isinstance(app, TuituneApp)
        await pilot.press("2")
        assert app.panels["irqs"].view.move_cursor_to(f"irq:{IRQ}")
        for bad, words in (("64", "64"), ("3-", "3-"), ("x", "x"), ("", "empty")):
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, EditorScreen))
            await pilot.press("ctrl+u", *bad, "enter")
            await until(
                pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.error != ""
            )
            assert isinstance(app.screen, EditorScreen)
            assert words in app.screen.error  # the message names what was wrong
            assert affinity(pilot) == "0"  # and nothing reached the tree
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, EditorScreen))
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen))
        await pilot.press("ctrl+u", *"2-3,33")
        # The kernel's hex mask of what is typed shows beside it as one types (32-bit groups).
        assert "mask: 2,0000000c" in screen_text(app) or "mask: 02,0000000c" in screen_text(app)
        await pilot.press("backspace", "backspace", "backspace")
        assert "mask: 0000000c" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: affinity(pilot) == "2-3")


async def test_read_only_mode_disables_edit_keys(tmp_path: Path) -> None:
    async with running(tmp_path, editable=False) as pilot:
        app = pilot.app
        assert isinstance(app, TuituneApp)
        assert "read-only" in screen_text(app).splitlines()[0]
        await pilot.press("2")
        app.panels["irqs"].view.move_cursor_to(f"irq:{IRQ}")
        await pilot.press("e")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, EditorScreen)
        assert app.check_action("edit", ()) is None  # greyed out in the footer, not hidden
        assert affinity(pilot) == "0"


async def test_spread_plan_then_apply_one_step(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        app = pilot.app
        assert isinstance(app, TuituneApp) and app.nic is not None and app.host is not None
        await pilot.press("2")
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        shown = screen_text(app)
        plan = spread_plan(app.nic, app.host)
        # The plan on screen is the plan applied: one line per queue IRQ, on distinct cores.
        for q, cpu in plan:
            assert f"IRQ {q.irq:>5}  ->  CPU {cpu}" in shown
        local = app.nic.placement.local_cpus
        assert local and all(cpu in local for _, cpu in plan)
        assert len({cpu for _, cpu in plan}) == len(plan)  # 8 queues, 8 distinct CPUs
        await pilot.press("y")
        root = app.reader.root.proc
        await until(
            pilot,
            lambda: all(
                (root / f"irq/{q.irq}/smp_affinity_list").read_text().strip() == str(cpu)
                for q, cpu in plan
            ),
        )
        await pilot.press("u")  # the whole plan was one step
        await until(
            pilot,
            lambda: all(
                (root / f"irq/{q.irq}/smp_affinity_list").read_text().strip() == "0"
                for q, _ in plan
            ),
        )


async def test_drift_is_shown_and_not_overwritten(tmp_path: Path) -> None:
    async with running(tmp_path, limit=None) as pilot:
        app = pilot.app
        assert isinstance(app, TuituneApp)
        await pilot.press("2")
        app.panels["irqs"].view.move_cursor_to(f"irq:{IRQ}")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen))
        await pilot.press("ctrl+u", "5", "enter")
        await until(pilot, lambda: affinity(pilot) == "5")
        # Someone else (irqbalance, another admin) moves it behind tuitune's back.
        (app.reader.root.proc / f"irq/{IRQ}/smp_affinity_list").write_text("7\n")
        await pilot.press("r")
        await until(pilot, lambda: "drift: now 7, tuitune set 5" in screen_text(app))
        await pilot.press("u")
        await until(pilot, lambda: "someone" in screen_text(app) or "drift" in screen_text(app))
        await pilot.pause(0.3)
        assert affinity(pilot) == "7"  # never overwritten silently


async def test_start_offers_to_restore_an_earlier_run(tmp_path: Path) -> None:
    earlier, _ = host_32cpu(tmp_path / "host", samples=5)
    journal = Journal.open(HostAccess(earlier.root, call=earlier.call), tmp_path / "journal")
    assert journal.apply(Key.irq(IRQ, "eth0-TxRx-0", "eth0"), "3").status == "changed"
    journal.detach()  # as if that tuitune had been killed
    earlier.close()
    # The same host tree, opened again by a new tuitune.
    reader = ReplayReader(earlier.root.proc.parent, ethtool=igb_ethtool(SHARED, "eth0"))
    async with running(tmp_path, reader=reader) as pilot:
        app = pilot.app
        assert affinity(pilot) == "3"
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert "earlier tuitune" in screen_text(app)
        await pilot.press("r")
        await until(pilot, lambda: affinity(pilot) == "0")
