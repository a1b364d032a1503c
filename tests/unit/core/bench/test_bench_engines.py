"""The engines (iperf3, nuttcp, sockperf) on their real recorded outputs, the options of
issue 35, the `--processes` sum, and a notebook written before the engines existed."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from tuitune.core.bench import engines
from tuitune.core.bench.engines.base import parse_version, per_stream
from tuitune.core.bench.engines.iperf3 import threaded
from tuitune.core.bench.iperf import parse_output
from tuitune.core.bench.limits import BadLength, parse_rate, parse_window
from tuitune.core.bench.model import BenchResult, BenchSpec, Interval
from tuitune.core.bench.multi import StreamSum
from tuitune.core.bench.notebook import Notebook, from_json, to_json
from tuitune.core.bench.runformat import compare, to_text
from tuitune.core.bench.runner import BenchEvent, BenchRunner, IntervalEvent
from tuitune.core.bench.runtable import build_rows

FIX = Path(__file__).resolve().parents[3] / "fixtures"
ENG = FIX / "engines"
PEER = "198.18.99.2"


def text(name: str) -> str:
    return (ENG / name).read_text()


def parsed(engine: str, spec: BenchSpec, name: str) -> BenchResult:
    parser = engines.get(engine).parser(spec)
    for line in text(name).splitlines():
        parser.feed(line)
    return parser.finish(0)


# -- iperf3: the new options ----------------------------------------------------------------------
def test_iperf3_command_carries_every_option() -> None:
    spec = BenchSpec(PEER, window="4M", zerocopy=True, mss=1200, congestion="reno")
    argv = engines.get("iperf3").client_argv(spec, "/usr/bin/iperf3")
    assert argv[:3] == ["/usr/bin/iperf3", "-c", PEER]
    joined = " ".join(argv)
    assert "-w 4M" in joined and " -Z" in joined and "-M 1200" in joined and "-C reno" in joined
    udp = engines.get("iperf3").client_argv(BenchSpec(PEER, udp_rate="1G"), "iperf3")
    assert "-u -b 1G" in " ".join(udp)


def test_iperf3_window_and_zerocopy_runs_parse() -> None:
    for name, spec in (
        ("iperf3-window.txt", BenchSpec(PEER, window="4M")),
        ("iperf3-zerocopy.txt", BenchSpec(PEER, zerocopy=True)),
        ("iperf3-mss-cc.txt", BenchSpec(PEER, mss=1200, congestion="reno")),
    ):
        r = parse_output(spec, text(name))
        assert r.complete and r.error is None, name
        assert r.received_bps and r.received_bps > 0 and r.retransmits is not None
        assert r.local_cpu is not None and r.remote_cpu is not None


def test_iperf3_udp_keeps_loss_and_jitter_and_no_retransmits() -> None:
    r = parse_output(BenchSpec(PEER, udp_rate="2000M"), text("iperf3-udp.txt"))
    assert r.complete
    assert (r.jitter_ms, r.lost_packets, r.total_packets) == (0.298, 53683, 104257)
    assert r.loss_pct == pytest.approx(51.49, abs=0.01)
    # The datagram counts where TCP prints Retr are not retransmits.
    assert r.retransmits is None and all(iv.retransmits is None for iv in r.intervals)
    back = parse_output(
        BenchSpec(PEER, udp_rate="300M", direction="reverse"), text("iperf3-udp-reverse.txt")
    )
    assert (back.lost_packets, back.total_packets) == (15421, 45652)
    two = parse_output(BenchSpec(PEER, streams=2, udp_rate="500M"), text("iperf3-udp-p2.txt"))
    assert (two.lost_packets, two.total_packets, two.jitter_ms) == (5548, 24508, 23.265)


def test_threads_from_3_16() -> None:
    assert not threaded("3.12") and threaded("3.16") and threaded("3.17.1") and not threaded(None)
    assert parse_version("iperf 3.12 (cJSON 1.7.15)\nLinux") == "3.12"
    assert parse_version("nuttcp-6.1.2") == "6.1.2"
    assert parse_version("sockperf, version 3.7-no.git\n") == "3.7-no.git"


def test_limits_of_the_new_options() -> None:
    assert parse_window("4m") == "4M" and parse_rate("500m") == "500M"
    for bad in ("1G", "12", "x"):
        with pytest.raises(BadLength):
            parse_window(bad)
    with pytest.raises(BadLength):
        parse_rate("0")


# -- nuttcp ---------------------------------------------------------------------------------------
def test_nuttcp_parses_intervals_and_summary() -> None:
    r = parsed("nuttcp", BenchSpec(PEER, port=5000), "nuttcp-normal.txt")
    assert r.complete and r.received_bps == pytest.approx(2189.9196e6)
    assert (r.retransmits, r.local_cpu, r.remote_cpu) == (0, 8.0, 7.0)
    assert [iv.bits_per_second for iv in r.intervals] == [pytest.approx(1231.8046e6)]
    rev = parsed("nuttcp", BenchSpec(PEER, direction="reverse"), "nuttcp-reverse.txt")
    assert rev.complete and all(iv.role == "receiver" for iv in rev.intervals)
    udp = parsed("nuttcp", BenchSpec(PEER, udp_rate="300M"), "nuttcp-udp.txt")
    assert udp.lost_packets is not None and udp.total_packets and udp.loss_pct


def test_nuttcp_refused_says_what_to_start() -> None:
    r = parsed("nuttcp", BenchSpec(PEER, port=5099, engine="nuttcp"), "nuttcp-refused.txt")
    assert not r.complete and r.error is not None
    assert "refused" in r.error and "nuttcp -S -P5099" in r.error


def test_nuttcp_command_and_what_it_lacks() -> None:
    e = engines.get("nuttcp")
    spec = BenchSpec(PEER, port=5000, window="4M", udp_rate="1G", mss=1200, client_cpu=1)
    argv = e.client_argv(spec, "/usr/bin/nuttcp")
    assert argv[1:3] == ["-c", "1"] and argv[3] == "/usr/bin/nuttcp"  # taskset: no -xc in 6
    assert {"-P5000", "-p5001", "-w4m", "-u", "-R1g", "-M1200"} <= set(argv)
    assert argv[-1] == PEER
    assert e.unsupported(BenchSpec(PEER, zerocopy=True)) is not None
    assert e.unsupported(BenchSpec(PEER, direction="bidir")) is not None
    assert e.unsupported(BenchSpec(PEER, window="4M")) is None


# -- sockperf -------------------------------------------------------------------------------------
def test_sockperf_latency_percentiles_and_transactions() -> None:
    r = parsed("sockperf", BenchSpec(PEER, port=11111, engine="sockperf"), "sockperf-pp.txt")
    assert r.complete and r.throughput_bps is None
    assert (r.latency_median_us, r.latency_p99_us, r.latency_p999_us) == (16.39, 190.004, 3998.089)
    assert r.transactions_per_s == pytest.approx(37965 / 1.550)
    refused = parsed("sockperf", BenchSpec(PEER, port=11199), "sockperf-refused.txt")
    assert (
        not refused.complete and refused.error and "sockperf server --tcp -p 11199" in refused.error
    )
    assert engines.get("sockperf").unsupported(BenchSpec(PEER, streams=4)) is not None


def test_nuttcp_and_sockperf_take_the_length_in_bytes_and_say_the_pinned_server() -> None:
    """Neither takes iperf3's K or M: 128K is 131072 bytes; a pinned server is said with the
    taskset that pins it."""
    nuttcp, sockperf = engines.get("nuttcp"), engines.get("sockperf")
    assert "-l131072" in nuttcp.client_argv(BenchSpec(PEER, length="128K"), "/usr/bin/nuttcp")
    argv = sockperf.client_argv(BenchSpec(PEER, length="1M"), "/usr/bin/sockperf")
    assert argv[argv.index("-m") + 1] == "1048576"
    pinned = BenchSpec(PEER, port=5099, server_cpu=3)
    assert nuttcp.server_hint(pinned) == "taskset -c 3 nuttcp -S -P5099"
    assert sockperf.server_hint(pinned) == "taskset -c 3 sockperf server --tcp -p 5099"
    assert nuttcp.server_hint(BenchSpec(PEER, port=5099)) == "nuttcp -S -P5099"


# -- --processes ----------------------------------------------------------------------------------
def test_per_stream_ports_and_pins() -> None:
    spec = BenchSpec(PEER, streams=4, processes=True, stream_cpus=(0, 1), server_cpus=(1, 0))
    each = per_stream(spec)
    assert [s.port for s in each] == [5201, 5202, 5203, 5204]
    assert [(s.client_cpu, s.server_cpu) for s in each] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert all(s.streams == 1 and not s.processes for s in each)
    assert [s.port for s in per_stream(spec, 2)] == [5201, 5203, 5205, 5207]


def test_stream_sum_waits_for_every_stream() -> None:
    s = StreamSum(2)
    assert s.add(0, Interval(0, 1, 10.0, 1)) is None
    total = s.add(1, Interval(0, 1.01, 5.0, 2))
    assert total is not None
    iv, each = total
    assert (iv.bits_per_second, iv.retransmits, iv.end, each) == (15.0, 3, 1.01, (10.0, 5.0))


def test_processes_run_sums_the_recorded_streams() -> None:
    cat = shutil.which("cat")
    assert cat is not None
    spec = BenchSpec(PEER, duration=2, streams=2, processes=True, stream_cpus=(0, 1))
    seen: list[BenchEvent] = []
    done = threading.Event()

    def on_event(e: BenchEvent) -> None:
        seen.append(e)

    runner = BenchRunner(
        spec,
        on_event,
        commands=[["cat", str(ENG / "iperf3-proc-0.txt")], ["cat", str(ENG / "iperf3-proc-1.txt")]],
    )
    runner.start()
    (result,) = runner.wait(30)
    done.set()
    one = parse_output(BenchSpec(PEER, duration=2), text("iperf3-proc-0.txt"))
    two = parse_output(BenchSpec(PEER, duration=2), text("iperf3-proc-1.txt"))
    assert result.complete
    assert result.received_bps == pytest.approx((one.received_bps or 0) + (two.received_bps or 0))
    assert result.retransmits == (one.retransmits or 0) + (two.retransmits or 0)
    assert [(s.port, s.client_cpu) for s in result.streams] == [(5201, 0), (5202, 1)]
    assert [s.local_cpu for s in result.streams] == [one.local_cpu, two.local_cpu]
    assert [s.remote_cpu for s in result.streams] == [one.remote_cpu, two.remote_cpu]
    assert len(result.client_commands) == 2
    live = [e for e in seen if isinstance(e, IntervalEvent)]
    assert len(live) == 2 and all(len(e.streams) == 2 for e in live)
    assert live[0].interval.bits_per_second == pytest.approx(sum(live[0].streams))


# -- the notebook ---------------------------------------------------------------------------------
def test_runs_recorded_before_the_engines_load_and_compare(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes((FIX / "bench" / "runs-before-engines.jsonl").read_bytes())
    nb = Notebook(path)
    runs = nb.runs()
    assert nb.skipped == 0 and [r.id for r in runs] == ["r1", "r2", "r3"]
    assert all(r.spec.engine == "iperf3" and r.result.client_commands == () for r in runs)
    rows = nb.table()
    assert rows[1].d_throughput is not None and rows[1].test_differs == ""
    assert "tso off" in rows[1].changes
    # A new run of the same test compares with the old baseline.
    new = runs[0].result
    new_run = type(runs[0])(
        "r4", "r4", "veth-lab", "", runs[0].spec, new, runs[0].load, runs[0].settings
    )
    nb.add(new_run)
    row = next(r for r in nb.table() if r.group == "r4")
    assert row.test_differs == "" and row.d_throughput == pytest.approx(0.0)
    lines = compare(runs[0], new_run)
    assert ("engine", "iperf3", "iperf3") in lines
    assert "r3" in to_text(nb.table())


def test_a_run_with_streams_and_latency_round_trips() -> None:
    spec = BenchSpec(PEER, engine="sockperf", port=11111, stream_cpus=(0, 1))
    r = parsed("sockperf", spec, "sockperf-pp.txt")
    from tuitune.core.bench.model import CpuLoad, Run

    run = Run("r1", "r1", "veth", "", spec, r, CpuLoad(), {})
    assert from_json(to_json(run)) == run
    rows = build_rows([run], None)
    assert rows[0].latency.median == 16.39 and rows[0].tps.median
    assert "rtt 16.4 us" in to_text(rows)


# -- the sweep ------------------------------------------------------------------------------------
def test_sweep_spec_takes_engine_and_processes_and_keeps_old_identities(tmp_path: Path) -> None:
    from tuitune.core.sweep.spec import SpecError
    from tuitune.core.sweep.spec import load as load_spec

    body = '[sweep]\nname = "s"\n[bench]\nseconds = 1\n{extra}\n[[dimension]]\n'
    body += 'setting = "streams"\nvalues = [1, 4]\n'
    path = tmp_path / "s.toml"
    path.write_text(body.format(extra=""))
    old = load_spec(path)
    assert (old.bench.engine, old.bench.processes) == ("iperf3", False)
    path.write_text(body.format(extra="processes = true"))
    new = load_spec(path)
    assert new.bench.processes and new.identity() != old.identity()
    path.write_text(body.format(extra='engine = "iperf3"'))
    assert load_spec(path).identity() == old.identity()  # the default changes nothing
    path.write_text(body.format(extra='engine = "netperf"'))
    with pytest.raises(SpecError, match="engine"):
        load_spec(path)


def test_pivot_measures_a_latency_cell_by_its_round_trip() -> None:
    from tuitune.core.sweep.pivot import measure

    lat = parsed("sockperf", BenchSpec(PEER, engine="sockperf"), "sockperf-pp.txt")
    assert measure(lat) == 16.39
    tcp = parse_output(BenchSpec(PEER), text("iperf3-window.txt"))
    assert measure(tcp) == tcp.received_bps


def test_the_runs_screen_shows_a_latency_row_by_its_round_trip() -> None:
    from dataclasses import replace

    from tuitune.core.bench.model import CpuLoad, Run
    from tuitune.tui.look.glyphs import ASCII
    from tuitune.tui.screens.runs import runs_rows

    spec = BenchSpec(PEER, engine="sockperf", port=11111)
    r = parsed("sockperf", spec, "sockperf-pp.txt")
    slower = replace(r, latency_median_us=32.78)
    runs = [
        Run("r1", "r1", "veth", "", spec, r, CpuLoad(), {"gro": "off"}),
        Run("r2", "r2", "veth", "", spec, slower, CpuLoad(), {"gro": "on"}),
    ]
    rows = runs_rows(build_rows(runs, "r1"), [], ASCII)
    assert rows[0].cells[3] == "rtt 16.4 us"
    assert rows[1].cells[3] == "rtt 32.8 us"
    assert rows[1].cells[5][0][0] == "+100.0%"  # type: ignore[index]  # worse: it rose
