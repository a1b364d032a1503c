"""The live advisor's facts take the connections the sampler read (the connections view's
reading, or a benchmark's each tick): fed samples, no app, no kernel. Right after a run the
run's window still judges the run's sockets (they are closed by then); outside a run an old
reading is not judged as if it were now."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from tests.support.fixture_hosts import host_32cpu
from tests.support.screen_app import screen_app
from tuitune.core.host.conns import Connection
from tuitune.core.values import Unavailable
from tuitune.core.watch.sampler import Sample
from tuitune.core.watch.snapshot import Counters, HostState, NicState
from tuitune.tui.controllers.advisor import COUNT_FROM, WINDOW, Advisor
from tuitune.tui.shell import Selection, Shell


def _conn(port: int, wscale: tuple[int, int] | None) -> Connection:
    return Connection("10.0.0.1", port, "10.0.0.2", 5201, "cubic", 10, 0.1, 0,
                      None, None, 1448, True, True, wscale)  # fmt: skip


ON, OFF = _conn(40000, (7, 7)), _conn(40001, None)


@dataclass
class _Shell:
    host: HostState
    nic: NicState
    session: Any = field(default_factory=lambda: type("S", (), {"originals": dict})())

    def selection(self) -> Selection:
        return Selection(self.nic.link.ifname, self.nic, self.host)


def _advisor(tmp_path: Path) -> tuple[Advisor, Counters]:
    reader, ifname = host_32cpu(tmp_path / "host", samples=2)
    with reader:
        snap = reader.snapshot(ifname)
    assert snap.nic is not None
    shell = _Shell(snap.host, snap.nic)
    return Advisor(cast(Shell, shell), cast(Any, None), count_every=10_000), snap.counters


def _sample(seq: int, counters: Counters, conns: Any = None) -> Sample:
    return Sample(seq, counters, None, None, None, None, None, None, 0.001, connections=conns)


def _judged(a: Advisor) -> tuple[Connection, ...] | None:
    facts = a._facts()
    assert facts is not None
    return facts.connections


def test_outside_a_run_the_last_reading_while_it_is_of_the_window(tmp_path: Path) -> None:
    a, c = _advisor(tmp_path)
    a.feed(_sample(1, c))
    assert _judged(a) is None  # never read: the rule says "not read"
    a.feed(_sample(2, c, (ON, OFF)))
    assert _judged(a) == (ON, OFF)
    for seq in range(3, 3 + WINDOW):
        a.feed(_sample(seq, c))
    assert _judged(a) is None  # a reading older than the window is not now's
    a.feed(_sample(99, c, Unavailable("unsupported", "connections (inet_diag): EPERM")))
    assert _judged(a) is None


def test_a_runs_window_judges_every_socket_seen_during_the_run(tmp_path: Path) -> None:
    a, c = _advisor(tmp_path)
    seq = 0
    for _ in range(3):
        seq += 1
        a.feed(_sample(seq, c, (ON,)))  # before the run: another connection
    a.run_started()
    for conns in [(OFF,), (OFF, ON), (ON,)] + [()] * COUNT_FROM:
        seq += 1
        a.feed(_sample(seq, c, conns))  # the run's sockets, each tick
    a.run_ended()
    for _ in range(2):  # just after: closed, no reading at all
        seq += 1
        a.feed(_sample(seq, c))
    assert a.window_of_run
    assert sorted(x.lport for x in _judged(a) or ()) == [40000, 40001]
    from tuitune.core.advise import advise

    facts = a._facts()
    assert facts is not None
    found = [f for f in advise(facts).findings if f.id == "connection-no-wscale"]
    assert found and "10.0.0.1:40001" in found[0].evidence[0]
    assert "40000" not in found[0].evidence[0]


async def test_in_the_app_a_benchmarks_sockets_are_judged_just_after_it(tmp_path: Path) -> None:
    """The App's wiring: a benchmark run makes the sampler read the connections at each tick
    (and no longer once it ends), and right after the run, its socket closed and nothing read
    any more, `A` names the run's connection without window scaling. The run is a recorded
    iperf3 output fed a line per sample (tests/tui/test_advisor_runs.py's way)."""
    from tests.tui.conftest import Tui
    from tests.tui.test_bench_form import FIXTURES
    from tests.tui.test_bench_live import fifo, play_run, start
    from tuitune.core.bench.notebook import Notebook
    from tuitune.tui.controllers.advisor import AdvisorScreen

    reader, ifname = host_32cpu(tmp_path / "host", samples=5)
    nb = Notebook(tmp_path / "runs.jsonl")
    app = screen_app(
        reader,
        ifname,
        interval=0.2,
        limit=None,
        editable=True,
        journal_dir=tmp_path / "journal",
        notebook_path=nb.path,
    )
    reads: list[bool] = []  # each read: was a run on (the advisor's view of it)

    def connections(name: str) -> tuple[Connection, ...]:
        reads.append(app.advisor._in_run)
        return (OFF,)

    reader.connections = connections  # type: ignore[method-assign]
    ended = app.advisor.run_ended

    def run_ended() -> None:
        ended()
        app.sampler.pause(True)  # "just after": held until the test has looked

    app.advisor.run_ended = run_ended  # type: ignore[method-assign]
    recording = (FIXTURES / "normal-p1.txt").read_text().splitlines(keepends=True)
    try:
        async with fifo(tmp_path) as (command, path), app.run_test(size=(160, 48)) as pilot:
            app.app_bench.command = command
            tui = Tui(app, pilot, reader)
            await tui.wait(lambda: app.samples_drawn >= 3, "drawn")
            assert reads == []  # nobody wants them: not read
            await start(tui)
            await play_run(tui, path, recording)
            await tui.wait(lambda: app.sampler.paused, "the run ended")
            assert not app.sampler.connections_wanted
            assert sum(reads) >= COUNT_FROM  # read at each tick of the run
            await tui.press("A")
            await tui.wait(lambda: isinstance(app.screen, AdvisorScreen), "the findings view")
            text = tui.screen_text()
            assert "over the benchmark run" in text
            assert "connection-no-wscale" in text and "1 connection(s)" in text
            await tui.press("escape")
            app.sampler.stop()
            await pilot.pause()
    finally:
        reader.close()
