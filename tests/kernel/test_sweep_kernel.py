"""A real sweep between two throwaway namespaces joined by a veth pair: every cell applied
through the journal, measured with iperf3, recorded in the notebook, the pivot built from it,
and the kernel holding its original values afterwards: after a finished sweep, after an
exception in the middle, after Ctrl+C (and the sweep resumed), and after SIGTERM to
`tuitune sweep`.

The namespaces, the veth pair and the iperf3 server are the test's own (unique names) and are
removed even when a test fails. Runs are 1 s, one repeat: the tests assert on what was
recorded and restored, not on the numbers.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kernel.conftest import iperf_pair, run
from tuitune.core.bench.notebook import Notebook
from tuitune.core.host.root import HostRoot
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.replay import open_recording
from tuitune.core.session import Session, journal_dir
from tuitune.core.session.journal_file import host_id
from tuitune.core.sweep import pivot
from tuitune.core.sweep.runner import SweepRunner, Target, sweep_runs
from tuitune.core.sweep.spec import parse
from tuitune.core.watch.hostreader import HostReader

pytestmark = pytest.mark.kernel

CLIENT_ADDR, SERVER_ADDR = "10.254.92.1", "10.254.92.2"
REPO = Path(__file__).resolve().parents[2]

SPEC = """
[sweep]
name = "tiny"
repeats = 1
warmup = false
[bench]
seconds = 1
[[dimension]]
setting = "tso"
values = ["on", "off"]
[[dimension]]
setting = "net.ipv4.tcp_sack"
values = [1, 0]
"""


@dataclass
class Pair:
    client_ns: str
    server_ns: str
    dev: str
    peer: str

    def peer_mtu(self) -> str:
        link = run("ip", "-n", self.server_ns, "-o", "link", "show", self.peer)
        return link.split("mtu ")[1].split()[0]

    def state(self) -> tuple[str, str, str]:
        """What the sweep touches, as the kernel holds it: tso, tcp_sack, the MTU line."""
        k = run("ip", "netns", "exec", self.client_ns, "ethtool", "-k", self.dev)
        tso = next(line for line in k.splitlines() if "tcp-segmentation-offload" in line)
        sack = run("ip", "netns", "exec", self.client_ns, "sysctl", "-n", "net.ipv4.tcp_sack")
        link = run("ip", "-n", self.client_ns, "-o", "link", "show", self.dev)
        return tso.strip(), sack.strip(), link.split("mtu ")[1].split()[0]


@pytest.fixture
def pair() -> Iterator[Pair]:
    made: list[str] = []
    try:
        with iperf_pair("tt-sweep", "tw", CLIENT_ADDR, SERVER_ADDR) as p:
            made.append(p.client_ns)
            yield Pair(p.client_ns, p.server_ns, p.dev, p.peer)
    finally:
        # The one-writer lock of a namespace is host-wide, whatever journal directory the
        # test used: leave none behind, once the namespace is gone.
        for cns in made:
            with contextlib.suppress(OSError):
                os.unlink(journal_dir.LOCK_DIR / f"{host_id(HostRoot(netns=cns))}.lock")


def _sweep(
    pair: Pair, tmp: Path, say: object = None, resume: bool = False, text: str = SPEC
) -> object:
    spec = parse(tomllib.loads(text))
    root = HostRoot(netns=pair.client_ns)
    lines: list[str] = []
    with HostReader(root) as reader:
        session = Session(
            root, journal_dir=tmp / "journal", call=reader.call, handles=reader.handles
        )
        peer_ns, peer_if = (pair.server_ns, pair.peer) if "mtu" in text else (None, None)
        target = Target(pair.dev, SERVER_ADDR, 5201, pair.client_ns, None, peer_ns, peer_if)
        runner = SweepRunner(
            spec, session, reader, target, Notebook(tmp / "runs.jsonl"), say=say or lines.append
        )
        with session:
            return runner.run(resume=resume)


def test_a_tiny_sweep_records_every_cell_and_leaves_the_kernel_as_it_was(
    pair: Pair, tmp_path: Path
) -> None:
    before = pair.state()
    assert before == ("tcp-segmentation-offload: on", "1", "1500")
    out = _sweep(pair, tmp_path)
    assert pair.state() == before
    assert not (tmp_path / "journal" / "").exists() or not any((tmp_path / "journal").iterdir())
    assert out.problems == [] and out.error is None and not out.interrupted  # type: ignore[attr-defined]
    runs = sweep_runs(Notebook(tmp_path / "runs.jsonl"), out.sweep_id)  # type: ignore[attr-defined]
    assert len(runs) == 4
    assert all(r.result.complete for r in runs)
    # Each run recorded the settings the kernel held while it ran.
    cells = {r.tags["combination"]: r.settings for r in runs}
    assert cells["tso off, net.ipv4.tcp_sack 0"]["tso"] == "off"
    assert cells["tso off, net.ipv4.tcp_sack 0"]["net.ipv4.tcp_sack"] == "0"
    assert cells["tso on, net.ipv4.tcp_sack 1"]["tso"] == "on"
    spec = parse(tomllib.loads(SPEC))
    table = pivot.build(spec, out.sweep_id, runs)  # type: ignore[attr-defined]
    assert table.rows == ["tso on", "tso off"]
    assert table.columns == ["1", "0"]
    for key in [(r, c) for r in table.rows for c in table.columns]:
        assert table.cells[key].throughput.median, key
    text = pivot.to_text(table)
    assert "setting \\ net.ipv4.tcp_sack" in text and "Mb/s" in text
    doc = json.loads(pivot.to_json(table))
    assert len(doc["cells"]) == 4 and all(c["measured"] for c in doc["cells"])


def test_an_exception_mid_sweep_still_puts_every_original_back(pair: Pair, tmp_path: Path) -> None:
    before = pair.state()

    seen: list[str] = []

    def say(line: str) -> None:
        seen.append(line)
        if line.startswith("  repeat 1") and len([s for s in seen if s.startswith("[")]) == 2:
            raise RuntimeError("injected")  # the second cell's settings are applied now

    with pytest.raises(RuntimeError, match="injected"):
        _sweep(pair, tmp_path, say=say)
    assert pair.state() == before


def test_ctrl_c_mid_sweep_restores_and_resume_finishes_the_rest(pair: Pair, tmp_path: Path) -> None:
    before = pair.state()
    seen: list[str] = []

    def say(line: str) -> None:
        seen.append(line)
        if line.startswith("  repeat 1") and len([s for s in seen if s.startswith("[")]) == 2:
            raise KeyboardInterrupt  # during the second cell, its settings applied

    out = _sweep(pair, tmp_path, say=say)
    assert out.interrupted  # type: ignore[attr-defined]
    assert pair.state() == before
    book = Notebook(tmp_path / "runs.jsonl")
    first = sweep_runs(book, out.sweep_id)  # type: ignore[attr-defined]
    assert len(first) == 1  # the second cell's run never reached the notebook

    again: list[str] = []
    resumed = _sweep(pair, tmp_path, say=again.append, resume=True)
    assert resumed.sweep_id == out.sweep_id  # type: ignore[attr-defined]
    assert any("already recorded" in line for line in again)
    runs = sweep_runs(book, out.sweep_id)  # type: ignore[attr-defined]
    assert len(runs) == 4
    assert len({r.tags["cell"] for r in runs}) == 4  # no cell measured twice
    assert pair.state() == before


def test_tuitune_sweep_as_a_user_runs_it_and_sigterm_restores(pair: Pair, tmp_path: Path) -> None:
    spec = tmp_path / "tiny.toml"
    spec.write_text(SPEC)
    common = [
        sys.executable,
        "-m",
        "tuitune",
        "sweep",
        str(spec),
        pair.dev,
        "--netns",
        pair.client_ns,
        "--peer",
        SERVER_ADDR,
        "--notebook",
        str(tmp_path / "runs.jsonl"),
        "--journal-dir",
        str(tmp_path / "journal"),
    ]
    before = pair.state()
    done = subprocess.run([*common, "--markdown"], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "| setting \\ net.ipv4.tcp_sack | 1 | 0 |" in lines
    assert any(line.startswith("| tso off | ") and " retr" in line for line in lines)
    assert "every original is back" in done.stderr
    assert pair.state() == before
    # Issue 34: a recording beside the notebook; every run names it and its own window.
    tags = [json.loads(ln).get("tags", {}) for ln in (tmp_path / "runs.jsonl").open()]
    recs = {t.get("recording") for t in tags}
    assert len(recs) == 1 and None not in recs, tags
    rec = Path(recs.pop())
    assert rec.parent == tmp_path and rec.stat().st_mode & 0o777 == 0o600
    assert f"recording: {rec}" in done.stderr
    assert all(float(t["recording_to"]) > float(t["recording_from"]) for t in tags)
    # Its own setting changes are journal steps in it (set for a cell, put back after it),
    # which replay's `]` stops at, as a live screen's --record holds its changes.
    steps = [r.data["v"] for r in open_recording(rec).reading.records() if r.kind == "journal"]
    assert all(step["status"] == "changed" for step in steps), steps
    tso = [step for step in steps if str(step["key"]).endswith(" tx-tcp-segmentation")]
    sack = [step for step in steps if "tcp_sack" in str(step["key"])]
    assert [(t["before"], t["after"]) for t in tso[:2]] == [("on", "off"), ("off", "on")], steps
    assert sack and sack[0]["before"] == "1" and sack[0]["after"] == "0", sack
    with RecordingReader(open_recording(rec)) as replayed:
        labels = [label for _, label in replayed.events()]
    assert sum(" tx-tcp-segmentation:" in label for label in labels) == len(tso)

    bad = subprocess.run(
        [*common[:4], str(tmp_path / "nope.toml"), *common[5:]], capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1

    proc = subprocess.Popen(
        common, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # wait until the second cell's settings are applied
        if line.startswith("[2/"):
            break
    proc.send_signal(signal.SIGTERM)
    _, rest = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "interrupted: putting every original back" in rest
    assert "every original is back" in rest
    assert pair.state() == before


def test_the_mtu_is_set_at_both_ends_and_put_back_at_both(pair: Pair, tmp_path: Path) -> None:
    text = """
[sweep]
name = "mtu"
repeats = 1
[bench]
seconds = 1
[[dimension]]
setting = "mtu"
values = [1500, 9000]
"""
    assert (pair.state()[2], pair.peer_mtu()) == ("1500", "1500")
    out = _sweep(pair, tmp_path, text=text)
    assert out.problems == [] and out.error is None  # type: ignore[attr-defined]
    assert (pair.state()[2], pair.peer_mtu()) == ("1500", "1500")
    runs = sweep_runs(Notebook(tmp_path / "runs.jsonl"), out.sweep_id)  # type: ignore[attr-defined]
    assert len(runs) == 2  # the warm-up run (on by default) is not recorded
    by_cell = {r.tags["combination"]: r for r in runs}
    jumbo = by_cell["mtu 9000"]
    assert jumbo.result.complete, jumbo.result.error
    # Recorded as it ran: 9000 at both ends.
    assert (jumbo.settings["mtu"], jumbo.settings["peer mtu"]) == ("9000", "9000")
    assert by_cell["mtu 1500"].settings["peer mtu"] == "1500"


def test_bisect_between_two_runs_measures_and_puts_everything_back(
    pair: Pair, tmp_path: Path
) -> None:
    spec = tmp_path / "two.toml"
    spec.write_text(
        '[sweep]\nname = "two"\nrepeats = 1\nwarmup = false\n[bench]\nseconds = 1\n'
        '[[dimension]]\nname = "state"\n[[dimension.sets]]\nlabel = "good"\n'
        '[[dimension.sets]]\nlabel = "bad"\n[dimension.sets.settings]\n'
        'tso = "off"\ntxqueuelen = 5000\n'
    )
    where = [
        "--netns",
        pair.client_ns,
        "--peer",
        SERVER_ADDR,
        "--notebook",
        str(tmp_path / "runs.jsonl"),
        "--journal-dir",
        str(tmp_path / "journal"),
    ]
    cli = [sys.executable, "-m", "tuitune", "sweep"]
    before = pair.state()
    made = subprocess.run([*cli, str(spec), pair.dev, *where], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    done = subprocess.run(
        [*cli, "--bisect", "r1", "r2", pair.dev, *where, "--repeats", "1"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("bisect r1 -> r2: 2 differing setting(s), 1 repeat(s)")
    # One run against one run has no noise to judge by: it says so after two measurements.
    assert "within noise" in done.stdout.splitlines()[-1]
    assert done.stderr.count("-- trying the bad value of") == 2
    assert pair.state() == before
    link = run("ip", "-n", pair.client_ns, "-o", "link", "show", pair.dev)
    assert "qlen 1000" in link
