"""The P view's CPU column says what its numbers are ("cpu1 47 %", not "1:47", which reads
like top's TIME+), and tells the benchmark's client from its server (issue 31 item 18), at
80x24 on the Linux console and at 200x60."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.screen_text import screen_text, until
from tests.tui.test_procs_view import console_app
from tuitune.core.procs.model import NicProcess, ProcIdent, ThreadRun
from tuitune.tui.controllers.procs import ProcsState
from tuitune.tui.screens.procs import ProcsScreen


def iperf3(pid: int, *args: str, cpu: dict[int, float]) -> NicProcess:
    """An iperf3 as the view lists it; a recorded tree has no live /proc/PID to find one."""
    return NicProcess(
        ident=ProcIdent(pid, 5550 + pid, 0, "iperf3"),
        cmdline=("iperf3", *args),
        allowed=frozenset(range(32)),
        threads=(ThreadRun(pid, "iperf3", 1, frozenset(range(32))),),
        cpu_by_cpu=cpu,
        sockets=1,
        kernel_thread=False,
        on_nic_node=True,
        owner_is_caller=True,
    )


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_cpu_use_is_labelled_and_client_and_server_are_told_apart(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = console_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
        # A recorded tree has no /proc/PID: the view draws the processes given here, and its
        # re-reads (which would find none) do nothing.
        app.procs.refresh = lambda: None  # type: ignore[method-assign]
        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, ProcsScreen))
        screen = app.screen
        assert isinstance(screen, ProcsScreen)
        client = iperf3(700, "-c", "198.18.0.2", "-t", "10", cpu={1: 47.2})
        server = iperf3(701, "-s", "-1", cpu={0: 12.0, 3: 30.4})
        state = ProcsState(
            ifname="eth0", procs=(client, server), seconds=5.0, peers=frozenset({701})
        )
        screen.controller.state = state
        screen.draw(state)
        await until(pilot, lambda: "server, peer end" in screen_text(app))
        text = screen_text(app)
        assert "role" in text
        rows = [ln for ln in text.splitlines() if "iperf3" in ln and ("70" in ln)]
        assert any("700" in ln and "client" in ln for ln in rows), rows
        assert any("701" in ln and "server, peer end" in ln for ln in rows), rows
        # The cursor's row in full below the table: its CPU use labelled, and its role.
        assert "cpu1 47 %" in text
        assert "1:47" not in text
        assert "(client)" in text
