"""Per-queue counters on a real veth: two namespaces, a veth with two queues, GRO on the
receiver and TSO off on the sender, so that veth's NAPI path (the one its per-queue
`rx_queue_N_xdp_packets` counts) carries the traffic."""

from __future__ import annotations

import io
import queue
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from rich.console import Console

from tuitune.core.host.queuestats import queue_rates
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.sampler import Sample, Sampler
from tuitune.report.queues import queues_table

from .conftest import _need_root, run

pytestmark = pytest.mark.kernel

COUNT = 300


@dataclass
class Pair:
    send_ns: str
    recv_ns: str
    recv: str


@pytest.fixture
def pair() -> Iterator[Pair]:
    _need_root()
    tag = uuid.uuid4().hex[:6]
    a_ns, b_ns, a, b = f"tt-qa-{tag}", f"tt-qb-{tag}", f"tq{tag}a", f"tq{tag}b"
    try:
        for ns in (a_ns, b_ns):
            run("ip", "netns", "add", ns)
            run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
            run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        run("ip", "-n", a_ns, "link", "add", a, "numtxqueues", "2", "numrxqueues", "2",
            "type", "veth", "peer", "name", b, "netns", b_ns, "numtxqueues", "2",
            "numrxqueues", "2")  # fmt: skip
        run("ip", "-n", a_ns, "addr", "add", "10.77.0.1/24", "dev", a)
        run("ip", "-n", b_ns, "addr", "add", "10.77.0.2/24", "dev", b)
        run("ip", "-n", a_ns, "link", "set", a, "up")
        run("ip", "-n", b_ns, "link", "set", b, "up")
        run("ip", "netns", "exec", b_ns, "ethtool", "-K", b, "gro", "on")
        run("ip", "netns", "exec", a_ns, "ethtool", "-K", a, "tso", "off", "gso", "off")
        yield Pair(a_ns, b_ns, b)
    finally:
        for ns in (a_ns, b_ns):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def test_veth_queue_counts_what_was_sent(pair: Pair) -> None:
    with HostReader(HostRoot(netns=pair.recv_ns)) as reader:
        before = reader.driver_stats(pair.recv)
        run("ip", "netns", "exec", pair.send_ns, "ping", "-q", "-f", "-c", str(COUNT),
            "10.77.0.2")  # fmt: skip
        nic = reader.nic_state(pair.recv, with_stats=True)
    after = nic.driver_stats
    assert not isinstance(before, Unavailable) and not isinstance(after, Unavailable)
    qr = queue_rates(before, after, 1.0, nic.driver_name)
    assert nic.driver_name == "veth"
    rx = {r.queue: r.per_s.get("packets", 0.0) for r in qr.queues if r.direction == "rx"}
    assert set(rx) == {0, 1}  # both of veth's queues, as ethtool -S lists them
    # Every echo request came through one of them (an ARP exchange may add one or two).
    assert COUNT <= sum(rx.values()) <= COUNT + 4
    out = io.StringIO()
    Console(file=out, width=80).print(queues_table(nic, qr, None))
    text = out.getvalue()
    assert f"queues of {pair.recv}" in text
    busy = max(rx, key=lambda q: rx[q])
    row = next(line for line in text.splitlines() if line.strip().startswith(str(busy)))
    assert str(int(rx[busy])) in row.split()


def test_the_live_sampler_carries_per_queue_rates(pair: Pair) -> None:
    got: queue.Queue[Sample] = queue.Queue()
    with HostReader(HostRoot(netns=pair.recv_ns)) as reader:
        s = Sampler(reader, pair.recv, got.put, interval=0.05, limit=2)
        s.start()
        try:
            first = got.get(timeout=20)
            assert first.driver_stats is not None and first.queues is None  # one read: no rate
            # The traffic happens between the two samples: the second sample's rate times its
            # interval is the count sent, whatever the interval turned out to be.
            run("ip", "netns", "exec", pair.send_ns, "ping", "-q", "-f", "-c", str(COUNT),
                "10.77.0.2")  # fmt: skip
            s.ack()
            second = got.get(timeout=20)
        finally:
            s.stop()
    assert second.queues is not None and second.rates is not None
    received = sum(r.per_s.get("packets", 0.0) for r in second.queues.queues if r.direction == "rx")
    assert COUNT <= round(received * second.rates.interval) <= COUNT + 4


def test_veth_has_no_qstats_so_ethtool_s_is_the_source(pair: Pair) -> None:
    with HostReader(HostRoot(netns=pair.recv_ns)) as reader:
        got = reader.queue_stats(pair.recv)
    assert not isinstance(got, Unavailable)
    pairs, source = got
    assert source == "ethtool -S"
    assert ("rx_queue_1_xdp_packets", 0) in pairs


def test_a_tick_reads_the_queue_counters_in_the_counters_hand_off(pair: Pair) -> None:
    """counters(queues=True) reads the per-queue counters on the same trip to the kernel
    thread (issue 38: one wake a tick); queue_stats hands them over once, then asks again."""
    with HostReader(HostRoot(netns=pair.recv_ns)) as reader:
        reader.counters(pair.recv, queues=True)
        real_call, trips = reader._kt.call, []

        def counting(fn: object, *args: object) -> object:
            trips.append(fn)
            return real_call(fn, *args)  # type: ignore[arg-type]

        reader._kt.call = counting  # type: ignore[method-assign]
        kept = reader.queue_stats(pair.recv)
        assert trips == []
        again = reader.queue_stats(pair.recv)
        assert len(trips) == 1
    assert not isinstance(kept, Unavailable) and not isinstance(again, Unavailable)
    assert kept[1] == again[1] == "ethtool -S"
    assert [k for k, _ in kept[0]] == [k for k, _ in again[0]]
    assert any(k.startswith("rx_queue_1_") for k, _ in kept[0])
