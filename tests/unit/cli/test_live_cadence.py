"""The live command keeps the slow reads' cadence in seconds (core/watch/cadence.py): the App it
builds for `--interval 0.25` reads the NIC state every 20 ticks, not every 5. And the trial
countdown it is given (`--trial-seconds`) is the one its editor runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixture_hosts import host_32cpu
from tuitune.cli import main
from tuitune.cli._common import TRIAL_DEFAULT
from tuitune.cli.live import run_tui
from tuitune.tui.app import TuituneApp
from tuitune.tui.controllers.edit import TRIAL_SECONDS


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


@pytest.mark.parametrize(("argv", "want"), [([], TRIAL_SECONDS), (["--trial-seconds", "5"], 5.0)])
def test_trial_seconds_reach_the_screen_that_changes_things(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], want: float
) -> None:
    reader, ifname = host_32cpu(tmp_path / "host")
    tree = reader.root.sys.parent
    reader.close()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    seen: list[float] = []
    monkeypatch.setattr(TuituneApp, "run", lambda app: seen.append(app.editor.trial_seconds))
    assert main([ifname, "--root", str(tree), *argv]) == 0
    assert seen == [want]


@pytest.mark.parametrize("bad", ["1", "nan", "inf", "3601", "x"])
def test_a_trial_too_short_or_long_is_one_line_and_nothing_runs(
    bad: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TuituneApp, "run", lambda app: pytest.fail("the screen started"))
    with pytest.raises(SystemExit) as exit_:
        main(["eth0", "--trial-seconds", bad])
    assert exit_.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("tuitune: error: argument --trial-seconds: ") and bad in line


@pytest.mark.parametrize(("command", "has"), [([], True), (["lab"], True), (["replay"], False)])
def test_the_screens_that_change_things_take_a_trial_and_replay_does_not(
    command: list[str], has: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    assert TRIAL_DEFAULT == TRIAL_SECONDS  # the parser's default is the screen's own
    try:
        main([*command, "--help"])  # `tuitune --help` returns; a subcommand's exits
    except SystemExit as exc:
        assert exc.code == 0
    assert ("--trial-seconds SECONDS" in capsys.readouterr().out) is has
