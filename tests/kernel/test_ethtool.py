"""ethtool reads and writes against real kernel devices inside a throwaway namespace.

Every Ethtool call runs on `veth_ns.kt` (inside the namespace). Results are cross-checked with
the `ethtool` CLI run in the same namespace.
"""

from __future__ import annotations

import errno
import gc
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tuitune.core.host.ethtool import (
    Channels,
    Coalesce,
    DriverInfo,
    Ethtool,
    EthtoolWriteError,
    Feature,
    requested_snapshot,
)
from tuitune.core.host.ethtool_netlink import EthtoolNetlink, NetlinkError
from tuitune.core.session.kinds.fec import FecGet, FecSet
from tuitune.core.values import Unavailable

from .conftest import VethNs

pytestmark = pytest.mark.kernel

# `ethtool -k` prints a feature that is the only member of a legacy group under the group's
# long name; groups with several members get a summary line, then the members indented.
LONG_NAMES = {
    "rx-checksumming": "rx-checksum",
    "generic-segmentation-offload": "tx-generic-segmentation",
    "generic-receive-offload": "rx-gro",
    "large-receive-offload": "rx-lro",
    "rx-vlan-offload": "rx-vlan-hw-parse",
    "tx-vlan-offload": "tx-vlan-hw-insert",
    "ntuple-filters": "rx-ntuple-filter",
    "receive-hashing": "rx-hashing",
    "udp-fragmentation-offload": "tx-udp-fragmentation",
}
GROUP_SUMMARIES = {"tx-checksumming", "scatter-gather", "tcp-segmentation-offload"}
FEATURE_LINE = re.compile(r"^\t?([^:\s]+): (on|off)(?: \[(.+)\])?$")
TSO = (
    "tx-tcp-segmentation",
    "tx-tcp-ecn-segmentation",
    "tx-tcp-mangleid-segmentation",
    "tx-tcp6-segmentation",
)


@pytest.fixture
def eth(veth_ns: VethNs) -> Iterator[Ethtool]:
    e = Ethtool(veth_ns.a)
    yield e
    veth_ns.kt.call(e.close)


@pytest.fixture
def tap(veth_ns: VethNs) -> Iterator[str]:
    """A tap device in the test namespace: the one virtual driver here with coalescing."""
    name = veth_ns.a[:-1] + "t"
    veth_ns.ip("tuntap", "add", "mode", "tap", "name", name)
    yield name
    subprocess.run(["ip", "-n", veth_ns.ns, "link", "del", name], check=False, capture_output=True)


def ethtool_k(ns: VethNs, dev: str) -> dict[str, tuple[bool, str | None]]:
    """kernel feature name -> (on, bracket note) as `ethtool -k` prints it."""
    out: dict[str, tuple[bool, str | None]] = {}
    for line in ns.nsexec("ethtool", "-k", dev).splitlines()[1:]:
        m = FEATURE_LINE.match(line)
        assert m, f"unexpected ethtool -k line {line!r}"
        name, state, note = m.groups()
        if name in GROUP_SUMMARIES and not line.startswith("\t"):
            continue
        out[LONG_NAMES.get(name, name)] = (state == "on", note)
    return out


def assert_features_match_cli(ns: VethNs, dev: str, feats: tuple[Feature, ...]) -> None:
    cli = ethtool_k(ns, dev)
    assert set(cli) == {f.name for f in feats}
    for f in feats:
        on, note = cli[f.name]
        assert on == f.active, f.name
        if f.fixed:
            expected = "fixed"
        elif f.requested != f.active:
            expected = f"requested {'on' if f.requested else 'off'}"
        else:
            expected = None
        assert note == expected, f.name


def ethtool_l(ns: VethNs, dev: str) -> tuple[dict[str, int], dict[str, int]]:
    """(maximums, current) from `ethtool -l`, n/a as 0."""
    maxima: dict[str, int] = {}
    current: dict[str, int] = {}
    target = maxima
    for line in ns.nsexec("ethtool", "-l", dev).splitlines():
        if line.startswith("Current hardware settings"):
            target = current
        m = re.match(r"^(RX|TX|Other|Combined):\s+(\S+)$", line)
        if m:
            target[m.group(1).lower()] = 0 if m.group(2) == "n/a" else int(m.group(2))
    return maxima, current


def assert_channels_match_cli(ns: VethNs, dev: str, ch: Channels) -> None:
    maxima, current = ethtool_l(ns, dev)
    assert maxima == {
        "rx": ch.rx_max,
        "tx": ch.tx_max,
        "other": ch.other_max,
        "combined": ch.combined_max,
    }
    assert current == {"rx": ch.rx, "tx": ch.tx, "other": ch.other, "combined": ch.combined}


def possible_cpus() -> int:
    n = 0
    with open("/sys/devices/system/cpu/possible") as f:
        text = f.read()
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        n += int(hi or lo) - int(lo) + 1
    return n


def cli_fails(ns: VethNs, *args: str) -> str:
    p = subprocess.run(["ip", "netns", "exec", ns.ns, *args], capture_output=True, text=True)
    assert p.returncode != 0, f"{args} unexpectedly worked"
    return p.stderr


# ---- driver info -----------------------------------------------------------------------


def test_driver_info_of_veth_matches_ethtool_i(veth_ns: VethNs, eth: Ethtool) -> None:
    info = veth_ns.kt.call(eth.driver_info)
    assert isinstance(info, DriverInfo)
    assert info.driver == "veth"
    cli: dict[str, str] = {}
    for line in veth_ns.nsexec("ethtool", "-i", veth_ns.a).splitlines():
        key, _, value = line.partition(":")
        cli[key] = value.strip()
    assert cli["driver"] == info.driver
    assert cli["version"] == info.version
    assert cli["firmware-version"] == info.firmware
    assert cli["bus-info"] == info.bus_info
    assert cli["supports-statistics"] == ("yes" if info.n_stats else "no")
    assert cli["supports-priv-flags"] == ("yes" if info.n_priv_flags else "no")


def test_driver_info_of_lo_is_unsupported(veth_ns: VethNs) -> None:
    lo = Ethtool("lo")
    info = veth_ns.kt.call(lo.driver_info)
    assert info == Unavailable("unsupported", "driver info: not supported by lo")
    assert "Operation not supported" in cli_fails(veth_ns, "ethtool", "-i", "lo")


def test_missing_interface_reads_are_missing_not_errors(veth_ns: VethNs) -> None:
    e = Ethtool("ttnosuch0")
    for read in (e.driver_info, e.features, e.rings, e.coalesce, e.channels, e.pause, e.stats):
        got = veth_ns.kt.call(read)
        assert isinstance(got, Unavailable)
        assert got.kind == "missing", got


# ---- features --------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["veth", "lo"])
def test_features_match_ethtool_k(veth_ns: VethNs, which: str) -> None:
    dev = veth_ns.a if which == "veth" else "lo"
    feats = veth_ns.kt.call(Ethtool(dev).features)
    assert isinstance(feats, tuple)
    assert len(feats) > 40
    assert_features_match_cli(veth_ns, dev, feats)


def test_lo_features_are_fixed_and_cannot_be_turned_off(veth_ns: VethNs) -> None:
    lo = Ethtool("lo")
    before = veth_ns.kt.call(lo.features)
    assert isinstance(before, tuple)
    by = {f.name: f for f in before}
    assert by["loopback"].active and by["loopback"].fixed
    result = veth_ns.kt.call(lo.set_features, {"tx": False})
    # every tx-checksum-* of lo is fixed: nothing written, the ones that are on are refused
    assert set(result.refused) == {
        f.name for f in before if f.name.startswith("tx-checksum-") and f.active
    }
    assert "tx-checksum-ip-generic" in result.refused
    assert result.changed == ()
    assert veth_ns.kt.call(lo.features) == before


def test_features_off_and_exact_restore(veth_ns: VethNs, eth: Ethtool) -> None:
    call = veth_ns.kt.call
    original = call(eth.features)
    assert isinstance(original, tuple)
    original_cli = veth_ns.nsexec("ethtool", "-k", veth_ns.a)
    snapshot = requested_snapshot(original)

    result = call(eth.set_features, {"tso": False, "gso": False, "sg": False, "tx": False})
    assert result.refused == ()
    now = {f.name: f for f in result.features}
    for name in ("tx-scatter-gather", "tx-generic-segmentation", "tx-checksum-ip-generic", *TSO):
        assert not now[name].active and not now[name].requested, name
    assert ("tx-scatter-gather", False) in result.changed
    assert call(eth.features) == result.features
    assert_features_match_cli(veth_ns, veth_ns.a, result.features)

    restored = call(eth.set_features, snapshot)
    assert restored.refused == ()
    assert restored.features == original  # every field of every feature
    assert veth_ns.nsexec("ethtool", "-k", veth_ns.a) == original_cli


def test_tx_off_drops_dependent_tso_and_restore_of_every_requested_bit(
    veth_ns: VethNs, eth: Ethtool
) -> None:
    call = veth_ns.kt.call
    original = call(eth.features)
    assert isinstance(original, tuple)
    result = call(eth.set_features, {"tx": False})
    now = {f.name: f for f in result.features}
    # The kernel turns TSO off by itself (no checksum offload) but keeps the wish recorded.
    for name in TSO:
        assert not now[name].active and now[name].requested, name
        assert (name, False) in result.changed
    assert result.refused == ()  # TSO was not asked for
    cli = ethtool_k(veth_ns, veth_ns.a)
    assert cli["tx-tcp-segmentation"] == (False, "requested on")
    assert_features_match_cli(veth_ns, veth_ns.a, result.features)

    # Restore with the recorded requested bit of *every* feature, fixed ones included.
    restored = call(eth.set_features, {f.name: f.requested for f in original})
    assert restored.refused == ()
    assert restored.features == original


def test_a_wish_the_kernel_cannot_honour_is_reported_refused(veth_ns: VethNs, eth: Ethtool) -> None:
    call = veth_ns.kt.call
    original = call(eth.features)
    assert isinstance(original, tuple)
    call(eth.set_features, {"tx": False})
    result = call(eth.set_features, {"tx-tcp-segmentation": True})
    assert result.refused == ("tx-tcp-segmentation",)
    assert result.kernel_wish
    assert ethtool_k(veth_ns, veth_ns.a)["tx-tcp-segmentation"] == (False, "requested on")
    # Asking a fixed feature to change: refused, nothing written.
    fixed = call(eth.set_features, {"tx-checksum-ipv4": True})
    assert fixed.refused == ("tx-checksum-ipv4",)
    assert fixed.changed == ()
    call(eth.set_features, requested_snapshot(original))
    assert call(eth.features) == original


@pytest.mark.parametrize(
    ("wanted", "message"),
    [
        ({"rx-gro": True, "no-such-feature": False}, "unknown feature 'no-such-feature'"),
        ({"rx-gro": True, "tso": "off"}, "tso must be true or false"),
        ({"rx-gro": 1}, "rx-gro must be true or false"),
    ],
)
def test_invalid_feature_requests_change_nothing(
    veth_ns: VethNs, eth: Ethtool, wanted: dict[str, object], message: str
) -> None:
    before = veth_ns.kt.call(eth.features)
    assert isinstance(before, tuple)
    assert not {f.name: f for f in before}["rx-gro"].active  # veth default: GRO off
    cli_before = veth_ns.nsexec("ethtool", "-k", veth_ns.a)
    with pytest.raises(EthtoolWriteError) as err:
        veth_ns.kt.call(eth.set_features, wanted)
    assert message in str(err.value)
    assert err.value.what == "features"
    assert err.value.state.kind == "error"
    assert veth_ns.kt.call(eth.features) == before
    assert veth_ns.nsexec("ethtool", "-k", veth_ns.a) == cli_before


# ---- channels --------------------------------------------------------------------------


def test_channels_read_and_set_on_veth(veth_ns: VethNs, eth: Ethtool) -> None:
    call = veth_ns.kt.call
    ch = call(eth.channels)
    assert isinstance(ch, Channels)
    assert ch.rx_max == ch.tx_max == possible_cpus()
    assert ch.combined_max == 0
    assert_channels_match_cli(veth_ns, veth_ns.a, ch)
    if ch.rx_max < 2:
        pytest.skip("needs 2 CPUs to change the veth queue count")

    call(eth.set_channels, 2, 2)
    ch2 = call(eth.channels)
    assert isinstance(ch2, Channels)
    assert (ch2.rx, ch2.tx) == (2, 2)
    assert_channels_match_cli(veth_ns, veth_ns.a, ch2)
    queues = veth_ns.nsexec("ls", f"/sys/class/net/{veth_ns.a}/queues").split()
    assert sorted(queues) == ["rx-0", "rx-1", "tx-0", "tx-1"]

    call(lambda: eth.set_channels(rx=1))  # tx stays 2: read-modify-write
    ch3 = call(eth.channels)
    assert isinstance(ch3, Channels)
    assert (ch3.rx, ch3.tx) == (1, 2)
    assert_channels_match_cli(veth_ns, veth_ns.a, ch3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rx": 10_000}, "rx 10000 is above the maximum"),
        ({"tx": -1}, "tx cannot be negative"),
        ({"rx": 0}, "at least one rx and one tx"),
        ({"combined": 1}, "combined 1 is above the maximum 0"),
        ({"rx": 1.5}, "rx must be a whole number"),
        ({"tx": True}, "tx must be a whole number"),
    ],
)
def test_invalid_channels_change_nothing(
    veth_ns: VethNs, eth: Ethtool, kwargs: dict[str, object], message: str
) -> None:
    before = veth_ns.kt.call(eth.channels)
    cli_before = ethtool_l(veth_ns, veth_ns.a)
    with pytest.raises(EthtoolWriteError) as err:
        veth_ns.kt.call(lambda: eth.set_channels(**kwargs))  # type: ignore[arg-type]
    assert message in str(err.value)
    assert str(err.value).startswith("channels: ")
    assert veth_ns.kt.call(eth.channels) == before
    assert ethtool_l(veth_ns, veth_ns.a) == cli_before


# ---- unsupported on veth ---------------------------------------------------------------


@pytest.mark.parametrize(("what", "flag"), [("rings", "-g"), ("coalesce", "-c"), ("pause", "-a")])
def test_veth_has_no_rings_coalesce_pause(
    veth_ns: VethNs, eth: Ethtool, what: str, flag: str
) -> None:
    got = veth_ns.kt.call(getattr(eth, what))
    assert got == Unavailable("unsupported", f"{what}: not supported by veth")
    assert "not supported" in cli_fails(veth_ns, "ethtool", flag, veth_ns.a)


@pytest.mark.parametrize(
    "write",
    [
        lambda e: e.set_rings(rx=256),
        lambda e: e.set_pause(rx=True),
        lambda e: e.set_coalesce({"rx-usecs": 10}),
    ],
    ids=["rings", "pause", "coalesce"],
)
def test_writes_to_unsupported_settings_raise_unsupported(
    veth_ns: VethNs, eth: Ethtool, write: Callable[[Ethtool], None]
) -> None:
    with pytest.raises(EthtoolWriteError) as err:
        veth_ns.kt.call(write, eth)
    assert err.value.state.kind == "unsupported"
    assert str(err.value).endswith("not supported by veth")


def test_invalid_pause_and_rings_values_are_refused_before_the_kernel(
    veth_ns: VethNs, eth: Ethtool
) -> None:
    # Validation comes first: a bad value is reported as such even where the op is missing.
    with pytest.raises(EthtoolWriteError, match="pause: rx must be true or false"):
        veth_ns.kt.call(lambda: eth.set_pause(rx=1))  # type: ignore[arg-type]
    with pytest.raises(EthtoolWriteError, match="unknown parameter 'rx-usec'"):
        veth_ns.kt.call(eth.set_coalesce, {"rx-usec": 10})


# ---- statistics ------------------------------------------------------------------------


def ethtool_s(ns: VethNs, dev: str) -> list[tuple[str, int]]:
    lines = ns.nsexec("ethtool", "-S", dev).splitlines()
    assert lines[0] == "NIC statistics:"
    return [(k.strip(), int(v)) for k, v in (line.rsplit(": ", 1) for line in lines[1:])]


def test_stats_names_and_values_match_ethtool_s(veth_ns: VethNs, eth: Ethtool) -> None:
    stats = veth_ns.kt.call(eth.stats)
    assert isinstance(stats, tuple)
    cli = ethtool_s(veth_ns, veth_ns.a)
    assert [n for n, _ in stats] == [n for n, _ in cli]
    assert stats == tuple(cli)  # an idle veth: the counters do not move in between
    peer = int(veth_ns.nsexec("cat", f"/sys/class/net/{veth_ns.b}/ifindex"))
    assert dict(stats)["peer_ifindex"] == peer
    info = veth_ns.kt.call(eth.driver_info)
    assert isinstance(info, DriverInfo)
    assert info.n_stats == len(stats)


def test_stats_follow_the_queue_count(veth_ns: VethNs, eth: Ethtool) -> None:
    if possible_cpus() < 2:
        pytest.skip("needs 2 CPUs")
    before = veth_ns.kt.call(eth.stats)
    assert isinstance(before, tuple)
    assert "rx_queue_1_drops" not in dict(before)
    veth_ns.kt.call(eth.set_channels, 2, 2)
    after = veth_ns.kt.call(eth.stats)
    assert isinstance(after, tuple)
    assert "rx_queue_1_drops" in dict(after)
    assert [n for n, _ in after] == [n for n, _ in ethtool_s(veth_ns, veth_ns.a)]


def test_lo_has_no_stats(veth_ns: VethNs) -> None:
    got = veth_ns.kt.call(Ethtool("lo").stats)
    assert got == Unavailable("unsupported", "stats: not supported by lo")


# ---- coalescing on a tap (netlink, and the ioctl fallback) -----------------------------


def ethtool_c(ns: VethNs, dev: str) -> dict[str, int]:
    """The parameters `ethtool -c` shows with a number (the rest are n/a)."""
    out: dict[str, int] = {}
    for line in ns.nsexec("ethtool", "-c", dev).splitlines():
        m = re.match(r"^([a-z-]+): (\d+)$", line)
        if m:
            out[m.group(1).replace("-frame-", "-frames-")] = int(m.group(2))
    return out


def test_coalesce_over_netlink_lists_only_what_the_driver_supports(
    veth_ns: VethNs, tap: str
) -> None:
    e = Ethtool(tap)
    got = veth_ns.kt.call(e.coalesce)
    assert isinstance(got, Coalesce)
    assert got.source == "netlink"
    assert got.names() == ("rx-frames",)  # tun supports rx-frames only
    assert dict(got.params) == ethtool_c(veth_ns, tap)

    veth_ns.kt.call(e.set_coalesce, {"rx-frames": 8})
    assert veth_ns.kt.call(e.coalesce) == Coalesce((("rx-frames", 8),), "netlink")
    assert ethtool_c(veth_ns, tap) == {"rx-frames": 8}


def test_coalesce_ioctl_fallback_reads_and_writes_the_same_value(veth_ns: VethNs, tap: str) -> None:
    e = Ethtool(tap, netlink=False)
    veth_ns.kt.call(e.set_coalesce, {"rx-frames": 16})
    got = veth_ns.kt.call(e.coalesce)
    assert isinstance(got, Coalesce)
    assert got.source == "ioctl"
    assert len(got.params) == 22
    assert got.get("rx-frames") == 16
    assert got.get("rx-usecs") == 0
    assert ethtool_c(veth_ns, tap) == {"rx-frames": 16}


@pytest.mark.parametrize(
    ("values", "kind", "message"),
    [
        ({"rx-usecs": 5}, "unsupported", "rx-usecs not supported by tun"),
        ({"rx-frames": -1}, "error", "rx-frames cannot be negative"),
        ({"rx-frames": 2**32}, "error", "rx-frames 4294967296 is above the maximum"),
        ({"adaptive-rx": 2}, "error", "adaptive-rx 2 is above the maximum 1"),
        ({"rx-frames": 4, "bogus": 1}, "error", "unknown parameter 'bogus'"),
    ],
)
def test_invalid_coalesce_changes_nothing(
    veth_ns: VethNs, tap: str, values: dict[str, int], kind: str, message: str
) -> None:
    e = Ethtool(tap)
    veth_ns.kt.call(e.set_coalesce, {"rx-frames": 3})
    with pytest.raises(EthtoolWriteError) as err:
        veth_ns.kt.call(e.set_coalesce, values)
    assert err.value.state.kind == kind
    assert message in str(err.value)
    assert ethtool_c(veth_ns, tap) == {"rx-frames": 3}


def test_kernel_refusal_carries_the_netlink_explanation(veth_ns: VethNs, tap: str) -> None:
    # Bypass validation to see what the kernel itself says.
    nl = EthtoolNetlink(tap)
    with pytest.raises(NetlinkError) as err:
        veth_ns.kt.call(nl.coalesce_set, {"rx-usecs": 5})
    assert err.value.errno == errno.EINVAL
    assert err.value.extack is not None
    assert "unsupported parameter" in err.value.extack
    veth_ns.kt.call(nl.close)


def test_kernel_refusal_on_write_is_a_plain_error(veth_ns: VethNs, tap: str) -> None:
    e = Ethtool(tap)
    ch = veth_ns.kt.call(e.channels)
    assert isinstance(ch, Channels)
    assert ch.combined_max == 1  # tun reports channels but cannot change them
    with pytest.raises(EthtoolWriteError) as err:
        veth_ns.kt.call(lambda: e.set_channels(combined=1))
    assert err.value.state == Unavailable("unsupported", "channels: not supported by tun")


# ---- cost and resource use -------------------------------------------------------------


def test_reads_reuse_their_sockets(veth_ns: VethNs, eth: Ethtool, tap: str) -> None:
    t = Ethtool(tap)

    def reads() -> None:
        for _ in range(50):
            eth.driver_info()
            eth.features()
            eth.channels()
            eth.rings()
            eth.stats()
            eth.coalesce()  # netlink, then the ioctl (veth has neither)
            t.coalesce()

    def fds() -> int:
        gc.collect()  # objects of earlier tests may close their fds now; count only ours
        return len(os.listdir("/proc/self/fd"))

    veth_ns.kt.call(reads)  # opens the sockets
    start = veth_ns.kt.call(fds)
    veth_ns.kt.call(reads)
    assert veth_ns.kt.call(fds) <= start  # 350 more reads: a leak would add hundreds
    veth_ns.kt.call(t.close)
    veth_ns.kt.call(eth.close)
    assert veth_ns.kt.call(fds) == start - 3  # veth: ioctl + netlink; tap: netlink


def test_features_read_returns_the_same_object_while_nothing_changes(
    veth_ns: VethNs, eth: Ethtool
) -> None:
    first = veth_ns.kt.call(eth.features)
    assert veth_ns.kt.call(eth.features) is first
    veth_ns.kt.call(eth.set_features, {"gro": True})
    changed = veth_ns.kt.call(eth.features)
    assert isinstance(changed, tuple)
    assert changed is not first
    assert {f.name: f.active for f in changed}["rx-gro"]


# ---- without CAP_NET_ADMIN ---------------------------------------------------------------

PERMISSION_PROBE = """
import sys
from tuitune.core.host.ethtool import Ethtool, EthtoolWriteError
e = Ethtool(sys.argv[1])
assert e.channels().rx >= 1, "reads need no privilege"
try:
    e.set_channels(rx=1, tx=1)
except EthtoolWriteError as err:
    print(err.state.kind, err.state.reason, sep="|")
"""


def test_writes_without_cap_net_admin_say_permission(veth_ns: VethNs) -> None:
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux)")
    cmd = [
        "ip",
        "netns",
        "exec",
        veth_ns.ns,
        "setpriv",
        "--inh-caps=-net_admin",
        "--bounding-set=-net_admin",
        sys.executable,
        "-c",
        PERMISSION_PROBE,
        veth_ns.a,
    ]
    repo = Path(__file__).resolve().parents[2]  # so the child imports this checkout
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=repo).stdout.strip()
    assert out == "permission|channels: changing it needs root (CAP_NET_ADMIN)"


def test_veth_has_no_private_flags_or_fec_and_the_kernel_says_so(
    veth_ns: VethNs, eth: Ethtool
) -> None:
    """The kernel's own answers for a driver without them (issue 32): states, never errors."""
    flags = veth_ns.kt.call(eth.priv_flags)
    assert flags == Unavailable("unsupported", "private flags: none on veth")
    fec = veth_ns.kt.call(eth.ioctl_read, FecGet())
    assert isinstance(fec, Unavailable) and fec.kind == "unsupported"
    with pytest.raises(EthtoolWriteError) as err:
        veth_ns.kt.call(eth.ioctl_write, FecSet(1 << 3))  # ETHTOOL_FEC_RS
    assert err.value.state.reason == "FEC: not supported by veth"
    assert "not supported" in cli_fails(veth_ns, "ethtool", "--show-fec", veth_ns.a)
