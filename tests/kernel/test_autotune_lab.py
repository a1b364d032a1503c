"""`tuitune autotune` on a throwaway veth pair (the sweep tests' own namespaces and server).

The bad start, written down: tso, gso and sg off on the near end (the client's veth), the far
end and MTU left alone. On this machine's veth, TSO off measured 0.22-0.37x of on in the sweep
tests (ranges never overlapping), so the offload fix is far outside the noise; autotune must
keep it with 3 repeats (ranges apart). Interrupted by SIGTERM mid-candidate, or killed by
SIGKILL and then `tuitune restore`, both ends must be exactly as before.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kernel.test_sweep_kernel import REPO, SERVER_ADDR, Pair, run
from tests.kernel.test_sweep_kernel import pair as pair  # the fixture
from tests.kernel.test_sweep_lab import _ends
from tuitune.core.bench.notebook import Notebook

pytestmark = pytest.mark.kernel
SHOW = (sys.executable, "-m", "tuitune", "show", "--json", "--interval", "0.2")


def _bad_start(p: Pair) -> None:
    run("ip", "netns", "exec", p.client_ns, "ethtool", "-K", p.dev, "tso", "off", "gso", "off")
    run("ip", "netns", "exec", p.client_ns, "ethtool", "-K", p.dev, "sg", "off")


def _dump(p: Pair) -> tuple[object, ...]:
    """Both ends as the kernel holds them: `tuitune show --json` of the near end (its
    interface and its namespace's sysctls, without the counters that traffic moves), and the
    far end's every feature (ethtool -k), MTU and RPS/XPS."""
    shown = subprocess.run(
        [*SHOW, "--netns", p.client_ns, p.dev],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    ).stdout
    doc = json.loads(shown)
    iface = doc["interface"]
    iface.pop("driver_stats", None)
    iface["link"].pop("counters", None)
    return (iface, doc["sysctls"], _ends(p), p.state())


def _cli(p: Pair, tmp: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "tuitune",
        "autotune",
        p.dev,
        "--netns",
        p.client_ns,
        "--peer",
        SERVER_ADDR,
        "--notebook",
        str(tmp / "runs.jsonl"),
        "--journal-dir",
        str(tmp / "journal"),
        *extra,
    ]


def _features(p: Pair) -> dict[str, str]:
    k = run("ip", "netns", "exec", p.client_ns, "ethtool", "-k", p.dev)
    return {
        line.split(":")[0].strip(): line.split(":")[1].split()[0]
        for line in k.splitlines()[1:]
        if ":" in line
    }


@pytest.mark.throughput
def test_from_offloads_off_autotune_keeps_the_fix_and_reports_a_gain(
    pair: Pair, tmp_path: Path
) -> None:
    _bad_start(pair)
    report = tmp_path / "report.md"
    done = subprocess.run(
        _cli(pair, tmp_path, "--repeats", "3", "--seconds", "2", "--report", str(report)),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "offload-disabled" in done.stdout
    text = report.read_text()
    assert text == done.stdout
    assert "**Final: +" in text and "Kept: offload-disabled" in text, text
    f = _features(pair)
    assert (f["tcp-segmentation-offload"], f["scatter-gather"]) == ("on", "on")
    # Recorded like a sweep's cells: baseline, candidate(s), the kept set, 3 runs each.
    runs = [r for r in Notebook(tmp_path / "runs.jsonl").runs() if "autotune" in r.tags["sweep"]]
    steps = {r.tags["cell"] for r in runs}
    assert {"baseline", "offload-disabled", "kept set"} <= steps
    assert all(sum(r.tags["cell"] == s for r in runs) == 3 for s in steps)
    # Replayable: one recording beside the notebook (root's only), each run's window in it,
    # and the advisor reads the baseline's window back from it.
    rec = Path(runs[0].tags["recording"])
    assert rec.parent == tmp_path and rec.name.startswith("runs-autotune-"), rec
    assert {r.tags["recording"] for r in runs} == {str(rec)} and rec.stat().st_mode & 0o777 == 0o600
    base = next(r for r in runs if r.tags["cell"] == "baseline")
    window = ["--from", base.tags["recording_from"], "--to", base.tags["recording_to"]]
    judged = subprocess.run(
        [sys.executable, "-m", "tuitune", "advise", "--recording", str(rec), *window],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert judged.returncode in (0, 1), judged.stderr  # 1: a bottleneck found (docs/advise.md)
    assert "offload-disabled" in judged.stdout  # the bad start, as the search found it
    # The journal holds the kept set: `tuitune restore` gives back the bad start.
    back = subprocess.run(
        [
            sys.executable,
            "-m",
            "tuitune",
            "restore",
            "--netns",
            pair.client_ns,
            "--journal-dir",
            str(tmp_path / "journal"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert back.returncode == 0, back.stderr
    f = _features(pair)
    assert (f["tcp-segmentation-offload"], f["scatter-gather"]) == ("off", "off")


def _interrupted(p: Pair, tmp: Path, sig: signal.Signals) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        _cli(p, tmp, "--repeats", "2", "--seconds", "2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # the baseline is done: the first candidate is applied now
        if line.startswith("baseline:"):
            break
    else:
        pytest.fail("autotune never finished its baseline")
    for line in proc.stderr:  # a run of the candidate is under way
        if line.startswith("  repeat 1"):
            break
    proc.send_signal(sig)
    proc.communicate(timeout=60)
    return proc


def test_sigterm_mid_candidate_puts_everything_back(pair: Pair, tmp_path: Path) -> None:
    _bad_start(pair)
    before = _dump(pair)
    proc = _interrupted(pair, tmp_path, signal.SIGTERM)
    assert proc.returncode == 1
    assert _dump(pair) == before
    assert not any(p.stat().st_size for p in (tmp_path / "journal").rglob("*") if p.is_file())


def test_sigkill_mid_candidate_then_restore_gives_back_the_start(
    pair: Pair, tmp_path: Path
) -> None:
    _bad_start(pair)
    before = _dump(pair)
    proc = _interrupted(pair, tmp_path, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    assert _dump(pair) != before  # the candidate was on when it died
    back = subprocess.run(
        [
            sys.executable,
            "-m",
            "tuitune",
            "restore",
            "--netns",
            pair.client_ns,
            "--journal-dir",
            str(tmp_path / "journal"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert back.returncode == 0, back.stderr
    assert _dump(pair) == before
