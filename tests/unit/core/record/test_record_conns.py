"""The interface's TCP connections, read while a benchmark runs or the connections view is
open, are recorded (record `conns`, when they changed), so `advise --recording` over a run's
window judges them as the live advisor did during it (issue 34); a recorded address that is
not one is refused in one line, as a capture's is."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.recorded import live_findings, replayed, rerecorded
from tuitune.cli import main
from tuitune.core.host.conns import Connection
from tuitune.core.record.replay import open_recording
from tuitune.core.untrusted import Refused
from tuitune.core.watch.sampler import Sample

# A connection whose SYN carried no window scaling (wscale None, sack read), as inet_diag
# gives it; and one that scales.
NO_WSCALE = Connection("10.0.0.1", 5201, "10.0.0.2", 40000, "cubic", 10, 0.2, 0, None, None,
                       1448, True, True, None)  # fmt: skip
SCALED = replace(NO_WSCALE, rport=40002, wscale=(7, 7))


def _recording(
    tmp_path: Path, conns: dict[int, tuple[Connection, ...]]
) -> tuple[Path, list[Sample]]:
    return rerecorded(tmp_path, "conns.rec", lambda i, s: replace(s, connections=conns.get(i)))


def test_advise_recording_judges_the_recorded_connections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Read at ticks 1-3 (a run): the same reading twice is recorded once.
    seen = {1: (SCALED,), 2: (SCALED, NO_WSCALE), 3: (SCALED, NO_WSCALE)}
    path, taken = _recording(tmp_path, seen)
    kinds = [r.kind for r in open_recording(path).reading.records()]
    assert kinds.count("conns") == 2
    main(["advise", "--recording", str(path), "--from", "1", "--to", "4", "--json"])
    doc = json.loads(capsys.readouterr().out)
    found = [f for f in doc["findings"] if f["id"] == "connection-no-wscale"]
    assert found and "10.0.0.1:5201 -> 10.0.0.2:40000" in found[0]["evidence"][0]
    # The live advisor's judgement of that window, with the run's connections.
    live = live_findings(taken, 1, 4, connections=(SCALED, NO_WSCALE))
    assert [f["id"] for f in doc["findings"]] == live
    # Outside the run's window no connection was read: the rule says so, names none.
    main(["advise", "--recording", str(path), "--from", "4", "--to", "4", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert not [f for f in doc["findings"] if f["id"] == "connection-no-wscale"]


def test_a_recorded_address_that_is_not_one_is_refused(tmp_path: Path) -> None:
    bad = replace(NO_WSCALE, remote="\x1b]0;owned\x07")
    path, _taken = _recording(tmp_path, {2: (bad,)})
    with pytest.raises(Refused, match=r"conns\.rec: conns at 2\.0 s: connections\[0\]: remote"):
        open_recording(path).connections(0, 10)
    code = main(["advise", "--recording", str(path), "--json"])
    assert code == 2


def test_replays_connections_view_shows_the_reading_of_its_time(tmp_path: Path) -> None:
    # Replay's `C`: the connections recorded by the sample shown, read back as the advisor's;
    # a reading more than CONNS_FRESH_S before it is not this moment's (said, not shown).
    from tuitune.core.record.player import CONNS_FRESH_S
    from tuitune.core.values import Unavailable

    def read(i: int, s: Sample) -> Sample:
        return replace(s, connections=(SCALED, NO_WSCALE) if i in (1, 2) else None)

    path, _taken = rerecorded(tmp_path, "conns.rec", read, samples=9)
    shown, times = replayed(path, 9, lambda sampler: sampler.want_connections("view", True))
    assert shown[2].connections == (SCALED, NO_WSCALE)
    stale = [s for s, at in zip(shown, times, strict=True) if at - times[2] > CONNS_FRESH_S]
    assert stale and all(isinstance(s.connections, Unavailable) for s in stale)
    assert isinstance(stale[0].connections, Unavailable)
    assert "no connections recorded at" in stale[0].connections.reason
