"""The lab's demo sweep measured for real, and the sweep's CPU dimensions on a veth pair.

The shipped `docs/sweeps/lab-demo.toml` (tso on/off x MTU 1500/9000, the MTU at both ends)
runs between two throwaway namespaces with 2 repeats of 2 s: the pivot must point where NASA's
Table 2 did at MTU 1500 (TSO off is slower), and both ends must hold their originals after.
On this machine's veth, TSO off at 1500 measured 0.22-0.37x of on over six sweeps (ranges
never overlapping), so "slower" is far outside the noise here. RPS, XPS and iperf3 -A are
swept as dimensions, each applied for its cell only.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from tests.kernel.test_sweep_kernel import REPO, SERVER_ADDR, SPEC, Pair, run
from tests.kernel.test_sweep_kernel import pair as pair  # the fixture
from tuitune.core.bench.notebook import Notebook
from tuitune.core.host.root import HostRoot
from tuitune.core.session import Session
from tuitune.core.sweep import pivot
from tuitune.core.sweep import spec as specfile
from tuitune.core.sweep.runner import SweepError, SweepOutcome, SweepRunner, Target, sweep_runs
from tuitune.core.watch.hostreader import HostReader

pytestmark = pytest.mark.kernel

DEMO = Path(__file__).resolve().parents[2] / "docs" / "sweeps" / "lab-demo.toml"


def _ends(p: Pair) -> tuple[str, ...]:
    """What a sweep may touch at both ends, as the kernel holds it."""
    out = []
    for ns, dev in ((p.client_ns, p.dev), (p.server_ns, p.peer)):
        k = run("ip", "netns", "exec", ns, "ethtool", "-k", dev)
        out.append(k)
        out.append(run("ip", "-n", ns, "-o", "link", "show", dev).split("mtu ")[1].split()[0])
        for q in ("rx-0/rps_cpus", "tx-0/xps_cpus"):
            path = f"/sys/class/net/{dev}/queues/{q}"
            out.append(run("ip", "netns", "exec", ns, "cat", path))
    return tuple(out)


def _sweep(
    p: Pair, tmp: Path, spec: specfile.SweepSpec, lines: list[str], resume: bool = False
) -> SweepOutcome:
    root = HostRoot(netns=p.client_ns)
    with HostReader(root) as reader:
        session = Session(
            root, journal_dir=tmp / "journal", call=reader.call, handles=reader.handles
        )
        target = Target(p.dev, SERVER_ADDR, 5201, p.client_ns, None, p.server_ns, p.peer)
        book = Notebook(tmp / "runs.jsonl")
        runner = SweepRunner(spec, session, reader, target, book, say=lines.append)
        with session:
            return runner.run(resume=resume)


@pytest.mark.throughput
def test_the_lab_demo_shows_nasas_direction_at_1500_and_puts_both_ends_back(
    pair: Pair, tmp_path: Path
) -> None:
    spec = specfile.load(DEMO)
    spec = replace(spec, repeats=2, bench=replace(spec.bench, seconds=2))
    before = _ends(pair)
    lines: list[str] = []
    out = _sweep(pair, tmp_path, spec, lines)
    assert out.problems == [] and out.error is None and not out.interrupted, lines
    assert _ends(pair) == before  # tso, MTU, RPS/XPS: at this end and the peer's
    assert not any((tmp_path / "journal").glob("*.json*"))
    runs = sweep_runs(Notebook(tmp_path / "runs.jsonl"), out.sweep_id)
    table = pivot.build(spec, out.sweep_id, runs)
    assert (table.rows, table.columns) == (["tso on", "tso off"], ["1500", "9000"])
    assert all(table.summaries[(r, c)].n == 2 for r in table.rows for c in table.columns)
    on, off = table.summaries[("tso on", "1500")], table.summaries[("tso off", "1500")]
    # NASA's Table 2 direction at MTU 1500: TSO off is slower (here by far more than noise).
    assert off.median < 0.8 * on.median, (on, off)
    jumbo = [r for r in runs if r.tags["combination"] == "tso off, mtu 9000"]
    assert {(r.settings["tso"], r.settings["mtu"], r.settings["peer mtu"]) for r in jumbo} == {
        ("off", "9000", "9000")
    }
    # The order was shuffled, and the seed that makes it again is in the table's header.
    seed = re.search(r"order shuffled, seed (\d+)", lines[0])
    assert seed is not None, lines[0]
    assert f"order: shuffled, seed {seed.group(1)}" in pivot.to_text(table)


def test_rps_xps_and_iperf3_pinning_are_dimensions_set_for_their_cell_only(
    pair: Pair, tmp_path: Path
) -> None:
    text = """
[sweep]
name = "cpus"
design = "one-at-a-time"
repeats = 1
warmup = false
[bench]
seconds = 1
[[dimension]]
setting = "rps"
values = ["none", 1]
[[dimension]]
setting = "xps"
values = ["none", "1"]
[[dimension]]
setting = "pin"
values = ["none", "0,1"]
"""
    spec = specfile.parse(tomllib.loads(text))
    before = _ends(pair)
    lines: list[str] = []
    out = _sweep(pair, tmp_path, spec, lines)
    assert out.problems == [] and out.error is None, lines
    assert _ends(pair) == before
    runs = {
        r.tags["combination"]: r
        for r in sweep_runs(Notebook(tmp_path / "runs.jsonl"), out.sweep_id)
    }
    assert len(runs) == 4 and all(r.result.complete for r in runs.values())
    rps = runs["rps 1, xps none, pin none"]
    assert (rps.settings["rx-0 rps_cpus"], rps.settings["tx-0 xps_cpus"]) == ("1", "none")
    xps = runs["rps none, xps 1, pin none"]
    assert (xps.settings["rx-0 rps_cpus"], xps.settings["tx-0 xps_cpus"]) == ("none", "1")
    pinned = runs["rps none, xps none, pin 0,1"]
    assert (pinned.spec.client_cpu, pinned.spec.server_cpu) == (0, 1)
    assert pinned.settings["rx-0 rps_cpus"] == "none"  # the pin cell moves no queue
    assert runs["rps none, xps none, pin none"].spec.client_cpu is None


def test_an_irq_plan_on_a_veth_is_refused_before_anything_changes(
    pair: Pair, tmp_path: Path
) -> None:
    text = '[sweep]\nname = "i"\n[[dimension]]\nsetting = "irqs"\nvalues = ["spread local"]\n'
    spec = specfile.parse(tomllib.loads(text))
    before = _ends(pair)
    lines: list[str] = []
    refused = r"has no queue IRQs \(a veth has none\).*nothing was changed"
    with pytest.raises(SweepError, match=refused):
        _sweep(pair, tmp_path, spec, lines)
    assert _ends(pair) == before


def test_a_resumed_sweep_keeps_the_order_it_started_with(pair: Pair, tmp_path: Path) -> None:
    spec = specfile.parse(tomllib.loads(SPEC))
    seen: list[str] = []

    class Stop(list[str]):
        def append(self, line: str) -> None:
            super().append(line)
            seen.append(line)
            if line.startswith("  repeat 1") and sum(s.startswith("[") for s in seen) == 2:
                raise KeyboardInterrupt

    first = _sweep(pair, tmp_path, spec, Stop())
    assert first.interrupted
    again: list[str] = []
    resumed = _sweep(pair, tmp_path, spec, again, resume=True)
    assert resumed.sweep_id == first.sweep_id
    started = re.search(r"seed (\d+)", seen[0])
    assert started is not None and f"seed {started.group(1)}" in again[0]
    # The same order: the two cells measured first are the ones skipped now, in turn.
    cells = [s for s in seen if s.startswith("[")]
    skipped = [s for s in again if s.endswith("already recorded")]
    assert skipped == [f"{cells[0]}: already recorded"]
    assert [s.split("] ")[1] for s in again if s.startswith("[")][1] == cells[1].split("] ")[1]


def _cli(p: Pair, tmp: Path, *extra: str) -> list[str]:
    spec = tmp / "tiny.toml"
    spec.write_text(SPEC)
    return [
        sys.executable,
        "-m",
        "tuitune",
        "sweep",
        str(spec),
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


def test_a_lost_ssh_session_sighup_puts_every_original_back(pair: Pair, tmp_path: Path) -> None:
    before = (_ends(pair), pair.state())
    # The walk's second cell is tso on, tcp_sack 0: a setting changed while the signal comes.
    proc = subprocess.Popen(
        _cli(pair, tmp_path, "--order", "snake"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # the second cell's settings are applied
        if line.startswith("[2/"):
            break
    proc.stderr.close()  # the terminal is gone: every later progress line fails to write
    proc.send_signal(signal.SIGHUP)
    proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert (_ends(pair), pair.state()) == before
    assert not any(p.stat().st_size for p in (tmp_path / "journal").rglob("*") if p.is_file())


def test_the_seed_gives_the_same_order_again_and_snake_the_walk(pair: Pair, tmp_path: Path) -> None:
    def cells(*extra: str) -> list[str]:
        done = subprocess.run(
            _cli(pair, tmp_path, "--dry-run", *extra), capture_output=True, text=True, cwd=REPO
        )
        assert done.returncode == 0, done.stderr
        return [line for line in done.stdout.splitlines() if line.startswith("[")]

    orders = {tuple(cells("--seed", str(seed))) for seed in range(8)}
    assert len(orders) > 1  # the seed decides
    assert cells("--seed", "5") == cells("--seed", "5")
    assert cells("--order", "snake") == [
        "[1] tso on, net.ipv4.tcp_sack 1",
        "[2] tso on, net.ipv4.tcp_sack 0",
        "[3] tso off, net.ipv4.tcp_sack 0",
        "[4] tso off, net.ipv4.tcp_sack 1",
    ]
    bad = subprocess.run(_cli(pair, tmp_path, "--seed", "-3"), capture_output=True, text=True)
    assert bad.returncode == 2 and "--seed" in bad.stderr


def test_bisect_between_two_profiles_measures_and_puts_everything_back(
    pair: Pair, tmp_path: Path
) -> None:
    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text('[interface.features]\ntso = "on"\n')
    bad.write_text('[interface]\ntxqueuelen = 5000\n[interface.features]\ntso = "off"\n')
    before = (_ends(pair), pair.state())
    cli = _cli(pair, tmp_path)
    done = subprocess.run(
        [*cli[:4], "--bisect", str(good), str(bad), *cli[5:], "--repeats", "1", "--seconds", "1"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"bisect {good} -> {bad}: 2 differing setting(s), 1 repeat(s)")
    assert done.stderr.count("-- trying the bad value of") == 2
    assert (_ends(pair), pair.state()) == before
    assert "qlen 1000" in run("ip", "-n", pair.client_ns, "-o", "link", "show", pair.dev)
