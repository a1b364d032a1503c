"""Sysctls whose value is a name from a list are picked from it, not typed: congestion control
from tcp_available_congestion_control (with tcp_allowed_congestion_control and how to load
a module said beside it), and the default qdisc from the qdiscs that need no parameters."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static

from tests.support.edit_host import EditHost, editing
from tests.support.screen_text import screen_text
from tuitune.tui.screens.edit_choices import ChoiceListScreen

CC = "sysctl:net.ipv4.tcp_congestion_control"
QDISC = "sysctl:net.core.default_qdisc"


def sysctl_file(h: EditHost, key: str) -> str:
    return (h.tree / "proc/sys" / key.replace(".", "/")).read_text().strip()


async def open_list(h: EditHost, row: str) -> ChoiceListScreen:
    await h.tui.press("4")
    assert h.app.panels["sysctls"].view.move_cursor_to(row)
    await h.tui.press("e")
    await h.wait(lambda: isinstance(h.app.screen, ChoiceListScreen))
    assert isinstance(h.app.screen, ChoiceListScreen)
    return h.app.screen


async def test_congestion_control_is_picked_from_the_available_list(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        screen = await open_list(h, CC)
        assert not screen.query(Input)  # no free text to mistype
        listed = h.tui.text_of(screen.query_one(OptionList))
        assert [line.strip() for line in listed if line.strip()] == ["reno", "cubic  (now)", "bbr"]
        note = " ".join(h.shown(s) for s in screen.query(Static))
        assert "modprobe tcp_bbr adds bbr" in note
        assert "tcp_allowed_congestion_control: reno cubic" in note
        await h.tui.press("escape")  # cancel: nothing written
        await h.wait(lambda: not isinstance(h.app.screen, ChoiceListScreen))
        assert h.nothing_written()
        await open_list(h, CC)
        await h.tui.press("down", "enter")  # from cubic (under the cursor) to bbr
        await h.wait(lambda: sysctl_file(h, "net.ipv4.tcp_congestion_control") == "bbr")
        await h.wait(lambda: "net.ipv4.tcp_congestion_control: cubic -> bbr" in h.tui.header())
        await h.tui.press("u")
        await h.wait(lambda: sysctl_file(h, "net.ipv4.tcp_congestion_control") == "cubic")


async def test_default_qdisc_is_picked_from_a_list(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        screen = await open_list(h, QDISC)
        listed = [line.strip() for line in h.tui.text_of(screen.query_one(OptionList))]
        assert listed[0] == "fq_codel  (now)" and "fq" in listed and "cake" in listed
        assert "sch_NAME" in " ".join(h.shown(s) for s in screen.query(Static))
        await h.tui.press("down", "enter")  # the first after the current one: fq
        await h.wait(lambda: sysctl_file(h, "net.core.default_qdisc") == "fq")


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_in_a_namespace_only_what_the_kernel_accepts_there(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """Outside the host's own namespace the kernel refuses (EPERM, also to root) an algorithm
    not in tcp_allowed_congestion_control: the lab's cubic is loaded but not offered."""
    here = {
        "net.ipv4.tcp_congestion_control": "bbr",
        "net.ipv4.tcp_allowed_congestion_control": "reno bbr",
    }
    async with editing(tmp_path, netns="lab", size=size, sysctls=here) as h:
        screen = await open_list(h, CC)
        listed = h.tui.text_of(screen.query_one(OptionList))
        assert [line.strip() for line in listed if line.strip()] == ["reno", "bbr  (now)"]
        note = " ".join(h.shown(s) for s in screen.query(Static))
        assert "In namespace lab the kernel accepts only" in note, note
        assert "reno bbr (cubic loaded but refused here)" in note, note
        drawn = screen_text(h.app)  # the whole note is on screen, not cut at the box's edge
        assert "bbr  (now)" in drawn and "refused" in drawn, drawn
        await h.tui.press("escape")
        await h.wait(lambda: not isinstance(h.app.screen, ChoiceListScreen))
        assert h.nothing_written()
