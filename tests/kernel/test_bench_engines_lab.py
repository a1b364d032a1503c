"""Issue 35 in a lab of its own: four pinned stream processes against four servers, a -w, a
-Z and a UDP run, a nuttcp run and a sockperf latency run. Runs are 1-2 s: what is checked is
what the run holds (each stream's numbers, both ends' CPU, the commands at both ends, the
servers gone afterwards), never how fast the veth was."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core import lab as labmod
from tuitune.core import proc
from tuitune.core.bench import engines
from tuitune.core.bench.model import BenchResult, BenchSpec
from tuitune.core.bench.runner import BenchEvent, BenchRunner, IntervalEvent
from tuitune.core.lab import Lab
from tuitune.core.lab.procs import listening, proc_pids
from tuitune.core.lab.servers import serve

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    if os.geteuid() != 0:
        pytest.skip("the lab needs root")
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 missing (apt install iperf3)")
    state = tmp_path_factory.mktemp("state")
    state.chmod(0o700)
    built = labmod.build(state)
    try:
        yield built
    finally:
        labmod.down(built, state)


def run(lab: Lab, spec: BenchSpec) -> tuple[BenchResult, list[IntervalEvent], tuple[str, ...]]:
    """One run as `tuitune bench` makes it in the lab: the servers it needs, then the client."""
    events: list[BenchEvent] = []
    engine = engines.get(spec.engine)
    needs = spec.engine != "iperf3" or spec.processes
    if needs:
        with serve(lab, spec, engine) as servers:
            commands = tuple(servers.commands)
            runner = BenchRunner(spec, events.append, server_commands=commands)
            runner.start()
            (result,) = runner.wait(spec.duration + 60)
        ports = [spec.port + i * (2 if spec.engine == "nuttcp" else 1) for i in range(spec.streams)]
        own = [p for p in ports if not (spec.engine == "iperf3" and p == lab.port)]
        # Every server the run started is gone: nothing listens on their ports any more.
        assert not any(listening(pid, port) for pid in _pids_in(lab.peer_netns) for port in own)
    else:
        runner = BenchRunner(spec, events.append)
        runner.start()
        (result,) = runner.wait(spec.duration + 60)
        commands = ()
    assert result.complete, result.error
    return result, [e for e in events if isinstance(e, IntervalEvent)], commands


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _pids_in(ns: str) -> list[int]:
    target = os.stat(f"/run/netns/{ns}").st_ino
    out = []
    for pid in proc_pids():
        try:
            if os.stat(f"/proc/{pid}/ns/net").st_ino == target:
                out.append(pid)
        except OSError:
            continue
    return out


def spec_of(lab: Lab, **kw: object) -> BenchSpec:
    base: dict[str, object] = {"port": lab.port, "duration": 1, "netns": lab.netns}
    return BenchSpec(lab.peer_addr, **(base | kw))  # type: ignore[arg-type]


def test_four_pinned_processes_keep_each_stream_and_both_ends_cpu(lab: Lab) -> None:
    cpus = tuple(sorted(os.sched_getaffinity(0)))[:2] or (0,)
    spec = spec_of(lab, duration=2, streams=4, processes=True, stream_cpus=cpus, server_cpus=cpus)
    result, live, servers = run(lab, spec)
    assert len(result.streams) == 4
    assert [s.port for s in result.streams] == [lab.port + i for i in range(4)]
    assert [s.client_cpu for s in result.streams] == [cpus[i % len(cpus)] for i in range(4)]
    for s in result.streams:
        assert s.complete and s.throughput_bps and s.throughput_bps > 0
        assert s.local_cpu is not None and s.remote_cpu is not None  # both ends, per stream
    assert result.received_bps == pytest.approx(sum(s.received_bps or 0 for s in result.streams))
    # The exact command lines at both ends: four clients pinned with -A, four servers.
    assert len(result.client_commands) == 4 and len(result.server_commands) == 4
    assert all(
        f"-A {c}," in cmd
        for c, cmd in zip(
            [cpus[i % len(cpus)] for i in range(4)], result.client_commands, strict=True
        )
    )
    assert result.server_commands == servers and result.engine_version
    # Live: each summed second carries every stream's rate (the strip's slowest).
    assert live and all(len(e.streams) == 4 for e in live)


def test_window_and_zero_copy_runs(lab: Lab) -> None:
    windowed, _, _ = run(lab, spec_of(lab, window="1M"))
    assert "-w 1M" in windowed.client_commands[0] and windowed.intervals
    zero, _, _ = run(lab, spec_of(lab, zerocopy=True))
    assert " -Z" in zero.client_commands[0] and zero.intervals and zero.retransmits is not None


def test_udp_run_keeps_loss_and_jitter(lab: Lab) -> None:
    # A tiny receive buffer (-w sets both ends' for UDP) against a high rate: the receiver's
    # socket overflows and iperf3 counts the datagrams that never arrived.
    result, _, _ = run(lab, spec_of(lab, duration=2, udp_rate="2G", window="4K"))
    assert result.total_packets and result.lost_packets is not None
    assert result.lost_packets > 0 and result.loss_pct and result.jitter_ms is not None
    assert result.retransmits is None


def test_nuttcp_run(lab: Lab) -> None:
    if shutil.which("nuttcp") is None:
        pytest.skip("nuttcp missing (apt install nuttcp)")
    spec = spec_of(lab, engine="nuttcp", port=5000, duration=2, client_cpu=0)
    result, live, servers = run(lab, spec)
    assert result.engine_version and live
    assert result.received_bps and result.local_cpu is not None
    argv = result.client_commands[0].split()
    assert [os.path.basename(argv[4]), *argv[5:7]] == ["taskset", "-c", "0"]  # no -xc in 6
    assert servers and "nuttcp -S -P5000" in servers[0]


def test_latency_run(lab: Lab) -> None:
    if shutil.which("sockperf") is None:
        pytest.skip("sockperf missing (apt install sockperf)")
    spec = spec_of(lab, engine="sockperf", port=11111, duration=1)
    result, live, servers = run(lab, spec)
    assert live == [] and result.throughput_bps is None
    med, p99, p999 = result.latency_median_us, result.latency_p99_us, result.latency_p999_us
    assert med is not None and p99 is not None and p999 is not None
    assert 0 < med <= p99 <= p999
    assert result.transactions_per_s and result.transactions_per_s > 0
    assert "sockperf server --tcp" in servers[0]


def test_lab_down_stops_a_server_a_crash_left(tmp_path: Path) -> None:
    """A tuitune killed mid-run leaves its per-run servers in the peer namespace: `lab --down`
    stops them too (by their names inside the lab), not only the lab's iperf3 daemon."""
    if os.geteuid() != 0 or shutil.which("sockperf") is None:
        pytest.skip("needs root and sockperf")
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    built = labmod.build(state)
    left = None
    try:
        argv = ["ip", "netns", "exec", built.peer_netns]
        argv += engines.get("sockperf").server_argv("/usr/bin/sockperf", built.peer_addr, 11111)
        left = proc.popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # `ip netns exec` joins the namespace, then execs the server: right after the fork it
        # is still in this one (a run under load saw only the lab's iperf3 there). No event
        # says "joined and exec'd", so the kernel's state is read until it holds.
        end = time.monotonic() + 30
        while not (left.pid in _pids_in(built.peer_netns) and _comm(left.pid) == "sockperf"):
            assert time.monotonic() < end and left.poll() is None, "sockperf never started"
            time.sleep(0.01)
    finally:
        removed = labmod.down(built, state)
    assert left is not None
    assert left.wait(10) is not None  # ended by `down`, not by this test
    assert any(r.startswith(f"sockperf (pid {left.pid})") for r in removed), removed
