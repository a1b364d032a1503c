"""The live command keeps the slow reads' cadence in seconds (core/cadence.py): the App it
builds for `--interval 0.25` reads the NIC state every 20 ticks, not every 5."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixture_hosts import host_32cpu
from tuitune.cli.live import run_tui
from tuitune.tui.app import TuituneApp


@pytest.mark.parametrize(
    ("interval", "want"),
    [(1.0, (5, 30, 10, 3)), (0.25, (20, 120, 40, 12)), (2.0, (5, 30, 10, 3))],
)
def test_the_live_screen_is_built_with_the_cadence_in_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, interval: float, want: tuple[int, ...]
) -> None:
    reader, ifname = host_32cpu(tmp_path / "host")
    tree = reader.root.sys.parent
    reader.close()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    seen: list[tuple[int, ...]] = []

    def run(app: TuituneApp) -> None:  # built as the command builds it; not started
        s = app.sampler
        seen.append((s.slow_every, s.host_every, s.full_every, app.advisor.count_every))

    monkeypatch.setattr(TuituneApp, "run", run)
    rc = run_tui(tree=tree, netns=None, iface=ifname, interval=interval, theme=None)
    assert rc == 0 and seen == [want]
