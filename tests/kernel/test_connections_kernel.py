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
