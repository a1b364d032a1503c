"""Connections read through inet_diag: a real TCP connection across a veth pair between two
namespaces, with window scaling on, then off (net.ipv4.tcp_window_scaling is per namespace)."""

from __future__ import annotations

import socket
import subprocess
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tuitune.core.host.netns import KernelThread
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader

from .conftest import _need_root, run

pytestmark = pytest.mark.kernel


@dataclass
class Two:
    client_ns: str
    server_ns: str
    client_if: str


@pytest.fixture
def two() -> Iterator[Two]:
    _need_root()
    tag = uuid.uuid4().hex[:6]
    c_ns, s_ns, c, s = f"tt-cc-{tag}", f"tt-cs-{tag}", f"tc{tag}c", f"tc{tag}s"
    try:
        for ns in (c_ns, s_ns):
            run("ip", "netns", "add", ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
        run("ip", "-n", c_ns, "link", "add", c, "type", "veth", "peer", "name", s, "netns", s_ns)
        run("ip", "-n", c_ns, "addr", "add", "10.66.0.1/24", "dev", c)
        run("ip", "-n", s_ns, "addr", "add", "10.66.0.2/24", "dev", s)
        run("ip", "-n", c_ns, "link", "set", c, "up")
        run("ip", "-n", s_ns, "link", "set", s, "up")
        yield Two(c_ns, s_ns, c)
    finally:
        for ns in (c_ns, s_ns):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def connected(t: Two, wscale: bool) -> tuple[socket.socket, socket.socket, socket.socket]:
    """A listener in the server namespace, a client connected from the client namespace and
    its accepted peer, made on kernel threads inside each namespace."""
    value = "1" if wscale else "0"
    run("ip", "netns", "exec", t.client_ns, "sysctl", "-qw", f"net.ipv4.tcp_window_scaling={value}")
    with KernelThread(t.server_ns) as skt, KernelThread(t.client_ns) as ckt:
        listener: socket.socket = skt.call(lambda: socket.create_server(("10.66.0.2", 0)))
        port = listener.getsockname()[1]
        accepted: list[socket.socket] = []
        waiter = threading.Thread(target=lambda: accepted.append(listener.accept()[0]))
        waiter.start()
        client: socket.socket = ckt.call(lambda: socket.create_connection(("10.66.0.2", port)))
        waiter.join(timeout=10)
    client.sendall(b"x" * 200_000)
    return listener, client, accepted[0]


@pytest.mark.parametrize("wscale", [True, False], ids=["wscale-on", "wscale-off"])
def test_the_connection_and_its_window_scaling(two: Two, wscale: bool) -> None:
    socks = connected(two, wscale)
    port = socks[0].getsockname()[1]
    try:
        with HostReader(HostRoot(netns=two.client_ns)) as reader:
            got = reader.connections(two.client_if)
    finally:
        for s in socks:
            s.close()
    assert isinstance(got, tuple) and len(got) == 1
    (c,) = got
    assert (c.local, c.remote, c.rport) == ("10.66.0.1", "10.66.0.2", port)
    assert c.cc and c.cwnd and c.mss and c.rtt_ms is not None and c.sack is True
    assert (c.wscale is not None) is wscale
    assert c.wscale_off is (not wscale)


@pytest.mark.parametrize("wscale", [True, False], ids=["wscale-on", "wscale-off"])
def test_the_live_advisor_judges_the_samplers_reading(two: Two, wscale: bool) -> None:
    """The live screen's path: the sampler reads the connections at each tick while they are
    wanted (a benchmark runs), the advisor's facts take that reading, and the rule names the
    connection without window scaling (window scaling off in the client's namespace only),
    and says nothing of the one with it."""
    from tests.tui.test_advisor_conns import _Shell
    from tuitune.core.advise import advise
    from tuitune.core.watch.sampler import Sample, Sampler
    from tuitune.tui.controllers.advisor import Advisor

    socks = connected(two, wscale)
    port = socks[0].getsockname()[1]
    samples: list[Sample] = []
    try:
        with HostReader(HostRoot(netns=two.client_ns)) as reader:

            def deliver(s: Sample) -> None:
                samples.append(s)
                sampler.ack()

            sampler = Sampler(reader, two.client_if, deliver, interval=0.05, limit=2)
            sampler.want_connections("run", True)
            sampler.start()
            assert sampler._thread is not None
            sampler._thread.join(timeout=10)
            sampler.stop()
            snap = reader.snapshot(two.client_if)
    finally:
        for s in socks:
            s.close()
    assert len(samples) == 2 and snap.nic is not None
    assert all(isinstance(s.connections, tuple) for s in samples)
    shell = _Shell(snap.host, snap.nic)
    advisor = Advisor(shell, None, count_every=10_000)  # type: ignore[arg-type]
    for sample in samples:
        advisor.feed(sample)
    facts = advisor._facts()
    assert facts is not None and facts.connections is not None and len(facts.connections) == 1
    advice = advise(facts)
    found = [f for f in advice.findings if f.id == "connection-no-wscale"]
    assert not [n for n in advice.notes if n.rule == "connection-no-wscale"]
    if wscale:
        assert not found
    else:
        assert found and f"-> 10.66.0.2:{port}" in found[0].evidence[0]
        assert found[0].evidence[0].startswith("10.66.0.1:")
