"""Pacing shown by a benchmark, in the guest (its Debian 6.1 kernel has sch_fq and sch_mq; this
machine's has neither): mq with an fq child per tx queue and a maxrate, applied through
`tuitune apply --netns` on a two-queue veth between two namespaces made inside the guest,
holds a single iperf3 stream at the rate; `tuitune restore` gives back the exact tree.

iperf3 is the host root's (/usr/bin/iperf3, shared with the guest); it is C, so TCG slows it
far less than Python. Three runs of 2 s (the first second of each left out: the handshake and
the socket buffers' first fill) with no pacing first: the path must carry more than twice the
rate, or a cap would prove nothing. Then three paced runs: each held below maxrate x 1.1, and
their median above half of it (a path that carries nothing would pass a ceiling alone). The
rate is low because what a guest under TCG carries falls with the host's load: at 40 Mbit/s
one run of three came out at 19 Mbit/s beside two other guests and three test lanes (cc11).
Pacing is the kernel documentation's (tc-fq(8): maxrate caps each flow's pacing rate), not
the seeds'."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import in_vm_guest

from .conftest import sh, tuitune, write_profile

pytestmark = pytest.mark.vm

IPERF3 = "/usr/bin/iperf3"
MAXRATE = 8_000_000  # bits/s: far below what a veth carries under TCG on a loaded host
RUNS = 3


@dataclass(frozen=True)
class Pair:
    sender_ns: str
    receiver_ns: str
    dev: str  # the sender's end, where the qdisc paces
    receiver_ip: str


@pytest.fixture
def pair() -> Iterator[Pair]:
    """Two namespaces joined by a veth with two tx/rx queues each end (mq needs more than
    one), deleted even when the test fails."""
    if not in_vm_guest():
        pytest.fail("VM tests run only inside the bench's guest")
    if not Path(IPERF3).exists():
        pytest.fail(f"{IPERF3} is missing: the guest runs the host root's")
    tag = uuid.uuid4().hex[:6]
    a_ns, b_ns, a, b = f"tt-pa-{tag}", f"tt-pb-{tag}", f"tp{tag}a", f"tp{tag}b"
    try:
        for ns in (a_ns, b_ns):
            sh("ip", "netns", "add", ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "-n", a_ns, "link", "add", a, "numtxqueues", "2", "numrxqueues", "2",
           "type", "veth", "peer", "name", b, "numtxqueues", "2", "numrxqueues", "2",
           "netns", b_ns)  # fmt: skip
        sh("ip", "-n", a_ns, "addr", "add", "10.67.0.1/24", "dev", a)
        sh("ip", "-n", b_ns, "addr", "add", "10.67.0.2/24", "dev", b)
        sh("ip", "-n", a_ns, "link", "set", a, "up")
        sh("ip", "-n", b_ns, "link", "set", b, "up")
        yield Pair(a_ns, b_ns, a, "10.67.0.2")
    finally:
        for ns in (a_ns, b_ns):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def qdiscs(p: Pair) -> str:
    return sh("ip", "netns", "exec", p.sender_ns, "tc", "qdisc", "show", "dev", p.dev)


def measured(p: Pair) -> list[float]:
    """bits/s received in each of RUNS single-stream runs from the sender's namespace."""
    server = subprocess.Popen(
        ["ip", "netns", "exec", p.receiver_ns, IPERF3, "-s", "-B", p.receiver_ip,
         "--forceflush"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        # Its own line says it listens: read, not slept on.
        for line in server.stdout:
            if "Server listening" in line:
                break
        else:
            pytest.fail(f"iperf3 -s ended before listening (exit {server.wait()})")
        rates = []
        for _ in range(RUNS):
            out = sh("ip", "netns", "exec", p.sender_ns, IPERF3, "-c", p.receiver_ip,
                     "-P", "1", "-t", "2", "-O", "1", "-J")  # fmt: skip
            rates.append(float(json.loads(out)["end"]["sum_received"]["bits_per_second"]))
        return rates
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_mq_fq_maxrate_holds_one_stream_at_the_rate_and_is_restored(
    pair: Pair, tmp_path: Path
) -> None:
    before = qdiscs(pair)
    assert "fq" not in before, before
    free = measured(pair)
    assert max(free) > 2 * MAXRATE, f"unpaced, the path carried only {mbit(free)}"
    prof = write_profile(
        tmp_path / "pace.toml",
        f'[interface]\nname = "{pair.dev}"\nqdisc = "mq fq maxrate {MAXRATE // 1_000_000}mbit"\n',
    )
    tuitune("apply", "--netns", pair.sender_ns, str(prof))
    try:
        shown = qdiscs(pair)
        assert "qdisc mq 1: root" in shown, shown
        assert shown.count("qdisc fq ") == 2 and shown.count("maxrate 8Mbit") == 2, shown
        rates = measured(pair)
    finally:
        tuitune("restore", "--netns", pair.sender_ns)
    said = f"paced {mbit(rates)}, unpaced {mbit(free)}"
    assert all(r < MAXRATE * 1.1 for r in rates), f"not held at 8 Mbit/s: {said}"
    assert sorted(rates)[len(rates) // 2] > MAXRATE * 0.5, f"far below the rate: {said}"
    assert qdiscs(pair) == before


def mbit(rates: list[float]) -> str:
    return ", ".join(f"{r / 1e6:.1f}" for r in rates) + " Mbit/s"
