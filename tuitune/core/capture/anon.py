"""What a capture replaces unless --keep-identity: the host name, MAC addresses, IP addresses,
serial numbers and process arguments. Each is replaced the same way wherever it occurs (an
address in fib_trie and the same one in /proc/net/tcp, in hex), so that what the tree readers
match still matches: a process's socket on the interface's address stays on it.

IPv4 addresses keep their last 16 bits in 198.18.0.0/15 (RFC 2544's benchmark range); IPv6
ones keep their prefix's first 16 bits' kind (fe80 stays link-local) under 2001:db8 (RFC
3849) with the interface part hashed; loopback, the unspecified address, netmasks and
multicast are kept (they say nothing of the host)."""

from __future__ import annotations

import hashlib
import re
import socket
import struct

HOSTNAME = "captured-host"
_MAC = re.compile(rb"\b([0-9a-f]{2}(?::[0-9a-f]{2}){5})\b")
_DOTTED = re.compile(rb"\b(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\b")
_HEX8 = re.compile(rb"(?<![0-9A-Fa-f])([0-9A-F]{8})(?![0-9A-Fa-f])")
_HEX32 = re.compile(rb"(?<![0-9A-Fa-f])([0-9A-Fa-f]{32})(?![0-9A-Fa-f])")
_UUID = re.compile(rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_SERIAL_NAMES = ("serial", "serial_number", "product_serial", "board_serial", "vpd", "uuid")


class Anonymiser:
    def __init__(self) -> None:
        self.macs: dict[bytes, bytes] = {}
        self.replaced: set[str] = set()  # kinds of things replaced, for the manifest

    def mac(self, m: bytes) -> bytes:
        if m in (b"00:00:00:00:00:00", b"ff:ff:ff:ff:ff:ff"):
            return m
        if m not in self.macs:  # locally administered, numbered in order of meeting
            n = len(self.macs) + 1
            self.macs[m] = b"02:00:00:%02x:%02x:%02x" % (n >> 16 & 255, n >> 8 & 255, n & 255)
        self.replaced.add("MAC addresses")
        return self.macs[m]

    def ipv4(self, ip: int) -> int:
        first = ip >> 24
        inverse = ~ip & 0xFFFFFFFF
        if first in (0, 127) or first >= 224 or inverse & (inverse + 1) == 0:  # mask-shaped
            return ip
        self.replaced.add("IP addresses")
        return 0xC6120000 | (ip & 0xFFFF)

    def ipv6(self, raw: bytes) -> bytes:
        if (
            raw in (bytes(16), bytes(15) + b"\x01")
            or raw[0] == 0xFF
            or raw[:12] == bytes(10) + b"\xff\xff"
        ):
            if raw[:12] == bytes(10) + b"\xff\xff":  # ::ffff:a.b.c.d
                return raw[:12] + struct.pack("!I", self.ipv4(struct.unpack("!I", raw[12:])[0]))
            return raw
        self.replaced.add("IP addresses")
        tail = hashlib.sha256(raw[8:]).digest()[:8]
        head = raw[:8] if raw[:2] == b"\xfe\x80" else b"\x20\x01\x0d\xb8" + raw[4:8]
        return head + tail

    # -- files -------------------------------------------------------------------------------
    def file(self, rel: str, data: bytes) -> bytes:
        """`data` of tree file `rel` (proc/..., sys/...) with identity replaced."""
        name = rel.rsplit("/", 1)[-1]
        if rel == "proc/sys/kernel/hostname":
            self.replaced.add("host name")
            return HOSTNAME.encode() + b"\n"
        if name in _SERIAL_NAMES:
            self.replaced.add("serial numbers")
            return b""
        if re.fullmatch(r"proc/\d+/(task/\d+/)?cmdline", rel):
            self.replaced.add("process arguments")
            return data.split(b"\0", 1)[0] + b"\0" if data else data
        if rel == "proc/cmdline":
            return _UUID.sub(b"00000000-0000-0000-0000-000000000000", data)
        if rel.startswith("proc/net/"):
            return self.net_file(name, data)
        return _MAC.sub(lambda m: self.mac(m.group(1)), data)

    def net_file(self, name: str, data: bytes) -> bytes:
        if name in ("fib_trie", "fib_triestat"):
            return _DOTTED.sub(self._dotted, data)
        if name in ("route", "tcp", "udp", "raw", "udplite"):
            return _HEX8.sub(lambda m: self._hex4(m.group(1)), data)
        if name in ("if_inet6", "ipv6_route"):
            return _HEX32.sub(
                lambda m: self.ipv6(bytes.fromhex(m.group(1).decode())).hex().encode(), data
            )
        if name in ("tcp6", "udp6", "raw6", "udplite6"):
            return _HEX32.sub(lambda m: self._hex16_words(m.group(1)), data)
        if name == "arp":
            return _MAC.sub(lambda m: self.mac(m.group(1)), _DOTTED.sub(self._dotted, data))
        return data

    def _dotted(self, m: re.Match[bytes]) -> bytes:
        octets = [int(g) for g in m.groups()]
        if any(o > 255 for o in octets):
            return m.group(0)
        ip = self.ipv4(int.from_bytes(bytes(octets), "big"))
        return socket.inet_ntoa(ip.to_bytes(4, "big")).encode()

    def _hex4(self, text: bytes) -> bytes:
        # /proc/net/tcp and route: the address in host (little-endian) order, in hex.
        ip = int.from_bytes(bytes.fromhex(text.decode())[::-1], "big")
        return self.ipv4(ip).to_bytes(4, "big")[::-1].hex().upper().encode()

    def _hex16_words(self, text: bytes) -> bytes:
        raw = bytes.fromhex(text.decode())
        be = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
        out = self.ipv6(be)
        return b"".join(out[i : i + 4][::-1] for i in range(0, 16, 4)).hex().upper().encode()
