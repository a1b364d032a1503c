"""The live advisor's facts take the connections the sampler read (the connections view's
reading, or a benchmark's each tick): fed samples, no app, no kernel. Right after a run the
run's window still judges the run's sockets (they are closed by then); outside a run an old
reading is not judged as if it were now."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from tests.support.fixture_hosts import host_32cpu
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
