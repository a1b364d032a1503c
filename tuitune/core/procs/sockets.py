"""The NIC's sockets: the addresses of an interface, the socket tables' entries bound to them
(/proc/net/tcp, tcp6, udp, udp6, read through `HostRoot.read_net`, so a namespace's own on a
--netns host), and which processes hold those sockets, found by a scan of /proc/PID/fd that
is bounded (FD_BUDGET): another user decides how many descriptors their processes hold.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
from collections.abc import Iterable

from tuitune.core.host.root import HostRoot, open_in_tree

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_TABLES = ("tcp", "tcp6", "udp", "udp6")
_TCP_LISTEN = "0A"


# Descriptors read (readlink) in one scan of every process. Another user can hold ~20k per
# process in as many processes as they like: reading them all made `show` 12-19 times slower
# (25 x 20k on a loaded 2-CPU VM, where one readlink cost ~16 us). Processes are searched
# fewest descriptors first, so servers of ordinary size are found and a hog is what is left
# unsearched, and said so; 16k readlinks cost a quarter of a second there.
FD_BUDGET = 16384


def _open_fd_dir(root: HostRoot, pid: int) -> int | None:
    path = root.proc / f"{pid}/fd"
    try:
        return open_in_tree(path, os.O_RDONLY | os.O_DIRECTORY, root.jail, str(path))
    except OSError:
        return None


def _fd_count(dfd: int) -> int | None:
    """How many descriptors the process holds, from the size of its /proc/PID/fd (Linux 6.2
    and later: one stat, no listing); None where the kernel says 0 (older kernels, a tree)."""
    with contextlib.suppress(OSError):
        size = os.fstat(dfd).st_size
        if size > 0:
            return size
    return None


def _socket_inodes(dfd: int, budget: int) -> tuple[list[int], int, bool]:
    """The socket inodes among the first `budget` descriptors of an open /proc/PID/fd, how
    many were read, and whether all of them were."""
    out: list[int] = []
    read = 0
    with os.scandir(dfd) as entries:
        for entry in entries:
            if read >= budget:
                return out, read, False
            read += 1
            with contextlib.suppress(OSError):
                target = os.readlink(entry.name, dir_fd=dfd)  # the link's text; not followed
                if target.startswith("socket:[") and target.endswith("]"):
                    inode = target[8:-1]
                    if inode.isascii() and inode.isdigit():
                        out.append(int(inode))
    return out, read, True


def socket_inodes_of(root: HostRoot, pid: int, budget: int = FD_BUDGET) -> list[int]:
    """The inodes of the sockets `pid` holds open (its /proc/PID/fd links "socket:[N]"), of
    its first `budget` descriptors."""
    dfd = _open_fd_dir(root, pid)
    if dfd is None:
        return []
    try:
        return _socket_inodes(dfd, budget)[0]
    except OSError:
        return []
    finally:
        os.close(dfd)


def scan_sockets(
    root: HostRoot, pids_: Iterable[int], budget: int | None = None
) -> tuple[dict[int, list[int]], tuple[int, int]]:
    """Each process's socket inodes, reading at most `budget` descriptors in all: processes
    with fewest descriptors first (counted without reading them where the kernel can), so a
    few processes holding huge numbers cannot make the scan slow. Also (processes, their
    descriptors) left unsearched past the budget."""
    counted: list[tuple[int, int, int | None]] = []  # (order, pid, count)
    for pid in pids_:
        dfd = _open_fd_dir(root, pid)
        if dfd is None:
            continue
        try:
            n = _fd_count(dfd)
        finally:
            os.close(dfd)
        counted.append((n if n is not None else 0, pid, n))
    counted.sort()
    found: dict[int, list[int]] = {}
    left = FD_BUDGET if budget is None else budget
    skipped, skipped_fds = 0, 0
    for _, pid, n in counted:
        if left <= 0 or (n is not None and n > left):
            skipped += 1
            skipped_fds += n or 0
            continue
        dfd = _open_fd_dir(root, pid)
        if dfd is None:
            continue
        try:
            inodes, read, whole = _socket_inodes(dfd, left)
        except OSError:
            continue
        finally:
            os.close(dfd)
        left -= read
        if not whole:
            skipped += 1
            skipped_fds += (n or read) - read
        found[pid] = inodes
    return found, (skipped, skipped_fds)


# ---- addresses and socket tables ------------------------------------------------------------
def _hex_v4(word: str) -> ipaddress.IPv4Address:
    # The kernel prints the address's 32 bits as a host-order integer (little-endian here).
    return ipaddress.IPv4Address(bytes.fromhex(word)[::-1])


def _hex_v6(text: str) -> IPAddress:
    raw = b"".join(bytes.fromhex(text[i : i + 8])[::-1] for i in range(0, 32, 8))
    addr = ipaddress.IPv6Address(raw)
    return addr.ipv4_mapped or addr  # a dual-stack socket's IPv4 peer


def parse_socket_table(text: str, v6: bool) -> list[tuple[IPAddress, str, int]]:
    """(local address, state, inode) of each socket in /proc/net/tcp{,6} or udp{,6}."""
    out: list[tuple[IPAddress, str, int]] = []
    for line in text.splitlines()[1:]:
        cols = line.split()
        if len(cols) < 10:
            continue
        addr, _, _port = cols[1].partition(":")
        try:
            local = _hex_v6(addr) if v6 else _hex_v4(addr)
            inode = int(cols[9])
        except ValueError:
            continue
        if inode:
            out.append((local, cols[3], inode))
    return out


def _v4_addresses(root: HostRoot, ifname: str) -> set[IPAddress]:
    """A tree's IPv4 addresses of `ifname`: the LOCAL host entries of /proc/net/fib_trie that
    lie in one of the interface's routes (/proc/net/route)."""
    try:
        trie, routes = root.read_net("fib_trie"), root.read_net("route")
    except OSError:
        return set()
    local: set[ipaddress.IPv4Address] = set()
    last: str | None = None
    for line in trie.splitlines():
        word = line.strip()
        if word.startswith("|--"):
            last = word[3:].strip()
        elif last and word.startswith("/32 host LOCAL"):
            with contextlib.suppress(ValueError):
                local.add(ipaddress.IPv4Address(last))
    nets: list[ipaddress.IPv4Network] = []
    for line in routes.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 8 and cols[0] == ifname:
            with contextlib.suppress(ValueError):
                dest, mask = _hex_v4(cols[1]), _hex_v4(cols[7])
                if int(mask):
                    nets.append(ipaddress.IPv4Network(f"{dest}/{mask}", strict=False))
    return {a for a in local if any(a in n for n in nets)}


def _v6_addresses(root: HostRoot, ifname: str) -> set[IPAddress]:
    try:
        text = root.read_net("if_inet6")
    except OSError:
        return set()
    out: set[IPAddress] = set()
    for line in text.splitlines():
        cols = line.split()
        if len(cols) == 6 and cols[5] == ifname and len(cols[0]) == 32:
            with contextlib.suppress(ValueError):
                out.add(ipaddress.IPv6Address(bytes.fromhex(cols[0])))
    return out


def interface_addresses(root: HostRoot, ifname: str) -> frozenset[IPAddress]:
    """The IPv4 and IPv6 addresses of `ifname`, as seen from the calling thread's namespace
    (run on the host's kernel thread)."""
    if root.live:
        with contextlib.suppress(Exception):  # psutil may fail oddly on a strange host
            import psutil

            found: set[IPAddress] = set()
            for snic in psutil.net_if_addrs().get(ifname, []):
                with contextlib.suppress(ValueError):
                    found.add(ipaddress.ip_address(snic.address.partition("%")[0]))
            return frozenset(found)
    return frozenset(_v4_addresses(root, ifname) | _v6_addresses(root, ifname))


def nic_socket_inodes(
    root: HostRoot, addresses: Iterable[IPAddress]
) -> tuple[frozenset[int], frozenset[int]]:
    """(inodes of sockets bound to one of `addresses`, inodes of sockets bound to any address:
    a TCP listener or a UDP socket on 0.0.0.0 or ::)."""
    wanted = set(addresses)
    on: set[int] = set()
    anywhere: set[int] = set()
    for table in _TABLES:
        try:
            text = root.read_net(table)
        except OSError:
            continue
        for local, state, inode in parse_socket_table(text, table.endswith("6")):
            if local in wanted:
                on.add(inode)
            elif local.is_unspecified and (table.startswith("udp") or state == _TCP_LISTEN):
                anywhere.add(inode)
    return frozenset(on), frozenset(anywhere)
