"""A capture holds the interface's TCP connections (issue 34): anonymised like the tree's
/proc/net files (the same address replaced the same way in both, no real address left),
read back typed, and a connection whose address or port is not one is refused as a state."""

from __future__ import annotations

import ipaddress
import json
from dataclasses import replace
from pathlib import Path

from tuitune.core.capture.anon import Anonymiser
from tuitune.core.capture.device import (
    DIR,
    CapturedDevice,
    DeviceCapture,
    LinkExtra,
    NotCaptured,
    capture_json,
    load_device,
)
from tuitune.core.capture.take import _Identity
from tuitune.core.host.conns import Connection
from tuitune.core.values import Unavailable

NONE = Unavailable("unsupported", "not here")
LOCAL4, REMOTE4 = "10.0.2.15", "203.0.113.77"
LOCAL6, REMOTE6 = "2a01:4f8:1:2::15", "2600:1f18:aa:bb::9"


def _conn(local: str, remote: str, lport: int = 5201, rport: int = 40000) -> Connection:
    return Connection(
        local, lport, remote, rport, "bbr", 10, 0.25, 3, 1_000_000, 900_000, 1448, True,
        True, (7, 7),
    )  # fmt: skip


def _device(conns: tuple[Connection, ...] | Unavailable | None) -> DeviceCapture:
    link = LinkExtra(None, None, None, None)
    dev = DeviceCapture(NONE, NONE, NONE, NONE, NONE, NONE, NONE, link, NONE, NONE)
    return replace(dev, connections=conns)


def _load(tmp_path: Path, dev: DeviceCapture) -> CapturedDevice | NotCaptured:
    (tmp_path / DIR).mkdir()
    (tmp_path / DIR / "eth0.json").write_bytes(capture_json(dev))
    return load_device(tmp_path, "eth0")


def test_no_real_address_survives_and_each_maps_the_same_everywhere(tmp_path: Path) -> None:
    anon = Anonymiser()
    ident = _Identity(anon)
    conns = ident.connections(
        (
            _conn(LOCAL4, REMOTE4),
            _conn(LOCAL4, REMOTE4, rport=40001),
            _conn(LOCAL6, REMOTE6),
            _conn(f"::ffff:{LOCAL4}", f"::ffff:{REMOTE4}"),
        )
    )
    assert isinstance(conns, tuple)
    held = capture_json(_device(conns))
    for real in (LOCAL4, REMOTE4, LOCAL6, REMOTE6, "4f8", "1f18"):
        assert real.encode() not in held
    assert conns[0].local == conns[1].local and conns[0].remote == conns[1].remote
    mapped = ipaddress.IPv6Address(conns[3].local).ipv4_mapped  # a v4-mapped one the same way
    assert mapped == ipaddress.IPv4Address(conns[0].local)
    # Under the documentation and benchmark ranges: none routable.
    assert not any(ipaddress.ip_address(a).is_global for c in conns for a in (c.local, c.remote))
    # The tree's /proc/net/tcp, anonymised by the same capture: the socket on the local
    # address is on the connection's (replaced) local address.
    tcp = anon.file("proc/net/tcp", b"   0: 0F02000A:1451 4D7100CB:9C40 01\n")
    local_hex = tcp.split()[1].split(b":")[0]
    assert str(ipaddress.IPv4Address(bytes.fromhex(local_hex.decode())[::-1])) == conns[0].local
    remote_hex = tcp.split()[2].split(b":")[0]
    assert str(ipaddress.IPv4Address(bytes.fromhex(remote_hex.decode())[::-1])) == conns[0].remote
    # The v6 one as /proc/net/tcp6 holds it (32-bit words, each little-endian).
    raw = ipaddress.IPv6Address(LOCAL6).packed
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4)).hex().upper().encode()
    out = bytes.fromhex(
        anon.file("proc/net/tcp6", b"0: " + words + b":1451 01\n").split()[1][:32].decode()
    )
    be = b"".join(out[i : i + 4][::-1] for i in range(0, 16, 4))
    assert str(ipaddress.IPv6Address(be)) == conns[2].local
    assert "IP addresses" in anon.replaced
    # Read back through the capture's reader: the same connections, typed.
    got = _load(tmp_path, _device(conns))
    assert isinstance(got, CapturedDevice) and got.dev.connections == conns


def test_keep_identity_keeps_them() -> None:
    conns = (_conn(LOCAL4, REMOTE4),)
    assert _Identity(None).connections(conns) == conns
    assert _Identity(Anonymiser()).connections(NONE) is NONE


def test_not_captured_reads_as_none(tmp_path: Path) -> None:
    got = _load(tmp_path, _device(None))
    assert isinstance(got, CapturedDevice) and got.dev.connections is None


def _hostile(tmp_path: Path, field: str, value: object) -> object:
    doc = json.loads(capture_json(_device((_conn(LOCAL4, REMOTE4),))))
    doc["connections"][0][field] = value
    (tmp_path / DIR).mkdir()
    (tmp_path / DIR / "eth0.json").write_text(json.dumps(doc))
    got = load_device(tmp_path, "eth0")
    return got.dev.connections if isinstance(got, CapturedDevice) else got.why


def test_an_address_or_port_that_is_not_one_is_a_state(tmp_path: Path) -> None:
    cases = [
        ("local", "[red]x\x1b[31m", "local: not an address"),
        ("remote", "fe80::1%[bold]eth0", "remote: not an address"),  # scope takes any text
        ("remote", "010.0.0.1", "remote: not an address"),
        ("rport", 70000, "remote: not a port"),
        ("wscale", [16, 1], "wscale: out of range"),
    ]
    for i, (field, value, why) in enumerate(cases):
        where = tmp_path / str(i)
        where.mkdir()
        got = _hostile(where, field, value)
        assert isinstance(got, Unavailable) and got.kind == "error", (field, got)
        assert why in got.reason and "eth0.json: connections[0]" in got.reason
        assert "\x1b" not in got.reason and "[red]" not in got.reason


def test_a_value_of_the_wrong_type_refuses_the_file(tmp_path: Path) -> None:
    got = _hostile(tmp_path, "cwnd", "many")
    assert isinstance(got, Unavailable) and "eth0.json: connections" in got.reason
