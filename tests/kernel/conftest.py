"""Kernel tests: each gets its own network namespace and veth pair, always deleted afterwards.

Nothing here touches the host's own interfaces, IRQs or global sysctls: every link is created
inside a namespace with a unique name, and the namespace is deleted even when the test fails.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tuitune.core.host.netns import KernelThread
from tuitune.core.host.root import HostRoot
from tuitune.core.session import journal_dir
from tuitune.core.session.journal_file import host_id

pytestmark = pytest.mark.kernel


def _need_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("kernel tests need root (they create network namespaces)")
    if shutil.which("ip") is None:
        pytest.skip("iproute2 missing")


def run(*cmd: str) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


@dataclass
class VethNs:
    ns: str  # namespace holding both ends
    a: str  # the end under test
    b: str  # its peer
    kt: KernelThread  # a kernel thread inside `ns`

    def ip(self, *args: str) -> str:
        return run("ip", "-n", self.ns, *args)

    def nsexec(self, *args: str) -> str:
        return run("ip", "netns", "exec", self.ns, *args)


@pytest.fixture
def veth_ns() -> Iterator[VethNs]:
    _need_root()
    tag = uuid.uuid4().hex[:6]
    ns, a, b = f"tt-test-{tag}", f"tt{tag}a", f"tt{tag}b"
    run("ip", "netns", "add", ns)
    kt: KernelThread | None = None
    try:
        # No IPv6 autoconfiguration chatter, so link counters move only when a test sends.
        run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        run("ip", "-n", ns, "link", "add", a, "type", "veth", "peer", "name", b)
        run("ip", "-n", ns, "link", "set", a, "up")
        run("ip", "-n", ns, "link", "set", b, "up")
        run("ip", "-n", ns, "link", "set", "lo", "up")
        kt = KernelThread(ns)
        yield VethNs(ns, a, b, kt)
    finally:
        if kt is not None:
            kt.close()
        subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)
        # The one-writer lock of a namespace is host-wide (in /run/tuitune), whatever
        # journal directory the test used: leave none behind.
        with contextlib.suppress(OSError):
            os.unlink(journal_dir.LOCK_DIR / f"{host_id(HostRoot(netns=ns))}.lock")


def wait_listening(ns: str, port: int = 5201) -> None:
    """Until a server listens on `port` in `ns` (a readiness wait, not a measurement)."""
    for _ in range(100):
        if run("ip", "netns", "exec", ns, "ss", "-Hltn", f"sport = :{port}").strip():
            return
        time.sleep(0.05)
    pytest.fail("the iperf3 server did not start")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End a process the test started: TERM, and KILL if it is still there after 5 s."""
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@dataclass
class IperfPair:
    client_ns: str
    server_ns: str
    dev: str  # the client's end
    peer: str  # the server's end
    server: subprocess.Popen[bytes]  # iperf3 -s on the server's address


@contextlib.contextmanager
def iperf_pair(name: str, short: str, client_addr: str, server_addr: str) -> Iterator[IperfPair]:
    """Two namespaces (NAME-TAG-c, NAME-TAG-s) joined by a veth (SHORTTAGc, SHORTTAGs), each
    end addressed and up, an iperf3 server listening at the server's end: all removed after,
    even when the test fails."""
    _need_root()
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 or iproute2 missing (apt install iperf3 iproute2)")
    tag = uuid.uuid4().hex[:6]
    cns, sns = f"{name}-{tag}-c", f"{name}-{tag}-s"
    dev, peer = f"{short}{tag}c", f"{short}{tag}s"
    server: subprocess.Popen[bytes] | None = None
    try:
        run("ip", "netns", "add", cns)
        run("ip", "netns", "add", sns)
        run("ip", "-n", cns, "link", "add", dev, "type", "veth", "peer", "name", peer, "netns", sns)
        run("ip", "-n", cns, "addr", "add", f"{client_addr}/24", "dev", dev)
        run("ip", "-n", sns, "addr", "add", f"{server_addr}/24", "dev", peer)
        for ns, link in ((cns, dev), (sns, peer), (cns, "lo"), (sns, "lo")):
            run("ip", "-n", ns, "link", "set", link, "up")
        server = subprocess.Popen(
            ["ip", "netns", "exec", sns, "iperf3", "-s", "-B", server_addr],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_listening(sns)
        yield IperfPair(cns, sns, dev, peer, server)
    finally:
        if server is not None:
            stop(server)
        for ns in (cns, sns):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)
