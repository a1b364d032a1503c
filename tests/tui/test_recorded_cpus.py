"""A recorded host tree (`tuitune --root DIR`) shows its CPUs one by one (issue 31, item 5):
its counters never move, so an interval between two reads showed only an "all" row of
zeros. It shows the tree's averages since its boot, per CPU, as a live host's first frame
does, at 80x24 and 200x60, on the 1152-CPU and the 32-CPU trees."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.fixture_big import host_1152cpu
from tests.support.fixture_hosts import host_32cpu
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader

Builder = Callable[..., tuple[object, str]]


def _tree(build: Builder, tmp_path: Path) -> tuple[Path, str]:
    """The builder's tree on disk with one sample, as `--root DIR` reads it."""
    reader, ifname = build(tmp_path, samples=1)
    reader.close()  # type: ignore[attr-defined]
    root = reader.root  # type: ignore[attr-defined]
    return root.sys.parent, ifname


def _cpu_rows(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        if line.count("│") < 2:
            continue
        cells = line.split("│")[1].split()
        if cells and cells[0].rstrip("◆").isdigit() and len(cells) > 6:
            rows.append(cells)
    return rows


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
@pytest.mark.parametrize("build", [host_1152cpu, host_32cpu], ids=["1152cpu", "32cpu"])
async def test_recorded_tree_shows_cpus_since_boot(
    tmp_path: Path, build: Builder, size: tuple[int, int]
) -> None:
    tree, ifname = _tree(build, tmp_path)
    reader = HostReader(HostRoot.fixture(tree))
    app = screen_app(reader, ifname, interval=0.2, limit=3, journal_dir=tmp_path / "journal")
    try:
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: app.samples_drawn >= 3)
            await pilot.press("1")
            await pilot.pause()
            text = screen_text(app)
            assert "averages since boot" in text, text
            rows = _cpu_rows(text)
            assert len(rows) >= 3, text  # CPU by CPU, not only "all"
            head = next(line for line in text.splitlines() if "%idle" in line)
            at = head.split("│")[1].split().index("%idle")
            idle = [float(r[at]) for r in rows]
            assert all(0 < x < 100 for x in idle), rows
            all_row = next(line for line in text.splitlines() if "│all " in line)
            assert "0.0   0.0   0.0   0.0   0.0" not in all_row, all_row
    finally:
        reader.close()
