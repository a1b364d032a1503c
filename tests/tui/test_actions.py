"""Pilot tests for the keys that change what the panels show: n (interface), t (theme),
r (re-read), v (CPU grid view), a (all IRQs). Screen text out, as in test_keys.py."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from tests.support.fixture_hosts import host_4cpu_series
from tests.support.timers import timers_held
from tests.tui.conftest import Launch
from tuitune.tui.screens.dialogs import PickerScreen

# -- n: the interface picker -------------------------------------------------------------------


def add_eth9(tree: Path) -> None:
    """A second interface in the recorded host (a copy of eth0 with a jumbo MTU), so the
    picker has a real choice."""
    net = tree / "sys" / "class" / "net"
    shutil.copytree(net / "eth0", net / "eth9", symlinks=True)
    (net / "eth9" / "mtu").write_text("9000\n")
    for sample in (tree / "samples").iterdir():
        stats = sample / "sys" / "class" / "net"
        shutil.copytree(stats / "eth0", stats / "eth9")


async def test_n_opens_the_picker_esc_cancels_enter_picks(launch: Launch) -> None:
    async with launch(limit=None, samples=20, interval=0.5, wait=1, prepare=add_eth9) as tui:
        app = tui.app
        await tui.press("n")
        assert isinstance(app.screen, PickerScreen)
        text = tui.screen_text()
        assert "Which interface?" in text and " eth0 " in text and " eth9 " in text
        await tui.press("escape")
        assert not isinstance(app.screen, PickerScreen)
        assert "─ NIC eth0 ─" in tui.screen_text()

        await tui.press("n", "down", "enter")
        assert not isinstance(app.screen, PickerScreen)
        await tui.wait(lambda: "─ NIC eth9 ─" in tui.screen_text(), "the NIC panel on eth9")
        await tui.wait(lambda: "mtu 9000" in tui.header(), "eth9's state in the header")
        assert tui.header().splitlines()[1].split()[0] == "eth9"
        assert "9000" in next(ln for ln in tui.rows_seen("nic") if ln.startswith("mtu"))


# -- t: themes ---------------------------------------------------------------------------------


async def test_t_cycles_themes_and_saves_the_choice(launch: Launch, tmp_path: Path) -> None:
    config = tmp_path / "tuitune" / "config.toml"
    async with launch(save_settings=True) as tui:
        seen = [tui.app.theme]
        background = tui.styles(0)[0][1]
        with timers_held(tui.app):
            await tui.press("t")
            seen.append(tui.app.theme)
            assert seen[1] != seen[0]
            assert f"theme {seen[1]} (saved in {config})" in tui.header()
        assert tomllib.loads(config.read_text())["theme"] == seen[1]
        assert tui.styles(0)[0][1] != background  # the screen is drawn in the new colours
        await tui.press("t")
        seen.append(tui.app.theme)
        assert seen[2] not in seen[:2]
        assert tomllib.loads(config.read_text())["theme"] == seen[2]
    # The next start comes back in the saved theme.
    async with launch(save_settings=True, wait=0) as again:
        assert again.app.theme == seen[2]


# -- r: re-read --------------------------------------------------------------------------------


async def test_r_rereads_the_nic_state(launch: Launch) -> None:
    async with launch(limit=None, samples=20, interval=0.1, wait=2) as tui:
        # No periodic state re-read in this test: only r can bring the new MTU in.
        tui.app.sampler.slow_every = 1_000_000
        await tui.press("3")
        assert "mtu 1500" in tui.header()
        (tui.tree / "sys" / "class" / "net" / "eth0" / "mtu").write_text("9000\n")
        await tui.pilot.pause(0.3)  # several ticks without r: nothing re-read
        assert "mtu 1500" in tui.header()
        with timers_held(tui.app):
            await tui.press("r")
            assert "re-reading" in tui.header()
        await tui.wait(lambda: "mtu 9000" in tui.header(), "the header to show the new MTU")
        mtu = next(ln for ln in tui.rows_seen("nic") if ln.startswith("mtu"))
        assert mtu.split()[1] == "9000"


# -- v: grid view ------------------------------------------------------------------------------


async def test_v_cycles_the_cpu_grid_view(launch: Launch) -> None:
    async with launch(host_4cpu_series) as tui:
        heat = tui.app.query_one("#heatmap")

        def state() -> tuple[str, bool]:
            title = tui.top_border("cpus").split("─ ")[1].split(" ─")[0]
            return title, heat.region.height > 0

        assert state() == ("CPUs (per CPU)", False)  # 4 CPUs fit: auto shows the list
        # Every press changes what is shown (before, one press of the cycle through
        # "automatic" changed nothing).
        for title, shown, said in [
            ("CPUs (heat map, busiest first)", True, "CPU grid: heat map (v: list)"),
            ("CPUs (per CPU)", False, "CPU grid: list (v: heat map)"),
            ("CPUs (heat map, busiest first)", True, "CPU grid: heat map (v: list)"),
        ]:
            with timers_held(tui.app):  # the notice's own 4 s timer must not clear it first
                await tui.press("v")
                assert state() == (title, shown)
                assert said in tui.header()
            if shown:
                assert tui.text_of(heat)[0].startswith("n0")


# -- a: all IRQs -------------------------------------------------------------------------------


async def test_a_toggles_every_irq_of_the_host_and_keeps_the_cursor(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("2", "down", "down", "down")
        irqs = tui.view("irqs")
        nic_keys = [r.key for r in irqs.shown]
        assert len(nic_keys) == 9 and irqs.cursor_key == "irq:95"
        await tui.press("a")
        # A recorded host tree: its table is the recording's, not re-read from a live kernel.
        assert "─ IRQs (all of the host, as recorded) ─" in tui.screen_text()
        interrupts = (tui.tree / "proc" / "interrupts").read_text().splitlines()[1:]
        every = {ln.split(":")[0].strip() for ln in interrupts}
        assert {r.key.removeprefix("irq:") for r in irqs.shown} == every
        assert irqs.shown[0].key == "irq:0"  # the host's IRQs in /proc/interrupts order
        assert irqs.cursor_key == "irq:95"  # the cursor stays on its IRQ as the rows change
        assert tui.cursor_line("irqs") is not None  # and the view scrolls to keep it in sight
        await tui.press("a")
        assert "─ IRQs of eth0 ─" in tui.screen_text()
        assert [r.key for r in irqs.shown] == nic_keys
        line = tui.cursor_line("irqs")
        assert line is not None and line.split()[:3] == ["TxRx", "3", "95"]


async def test_slash_in_the_all_view_finds_a_device_by_its_name(launch: Launch) -> None:
    """/eth0 in the all-IRQs view: the NIC's own IRQs, whose rows show "TxRx 3" and not the
    interface (it found none); what a row shows still finds it (another device's rows show
    their action names, "eth4-TxRx-15": found by what they show, as before)."""
    async with launch() as tui:
        await tui.press("2", "a", "slash", *"eth0", "enter")
        irqs = tui.view("irqs")
        assert [r.key for r in irqs.shown] == [f"irq:{n}" for n in range(91, 100)]
        assert tui.cursor_line("irqs") is not None
        await tui.press("escape", "slash", *"txrx 3", "enter")
        assert [r.key for r in irqs.shown] == ["irq:95"]


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_the_all_view_of_a_recorded_host_offers_no_move(
    launch: Launch, size: tuple[int, int]
) -> None:
    """A recorded host (a tree, not editable): the title says "as recorded", the help strips
    offer no m, and m says in one line why nothing is moved; nothing asked, nothing written."""
    from tuitune.tui.screens.dialogs import ChoiceScreen

    said = "m: no IRQ is moved here: read-only (a recorded host tree)"
    async with launch(size=size) as tui:
        before = (tui.tree / "proc" / "irq" / "95" / "smp_affinity_list").read_text()
        await tui.press("1", "down", "2", "a")
        assert tui.view("irqs").move_cursor_to("irq:95")
        await tui.wait(lambda: "IRQ 95" in tui.help_strip("irqs"))
        assert "(all of the host, as recorded)" in tui.screen_text()
        assert "m:" not in tui.help_strip("irqs"), tui.help_strip("irqs")
        await tui.press("m")
        await tui.wait(lambda: said in tui.header())
        assert not isinstance(tui.app.screen, ChoiceScreen)
        await tui.press("1", "m")  # from the CPU grid too, whose strip offers none
        assert "m: move" not in tui.help_strip("cpus")
        assert said in tui.header() and not isinstance(tui.app.screen, ChoiceScreen)
        after = (tui.tree / "proc" / "irq" / "95" / "smp_affinity_list").read_text()
        assert after == before
