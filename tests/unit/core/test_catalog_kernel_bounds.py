"""Every catalog bound against the kernel's own (issue 31, item 6).

The catalog's check runs before a write; a bound looser than the kernel's lets a value through
that the kernel then refuses (wmem_max = 4000 passed a minimum of 2048 and failed at write
time). KERNEL holds, for every numeric catalog sysctl, the range the kernel's handler accepts,
read from the Linux 6.1 source (net/core/sysctl_net_core.c, net/ipv4/sysctl_net_ipv4.c,
include/net/sock.h); a catalog range must lie inside it. A new numeric entry fails here until
its kernel range is written down. Stricter catalog bounds are allowed where the kernel accepts
values that mean nothing (a negative backlog, tcp_timestamps 200).
"""

from __future__ import annotations

import pytest

from tuitune.core import catalog

INT_MAX = 2**31 - 1
UINT_MAX = 2**32 - 1
LONG_MAX = 2**63 - 1
# SKB_TRUESIZE(2048) with sizeof(struct sk_buff) 232 aligned to 256 on x86_64:
# TCP_SKB_MIN_TRUESIZE = 2304; SOCK_MIN_RCVBUF = that, SOCK_MIN_SNDBUF = twice that.
SOCK_MIN_RCVBUF = 2304
SOCK_MIN_SNDBUF = 4608

# key -> (lowest, highest) the kernel's proc handler accepts, and the handler it uses.
KERNEL: dict[str, tuple[int, int, str]] = {
    # net/core/sysctl_net_core.c
    "net.core.rmem_default": (SOCK_MIN_RCVBUF, INT_MAX, "dointvec_minmax, extra1 min_rcvbuf"),
    "net.core.rmem_max": (SOCK_MIN_RCVBUF, INT_MAX, "dointvec_minmax, extra1 min_rcvbuf"),
    "net.core.wmem_default": (SOCK_MIN_SNDBUF, INT_MAX, "dointvec_minmax, extra1 min_sndbuf"),
    "net.core.wmem_max": (SOCK_MIN_SNDBUF, INT_MAX, "dointvec_minmax, extra1 min_sndbuf"),
    "net.core.optmem_max": (-(2**31), INT_MAX, "dointvec"),
    "net.core.netdev_max_backlog": (-(2**31), INT_MAX, "dointvec"),
    "net.core.netdev_budget": (-(2**31), INT_MAX, "dointvec"),
    "net.core.netdev_budget_usecs": (0, INT_MAX, "dointvec_minmax, extra1 SYSCTL_ZERO"),
    "net.core.busy_read": (0, INT_MAX, "dointvec_minmax, extra1 SYSCTL_ZERO"),
    "net.core.busy_poll": (0, INT_MAX, "dointvec_minmax, extra1 SYSCTL_ZERO"),
    "net.core.somaxconn": (0, INT_MAX, "dointvec_minmax, extra1 SYSCTL_ZERO"),
    # rps_sock_flow_sysctl: proc_dointvec into a local, then EINVAL above 1 << 29; a negative
    # int is a huge unsigned size there, refused the same way, so 0 is the floor.
    "net.core.rps_sock_flow_entries": (0, 1 << 29, "rps_sock_flow_sysctl, size > 1<<29 EINVAL"),
    # net/ipv4/sysctl_net_ipv4.c
    "net.ipv4.tcp_timestamps": (0, 255, "dou8vec_minmax"),
    "net.ipv4.tcp_tw_reuse": (0, 2, "dou8vec_minmax, SYSCTL_ZERO..SYSCTL_TWO"),
    "net.ipv4.tcp_mtu_probing": (0, 255, "dou8vec_minmax"),
    "net.ipv4.tcp_rmem": (1, INT_MAX, "dointvec_minmax, extra1 SYSCTL_ONE"),
    "net.ipv4.tcp_wmem": (1, INT_MAX, "dointvec_minmax, extra1 SYSCTL_ONE"),
    "net.ipv4.tcp_mem": (0, 2**64 - 1, "doulongvec_minmax"),
    "net.ipv4.tcp_notsent_lowat": (0, UINT_MAX, "douintvec"),
}
NUMERIC = ("int", "int_triple")


def _numeric() -> list[catalog.SysctlEntry]:
    return [e for e in catalog.load_sysctls() if e.kind in NUMERIC]


def test_every_numeric_entry_has_its_kernel_range() -> None:
    assert {e.key for e in _numeric()} == set(KERNEL)


@pytest.mark.parametrize("entry", _numeric(), ids=lambda e: e.key)
def test_catalog_range_inside_the_kernels(entry: catalog.SysctlEntry) -> None:
    low, high, handler = KERNEL[entry.key]
    assert entry.minimum is not None and entry.maximum is not None, entry.key
    assert low <= entry.minimum <= entry.maximum <= high, (entry.key, handler)


@pytest.mark.parametrize(
    ("key", "floor"),
    [
        ("net.core.rmem_default", SOCK_MIN_RCVBUF),
        ("net.core.rmem_max", SOCK_MIN_RCVBUF),
        ("net.core.wmem_default", SOCK_MIN_SNDBUF),
        ("net.core.wmem_max", SOCK_MIN_SNDBUF),
    ],
)
def test_socket_buffer_floor_refused_before_write(key: str, floor: int) -> None:
    e = catalog.entry(key)
    assert catalog.parse_value(e, str(floor)) == floor
    name = key.split(".", 2)[2]
    with pytest.raises(ValueError, match=rf"{name} must be between {floor} and"):
        catalog.parse_value(e, str(floor - 1))
    with pytest.raises(ValueError, match="got 4000" if floor > 4000 else "got 2303"):
        catalog.parse_value(e, "4000" if floor > 4000 else "2303")
