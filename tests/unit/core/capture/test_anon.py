"""The anonymiser replaces an address the same way in every file that holds it, so what the
tree readers match (a socket on the interface's address) still matches."""

from __future__ import annotations

from tuitune.core.capture.anon import HOSTNAME, Anonymiser


def test_ipv4_same_in_dotted_and_hex() -> None:
    a = Anonymiser()
    trie = a.file("proc/net/fib_trie", b"  |-- 10.0.2.15\n     /32 host LOCAL\n")
    # 10.0.2.15 in /proc/net/tcp's little-endian hex, port 22
    tcp = a.file("proc/net/tcp", b"   0: 0F02000A:0016 00000000:0000 0A\n")
    assert b"10.0.2.15" not in trie and b"198.18.2.15" in trie
    assert b"0F0212C6:0016" in tcp  # 198.18.2.15, the same address
    assert b"00000000:0000" in tcp  # the unspecified address kept


def test_masks_loopback_kept() -> None:
    a = Anonymiser()
    route = a.file("proc/net/route", b"eth0\t0002000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n")
    assert b"00FFFFFF" in route and b"000212C6" in route
    assert a.file("proc/net/fib_trie", b"127.0.0.1\n") == b"127.0.0.1\n"


def test_ipv6_same_in_if_inet6_and_tcp6() -> None:
    a = Anonymiser()
    inet6 = a.file(
        "proc/net/if_inet6", b"20010db8000000000000000000000001 02 40 00 80 eth0\n"
    ).split()[0]
    raw = bytes.fromhex(inet6.decode())
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4)).hex().upper().encode()
    src = bytes.fromhex("20010db8000000000000000000000001")
    tcp6_in = b"".join(src[i : i + 4][::-1] for i in range(0, 16, 4)).hex().upper()
    tcp6 = a.file("proc/net/tcp6", b"0: " + tcp6_in.encode() + b":0016 0A\n")
    assert words in tcp6
    assert a.file("proc/net/if_inet6", b"00000000000000000000000000000001 01\n").startswith(
        b"00000000000000000000000000000001"
    )


def test_macs_hostname_serials_args() -> None:
    a = Anonymiser()
    assert a.file("sys/class/net/eth0/address", b"52:54:00:12:34:56\n") == b"02:00:00:00:00:01\n"
    assert (
        a.file("sys/devices/x/net/eth1/address", b"52:54:00:12:34:56\n") == b"02:00:00:00:00:01\n"
    )
    assert a.file("sys/class/net/lo/address", b"00:00:00:00:00:00\n") == b"00:00:00:00:00:00\n"
    assert a.file("proc/sys/kernel/hostname", b"prod-db-7\n") == HOSTNAME.encode() + b"\n"
    assert a.file("sys/devices/pci/0000:01:00.0/serial", b"SN12345\n") == b""
    assert a.file("proc/42/cmdline", b"/usr/bin/app\0--password\0hunter2\0") == b"/usr/bin/app\0"
    assert a.replaced == {"MAC addresses", "host name", "serial numbers", "process arguments"}
