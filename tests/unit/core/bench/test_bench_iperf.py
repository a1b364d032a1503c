"""iperf3's command line, its text output parsed against real iperf3 3.12 recordings
(tests/fixtures/iperf3, made by record.sh), and the runner driving a real process that replays
them (`cat`), including the failures a user meets: refused, unreachable, killed midway,
iperf3 missing, and a run stopped by the user."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tuitune.core.bench import iperf, runner
from tuitune.core.bench.iperf import IperfParser, command, parse_output
from tuitune.core.bench.model import BenchResult, BenchSpec
from tuitune.core.bench.runner import BenchEvent, BenchRunner, Finished, IntervalEvent, Started

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "iperf3"
PEER = "10.254.77.2"


def text(name: str) -> str:
    return (FIXTURES / f"{name}.txt").read_text()


def parse(name: str, spec: BenchSpec, returncode: int = 0) -> BenchResult:
    return parse_output(spec, text(name), returncode)


# -- the command line -----------------------------------------------------------------------------
def test_command_has_the_live_text_options() -> None:
    argv = command(BenchSpec(PEER, duration=7, streams=3), iperf3="/usr/bin/iperf3")
    assert argv[:7] == ["/usr/bin/iperf3", "-c", PEER, "-p", "5201", "-t", "7"]
    joined = " ".join(argv)
    for part in ("-P 3", "-i 1", "--forceflush", "-f m", "-V", "--connect-timeout 5000"):
        assert part in joined
    assert "-R" not in argv and "--bidir" not in argv and "-A" not in argv and "-l" not in argv


@pytest.mark.parametrize(
    ("spec", "tail"),
    [
        (BenchSpec(PEER, direction="reverse"), ["-R"]),
        (BenchSpec(PEER, direction="bidir"), ["--bidir"]),
        (BenchSpec(PEER, length="128K"), ["-l", "128K"]),
        (BenchSpec(PEER, client_cpu=2), ["-A", "2"]),
        (BenchSpec(PEER, client_cpu=0, server_cpu=1), ["-A", "0,1"]),
    ],
)
def test_command_options(spec: BenchSpec, tail: list[str]) -> None:
    assert command(spec)[-len(tail) :] == tail


def test_command_in_a_namespace_and_port() -> None:
    argv = command(BenchSpec(PEER, port=5999, netns="lab"))
    assert argv[:5] == ["ip", "netns", "exec", "lab", "iperf3"]
    assert argv[argv.index("-p") + 1] == "5999"


# -- the parser ---------------------------------------------------------------------------------
def test_one_stream() -> None:
    r = parse("normal-p1", BenchSpec(PEER, duration=3))
    assert [(i.start, i.end) for i in r.intervals] == [(0, 1), (1, 2), (2, 3)]
    assert [i.bits_per_second for i in r.intervals] == [14469e6, 10503e6, 12559e6]
    assert [i.retransmits for i in r.intervals] == [5711, 996, 2876]
    assert {i.role for i in r.intervals} == {"sender"}
    assert (r.sent_bps, r.received_bps, r.retransmits) == (12510e6, 12469e6, 9583)
    assert (r.local_cpu, r.remote_cpu) == (51.5, 44.0)
    assert r.complete and r.error is None
    assert r.throughput_bps == 12469e6  # what arrived


def test_several_streams_use_the_sum_lines() -> None:
    r = parse("normal-p4", BenchSpec(PEER, duration=3, streams=4))
    assert [i.bits_per_second for i in r.intervals] == [18860e6, 27382e6, 16670e6]
    assert [i.retransmits for i in r.intervals] == [2199, 9442, 3965]
    assert (r.sent_bps, r.received_bps, r.retransmits) == (20974e6, 20953e6, 15606)
    assert (r.local_cpu, r.remote_cpu) == (75.1, 48.7)


def test_reverse_intervals_are_received_and_have_no_retransmits() -> None:
    r = parse("reverse-p1", BenchSpec(PEER, duration=3, direction="reverse"))
    assert [i.bits_per_second for i in r.intervals] == [12027e6, 13442e6, 13299e6]
    assert {i.role for i in r.intervals} == {"receiver"}
    assert all(i.retransmits is None for i in r.intervals)
    assert (r.sent_bps, r.received_bps, r.retransmits) == (12931e6, 12923e6, 4303)
    # iperf3 3.12 prints no CPU line in reverse mode: unknown, not zero.
    assert r.local_cpu is None and r.remote_cpu is None
    assert r.complete


def test_reverse_several_streams() -> None:
    r = parse("reverse-p4", BenchSpec(PEER, duration=3, streams=4, direction="reverse"))
    assert [i.bits_per_second for i in r.intervals] == [15475e6, 19831e6, 23591e6]
    assert r.intervals[-1].end == 3.05
    assert (r.sent_bps, r.received_bps, r.retransmits) == (19632e6, 19695e6, 13818)


def test_bidir_reports_both_directions() -> None:
    r = parse("bidir-p1", BenchSpec(PEER, duration=3, direction="bidir"))
    sent = [i for i in r.intervals if i.role == "sender"]
    got = [i for i in r.intervals if i.role == "receiver"]
    assert [i.bits_per_second for i in sent] == [10547e6, 11048e6, 9900e6]
    assert [i.retransmits for i in sent] == [23478, 16921, 13740]
    assert [i.bits_per_second for i in got] == [10756e6, 10439e6, 9614e6]
    assert all(i.retransmits is None for i in got)
    assert (r.sent_bps, r.received_bps, r.retransmits) == (10498e6, 10493e6, 54139)
    assert (r.return_sent_bps, r.return_received_bps, r.return_retransmits) == (
        10278e6,
        10268e6,
        56496,
    )
    assert r.throughput_bps == 10493e6 + 10268e6
    assert r.total_retransmits == 54139 + 56496
    assert (r.local_cpu, r.remote_cpu) == (69.5, 68.0)


def test_bidir_several_streams_use_the_sum_lines() -> None:
    r = parse("bidir-p2", BenchSpec(PEER, duration=3, streams=2, direction="bidir"))
    assert len(r.intervals) == 6
    assert [i.bits_per_second for i in r.intervals if i.role == "sender"] == [
        8029e6,
        9798e6,
        8961e6,
    ]
    assert (r.sent_bps, r.return_received_bps) == (8930e6, 9187e6)


def test_intervals_arrive_on_the_line_that_completes_them() -> None:
    parser = IperfParser(BenchSpec(PEER, duration=3, streams=4))
    arrivals = [(line, parser.feed(line)) for line in text("normal-p4").splitlines()]
    emitting = [line for line, got in arrivals if got]
    assert len(emitting) == 3
    assert all(line.startswith("[SUM]") for line in emitting)


def test_the_stream_count_is_read_from_the_output() -> None:
    """A replay whose spec says one stream still reports the [SUM] lines of four."""
    r = parse("normal-p4", BenchSpec(PEER))
    assert [i.bits_per_second for i in r.intervals] == [18860e6, 27382e6, 16670e6]


def test_killed_midway_keeps_what_was_measured() -> None:
    r = parse("killed-midway", BenchSpec(PEER, duration=5), returncode=1)
    assert not r.complete
    assert [(i.start, i.end) for i in r.intervals] == [(0, 1), (1, 2)]  # the repeat dropped
    assert r.sent_bps == (12977e6 + 11996e6) / 2
    assert r.retransmits == 3330 + 1371
    assert r.received_bps is None and r.local_cpu is None
    assert r.error is not None
    assert "failed after 2 s" in r.error and "control socket has closed" in r.error
    assert "measured in the first 2 s" in r.error


def test_a_stopped_run_ignores_its_made_up_summary() -> None:
    """On SIGTERM iperf3 prints a short last interval and a summary whose receiver got 0
    bytes: the intervals are what counts, weighted by their length."""
    spec = BenchSpec(PEER, duration=10)
    replayed = parse("cancelled", spec, returncode=1)
    assert [(i.start, i.end) for i in replayed.intervals] == [(0, 1.11), (1.11, 2), (2, 2.49)]
    expected = (11182e6 * 1.11 + 10359e6 * 0.89 + 13418e6 * 0.49) / 2.49
    assert replayed.sent_bps == pytest.approx(expected)
    assert replayed.received_bps is None and replayed.local_cpu is None
    assert replayed.retransmits == 649 + 768 + 973
    assert not replayed.complete
    assert replayed.error == (
        "iperf3 was interrupted after 2 s: the numbers are what was measured in the first 2 s"
    )
    parser = IperfParser(spec)
    parser.feed_all(text("cancelled").splitlines())
    stopped = parser.finish(-15, cancelled=True)
    assert stopped.error is not None and stopped.error.startswith("stopped by you after 2 s")
    assert stopped.sent_bps == replayed.sent_bps


def test_refused_names_the_server_command() -> None:
    r = parse("refused", BenchSpec(PEER, port=5299), returncode=1)
    assert not r.complete and r.intervals == ()
    assert r.error is not None
    assert "refused the connection" in r.error
    assert r.error.endswith("iperf3 -s -p 5299")


def test_refused_with_a_lab_hint() -> None:
    hint = "ip netns exec tuitune-peer-abc iperf3 -s -B 198.18.0.2 -D"
    parser = IperfParser(BenchSpec("198.18.0.2"), server_hint=hint)
    parser.feed_all(text("refused").splitlines())
    result = parser.finish(1)
    assert result.error is not None and result.error.endswith(hint)


@pytest.mark.parametrize(
    ("name", "peer", "reason"),
    [
        ("unreachable", "10.254.78.9", "Network is unreachable"),
        ("no-route-to-host", "10.254.77.9", "No route to host"),
    ],
)
def test_unreachable(name: str, peer: str, reason: str) -> None:
    r = parse(name, BenchSpec(peer), returncode=1)
    assert r.error is not None
    assert f"{peer} cannot be reached ({reason})" in r.error
    assert f"ip route get {peer}" in r.error and "iperf3 -s" in r.error


def test_timed_out_and_busy_in_plain_words() -> None:
    spec = BenchSpec(PEER)
    timed = parse_output(
        spec, "iperf3: error - unable to connect to server: Connection timed out\n", 1
    )
    assert timed.error is not None and "cannot be reached (Connection timed out)" in timed.error
    busy = parse_output(
        spec, "iperf3: error - the server is busy running a test. try again later\n", 1
    )
    assert busy.error is not None and "busy with another test" in busy.error


def test_no_output_at_all() -> None:
    r = parse_output(BenchSpec(PEER), "", 1)
    assert not r.complete
    assert r.error == "iperf3 ended with status 1 without a result"


# -- the runner ---------------------------------------------------------------------------------
class Events:
    def __init__(self) -> None:
        self.seen: list[BenchEvent] = []
        self.two_intervals = threading.Event()

    def __call__(self, event: BenchEvent) -> None:
        self.seen.append(event)
        if sum(isinstance(e, IntervalEvent) for e in self.seen) == 2:
            self.two_intervals.set()

    def kinds(self) -> list[str]:
        return [type(e).__name__ for e in self.seen]


def test_runner_replays_a_recorded_output() -> None:
    events = Events()
    spec = BenchSpec(PEER, duration=3, repeats=2)
    r = BenchRunner(spec, events, command=["cat", str(FIXTURES / "normal-p1.txt")])
    r.start()
    results = r.wait()
    one = ["Started", "IntervalEvent", "IntervalEvent", "IntervalEvent", "Finished"]
    assert events.kinds() == one * 2
    assert [e.repeat for e in events.seen] == [0] * 5 + [1] * 5
    assert [res.received_bps for res in results] == [12469e6, 12469e6]
    started = events.seen[0]
    assert isinstance(started, Started) and started.argv[0] == "cat"
    finished = events.seen[4]
    assert isinstance(finished, Finished) and finished.result.complete


def test_runner_stops_repeating_after_a_failure() -> None:
    events = Events()
    spec = BenchSpec(PEER, port=5299, repeats=3)
    r = BenchRunner(spec, events, command=["cat", str(FIXTURES / "refused.txt")])
    r.start()
    (result,) = r.wait()
    assert events.kinds() == ["Started", "Finished"]
    assert result.error is not None and "refused" in result.error


def test_runner_without_iperf3(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "find_program", lambda name: None)
    events = Events()
    r = BenchRunner(BenchSpec(PEER), events)
    r.start()
    (result,) = r.wait()
    assert result.error == "iperf3 is not installed: install it with `apt install iperf3`"
    assert iperf.INSTALL_HINT == "apt install iperf3"


def test_runner_with_a_missing_program() -> None:
    events = Events()
    r = BenchRunner(BenchSpec(PEER), events, command=["/nonexistent/bin/iperf3", "-c", PEER])
    r.start()
    (result,) = r.wait()
    assert result.error is not None and "apt install iperf3" in result.error


def test_cancel_keeps_what_was_measured() -> None:
    events = Events()
    head = " ".join(text("normal-p1").splitlines()[:12])  # up to the second interval
    assert "1.00-2.00" in head
    script = f"head -n 12 {FIXTURES / 'normal-p1.txt'}; exec sleep 60"
    r = BenchRunner(BenchSpec(PEER, duration=3, repeats=2), events, command=["sh", "-c", script])
    r.start()
    assert events.two_intervals.wait(30)  # a guard against a hang, not a timing
    r.cancel()
    results = r.wait()
    assert len(results) == 1  # the second repeat never starts
    (result,) = results
    assert not result.complete
    assert result.error is not None and result.error.startswith("stopped by you")
    assert len(result.intervals) == 2 and result.sent_bps == pytest.approx((14469e6 + 10503e6) / 2)
    assert not r.running
