"""A shipped profile scaled to the host it goes on (core/profiles/scale.py): rings to the
device's maxima, the queue count to the CPUs (NIC-local ones on a multi-node host), a WAN
profile's buffers to link speed x RTT; each scaled value with why, and the rest said as kept.

The ring and channel numbers are those of real captures (tests/fixtures/captures/ethtool,
SOURCES.md there): netutils_bnx2_eth0_-g.txt (rx max 2040, tx 255, in use 255/255),
netutils_ixgbe-82599_eth2_-g.txt (rx 4096 of 4096, tx 512 of 4096),
hv_netvsc_eth0_channels_-l_lisa230.txt (combined 8 of 64),
unknown-driver_ens3f0_channels_-l_combined64_firedancer1427.txt (combined 1 of 64).
"""

from __future__ import annotations

import pytest

from tuitune.core.host.ethtool_types import Channels, Rings
from tuitune.core.profiles import ShippedProfile, find
from tuitune.core.profiles.scale import NO_LIMITS, HostFacts, NicLimits, scale_to_host

BNX2_RINGS = Rings(255, 0, 0, 255, 2040, 0, 8160, 255)
IXGBE_RINGS = Rings(4096, 0, 0, 512, 4096, 0, 0, 4096)
NETVSC_CHANNELS = Channels(0, 0, 0, 8, 0, 0, 0, 64)
FIREDANCER_CHANNELS = Channels(0, 0, 1, 1, 0, 0, 1, 64)
# A 10G port on node 0 of a 2 x 16-CPU host (the E5-2640 tree's layout: 8 cores + 8 threads).
TWO_NODES = HostFacts("eth2", 10000, 32, 2, 0, frozenset([*range(8), *range(16, 24)]))
ONE_NODE = HostFacts("eth0", 10000, 12, 1, None, frozenset())


def _prof(name: str) -> ShippedProfile:
    prof = find(name)
    assert prof is not None
    return prof


def _values(prof: ShippedProfile) -> dict[str, str]:
    return {p.setting: p.value for p in prof.picks}


def test_a_ring_above_the_devices_maximum_becomes_the_maximum_and_says_why() -> None:
    # CERN's 2048 descriptors on a bnx2 whose rx ring holds at most 2040.
    got = scale_to_host(_prof("lan-10g"), ONE_NODE, NicLimits(BNX2_RINGS, None), None)
    assert _values(got.profile)["rings rx"] == "2040"
    (ring,) = [s for s in got.scaled if s.setting == "rings rx"]
    assert (ring.was, ring.value) == ("2048", "2040")
    assert "above eth0's maximum 2040 (ethtool -g)" in ring.why
    # The clamped pick still cites CERN: the report's value, cut to what the device takes.
    pick = next(p for p in got.profile.picks if p.setting == "rings rx")
    assert pick.advice.source == "cern-10g"
    # Within the maximum (ixgbe's 4096) the report's value stays.
    same = scale_to_host(_prof("lan-10g"), ONE_NODE, NicLimits(IXGBE_RINGS, None), None)
    assert _values(same.profile)["rings rx"] == "2048"
    assert not [s for s in same.scaled if s.setting.startswith("rings")]


def test_a_wan_profile_raises_the_rx_ring_to_the_maximum_citing_nasas_wan_advice() -> None:
    got = scale_to_host(_prof("wan-10g"), ONE_NODE, NicLimits(BNX2_RINGS, None), None)
    assert _values(got.profile)["rings rx"] == "2040"
    pick = next(p for p in got.profile.picks if p.setting == "rings rx")
    assert (pick.advice.source, pick.advice.context) == ("nasa-40g", "WAN")
    full = scale_to_host(_prof("wan-10g"), ONE_NODE, NicLimits(IXGBE_RINGS, None), None)
    assert "rings rx" not in _values(full.profile)
    assert any("already at eth0's maximum 4096" in k for k in full.kept)


def test_the_queue_count_follows_the_nic_local_cpus_on_a_two_node_host() -> None:
    got = scale_to_host(_prof("lan-10g"), TWO_NODES, NicLimits(None, FIREDANCER_CHANNELS), None)
    # 16 CPUs local to the NIC (node 0), not the 32 online; the device takes 64.
    assert _values(got.profile)["channels combined"] == "16"
    (q,) = [s for s in got.scaled if s.setting == "channels combined"]
    assert q.was is None and "16 CPUs local to the NIC" in q.why and "now 1" in q.why
    pick = next(p for p in got.profile.picks if p.setting == "channels combined")
    assert (pick.advice.source, pick.advice.context) == ("redhat-10g", "LAN")
    # One node: every online CPU; never above the device's maximum.
    one = scale_to_host(_prof("lan-40g"), ONE_NODE, NicLimits(None, NETVSC_CHANNELS), None)
    assert _values(one.profile)["channels combined"] == "12"
    small = Channels(0, 0, 0, 1, 0, 0, 0, 4)
    capped = scale_to_host(_prof("lan-40g"), ONE_NODE, NicLimits(None, small), None)
    assert _values(capped.profile)["channels combined"] == "4"


def test_the_queue_count_is_never_lowered_nor_set_for_wan_or_latency() -> None:
    many = Channels(0, 0, 0, 32, 0, 0, 0, 64)
    got = scale_to_host(_prof("lan-10g"), ONE_NODE, NicLimits(None, many), None)
    assert "channels combined" not in _values(got.profile)
    assert any("already one a CPU" in k for k in got.kept)
    for name in ("wan-10g", "low-latency"):
        other = scale_to_host(_prof(name), ONE_NODE, NicLimits(None, NETVSC_CHANNELS), None)
        assert "channels combined" not in _values(other.profile)
        assert any("queue count left as it is" in k for k in other.kept)


@pytest.mark.parametrize("name", ["lan-10g", "lan-40g", "wan-100g-dtn", "wan-10g", "low-latency"])
def test_without_limits_or_rtt_nothing_is_scaled_and_each_reason_is_said(name: str) -> None:
    prof = _prof(name)
    got = scale_to_host(prof, ONE_NODE, NO_LIMITS, None)
    assert got.scaled == () and got.profile.picks == prof.picks
    assert got.kept  # why each kind of value was left as the report has it
    assert got.profile.to_profile().requests


def test_a_scaled_profile_is_still_what_the_journal_takes() -> None:
    got = scale_to_host(_prof("wan-10g"), ONE_NODE, NicLimits(BNX2_RINGS, NETVSC_CHANNELS), 48.6)
    settings = [r.origin for r in got.profile.to_profile().requests]
    assert "rings rx" in settings and "net.ipv4.tcp_rmem" in settings
    assert _values(got.profile)["net.core.rmem_max"] == "121500000"
