"""`show --json --root CAPTURE` says what `show --json` said live, every state field (issue 34):
a capture of a veth in its own namespace, with its identity kept, read back through --root.

What a tree cannot say is named and left out of the comparison: rates and the counters that
move between the two reads (and a connection's cwnd, RTT, retransmits and rates), and the
per-queue rates. The qdiscs are compared (the capture holds netlink's), and a TCP connection
made in the namespace (the capture holds inet_diag's)."""

from __future__ import annotations

import json
import socket
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.kernel.conftest import VethNs
from tests.support.fidelity import comparable
from tuitune.cli import main

pytestmark = pytest.mark.kernel


def _show(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["show", "--json", "--interval", "0.1", *args]) == 0
    return comparable(json.loads(capsys.readouterr().out), connections=True)


def _connection(veth_ns: VethNs, addr: str) -> list[socket.socket]:
    """A TCP connection from `addr` to itself inside the namespace (both ends on the veth's
    address, so inet_diag lists two), its sockets to close after the test."""
    listener: socket.socket = veth_ns.kt.call(lambda: socket.create_server((addr, 0)))
    port = listener.getsockname()[1]
    client: socket.socket = veth_ns.kt.call(lambda: socket.create_connection((addr, port)))
    return [listener, client, listener.accept()[0]]


def test_show_root_capture_equals_show_live(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    veth_ns.ip("addr", "add", "10.78.0.1/24", "dev", veth_ns.a)
    veth_ns.ip("link", "set", veth_ns.a, "mtu", "1400")
    socks = _connection(veth_ns, "10.78.0.1")
    try:
        _compare(veth_ns, tmp_path, capsys)
    finally:
        for s in socks:
            s.close()


def _compare(veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cap.tar.gz"
    argv = ["capture", "--netns", veth_ns.ns, veth_ns.a, "-o", str(out), "--seconds", "0"]
    assert main([*argv, "--keep-identity"]) == 0
    assert out.stat().st_mode & 0o777 == 0o600
    before = out.read_bytes()
    assert main(argv) == 2  # the file exists: not overwritten, one line
    assert "exists: not overwritten" in capsys.readouterr().err
    assert out.read_bytes() == before
    live = _show(capsys, "--netns", veth_ns.ns, veth_ns.a)
    captured = _show(capsys, "--root", str(out), veth_ns.a)
    assert captured["interface"]["link"]["mtu"] == 1400  # read, not defaulted
    assert captured["interface"]["driver"]["driver"] == "veth"  # the ethtool JSON
    assert captured == live
    assert len(live["connections"]) == 2  # the connection's two ends, compared above
    # Anonymised (the default): the veth's MAC is not in the capture.
    anon = tmp_path / "anon.tar.gz"
    assert main([*argv[:4], "-o", str(anon), "--seconds", "0"]) == 0
    mac = live["interface"]["link"]["address"].encode()
    with tarfile.open(anon) as tar:
        held = b"".join(
            f.read() for m in tar if m.isreg() and (f := tar.extractfile(m)) is not None
        )
    assert mac not in held and b"02:00:00:00:00:01" in held
    # The connection's address replaced as /proc/net/tcp's is (anon.py: 198.18.0.0/15).
    assert b"10.78.0.1" not in held and b"01004E0A" not in held
    capsys.readouterr()  # capture's own lines
    anon_show = _show(capsys, "--root", str(anon), veth_ns.a)
    assert {c["local"] for c in anon_show["connections"]} == {"198.18.0.1"}
