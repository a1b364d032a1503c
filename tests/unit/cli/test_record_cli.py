"""`tuitune record` on a full file system: a file-size limit (RLIMIT_FSIZE, what a full disk
does to a writer: EFBIG instead of ENOSPC) stops it with one line, and what it wrote reads
back to its last whole sample; and `advise --recording` judges the recorded window."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fixture_hosts import host_4cpu_series
from tests.support.recorded import record
from tuitune.cli import main
from tuitune.core.advise import Context, Facts, advise, window_of
from tuitune.core.record.replay import open_recording


def test_a_full_file_system_stops_recording_with_one_line(tmp_path: Path) -> None:
    reader, ifname = host_4cpu_series(tmp_path, samples=2)
    reader.close()
    tree = reader.root.sys.parent
    out = tmp_path / "full.rec"

    def small_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    cmd = ["record", "--root", str(tree), ifname, "-o", str(out), "--interval", "0.1"]
    done = subprocess.run(
        [sys.executable, "-m", "tuitune", *cmd, "--seconds", "600"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=small_disk,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"tuitune: {out}: recording stopped: File too large\n"
    assert out.stat().st_size == 4096
    rec = open_recording(out)
    # The limit falls inside a frame (read as cut) or, about one run in thirty (a delta frame
    # is ~30 bytes), exactly at a frame's end: then the file is whole and nothing is cut.
    # test_record_roundtrip cuts at every byte; here the stop itself is what is tested.
    assert rec.reading.cut is None or "not a whole record" in rec.reading.cut, rec.reading.cut
    _first, last, n = rec.span()
    assert n >= 2 and f": {n} samples, 4096 bytes" in done.stdout
    assert rec.moment(last).counters.link is not None


def test_advise_judges_the_recorded_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """advise --recording --from 1 --to 4 names what the advisor names for the samples the
    sampler took in those seconds, judged live (the same rules, the same window)."""
    path = tmp_path / "a.rec"
    taken = record(tmp_path, path, samples=5)
    code = main(["advise", "--recording", str(path), "--from", "1", "--to", "4", "--json"])
    doc = json.loads(capsys.readouterr().out)
    host = next(s.host for s in taken if s.host is not None)
    nic = next(s.nic for s in reversed(taken) if s.nic is not None)
    counters = [s.counters for s in taken[1:5] if s.counters is not None]
    window = window_of(counters, {q.irq for q in nic.irqs})
    live = advise(Facts(host, nic, window, Context("any")))
    assert doc["window"] == {"seconds": 3.0, "loaded": True}
    assert [f["id"] for f in doc["findings"]] == [f.id for f in live.findings]
    assert doc["findings"]  # the replayed host drops packets: something is named
    assert code == (1 if live.bottlenecks else 0)


def test_refusals_are_one_line_and_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """replay/show/advise of a file that is not a recording, record onto a file that exists:
    exit 2 and one line; the existing file keeps its bytes."""
    reader, ifname = host_4cpu_series(tmp_path, samples=2)
    reader.close()
    other = tmp_path / "notes.txt"
    other.write_bytes(b"\x1b]52;c;QUFB\x07 not a recording\n")
    for argv in (
        ["replay", str(other)],
        ["show", "--recording", str(other)],
        ["advise", "--recording", str(other)],
        ["record", "--root", str(reader.root.sys.parent), ifname, "-o", str(other)],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "\x1b" not in err, (argv, err)
    assert other.read_bytes() == b"\x1b]52;c;QUFB\x07 not a recording\n"
