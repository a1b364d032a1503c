"""The 1152-CPU host as a capture (`tuitune --root CAPTURE.tar.gz`), CPU by CPU (issue 34): the
live screen shows the rates its recording holds (the pegged CPU, the application's and the
RPS one, far apart in number), not averages since boot, and scrolls to its last CPU. At 80x24
only (the harder fit; 200x60 was tried in tmux, docs/capture.md): each run costs ~10 s here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.capture_tree import capture_1152cpu
from tests.support.fixture_big import APP_CPU, NCPUS, RPS_CPU
from tests.tui.conftest import Launch
from tests.tui.test_bighost import first_cpus
from tuitune.core.capture.unpack import unpack
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader


@pytest.fixture
def capture(tmp_path: Path) -> tuple[Path, str]:
    return capture_1152cpu(tmp_path / "cap", samples=3)


async def test_capture_of_the_1152cpu_host_cpu_by_cpu(
    launch: Launch, capture: tuple[Path, str]
) -> None:
    archive, ifname = capture

    def from_capture(tmp: Path, **_: Any) -> tuple[Any, str]:
        tmp.mkdir(mode=0o700)
        unpack(archive, tmp)  # what --root FILE.tar.gz does, into the test's own directory
        return HostReader(HostRoot.fixture(tmp)), ifname

    async with launch(from_capture, size=(80, 24), limit=2) as tui:
        assert "the capture's 2 s" in tui.top_border("cpus")  # its recording's, not since boot
        # Busiest first from the recorded rates: the pegged CPU, the application's (node 14),
        # the RPS one (node 15), each its own row.
        assert first_cpus(tui, 3) == [0, APP_CPU, RPS_CPU]
        rps = next(ln for ln in tui.rows_seen("cpus") if ln.split()[:1] == [str(RPS_CPU)])
        assert rps.split()[4] == "30.0", rps  # its %soft over the recording
        view = tui.view("cpus")
        await tui.press("1", "end")
        line = tui.cursor_line("cpus")
        last = view.shown[-1].key.split(":")[1]
        assert line is not None and line.split()[0].rstrip("◆") == last, line
        cpus = {int(r.key.split(":")[1]) for r in view.shown if r.key != "cpu:all"}
        assert cpus == set(range(NCPUS))
