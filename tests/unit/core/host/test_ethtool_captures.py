"""Parsers of real `ethtool` captures (shared/fixtures/ethtool) and the FakeEthtool built on them.

The product never parses `ethtool` output; these parsers exist only to build test fakes for the
NICs and features this machine lacks. Expected values below were typed from the capture files
by hand, not produced by the parsers.
"""

from __future__ import annotations

import fnmatch
import typing
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import SHARED_FIXTURES
from tests.support.fakes.ethtool_text import (
    READ_METHODS,
    CaptureKind,
    FakeEthtool,
    Indirection,
    capture_files,
    capture_kind,
    fake_for,
    parse_channels,
    parse_coalesce,
    parse_driver_info,
    parse_features,
    parse_pause,
    parse_rings,
    parse_rxfh,
    parse_settings,
    parse_stats,
)
from tuitune.core.host.ethtool import (
    COALESCE_IOCTL_NAMES,
    LEGACY_FEATURE_ALIASES,
    Channels,
    Coalesce,
    DriverInfo,
    Ethtool,
    Feature,
    Pause,
    Rings,
    requested_snapshot,
)
from tuitune.core.host.ethtool_netlink import COALESCE_BY_NAME
from tuitune.core.values import Unavailable

# Collected from the directory itself, so a new capture gets a test case (and fails it until
# its kind is handled and its values are added to EXPECTED).
_DIR = SHARED_FIXTURES / "ethtool"
LISTING = sorted(p.name for p in _DIR.iterdir() if p.is_file()) if _DIR.is_dir() else []

PARSERS: dict[str, Callable[[str], object]] = {
    "driver": parse_driver_info,
    "features": parse_features,
    "rings": parse_rings,
    "coalesce": parse_coalesce,
    "channels": parse_channels,
    "pause": parse_pause,
    "stats": parse_stats,
    "settings": parse_settings,
    "rxfh": parse_rxfh,
}

# file -> (kind, key values). Key values per kind:
#   driver:   (driver, version, firmware, bus-info)
#   features: (number of features, number [fixed], number on)
#   rings:    ((max rx, rx mini, rx jumbo, tx), (current rx, rx mini, rx jumbo, tx))
#   channels: ((max rx, tx, other, combined), (current rx, tx, other, combined))
#   coalesce: (source, number of params, rx-usecs, tx-usecs, adaptive-rx, adaptive-tx)
#   pause:    (autoneg, rx, tx)
#   settings: (speed, duplex, port, link detected)
#   rxfh:     (ring count, table size)
EXPECTED: dict[str, tuple[str, object]] = {
    # ---- ethtool -i
    "ena_ens5_-i_ena1.0.2_centos7.txt": ("driver", ("ena", "1.0.2", "", "0000:00:05.0")),
    "ixgbe_eno49_pfring_-i.txt": (
        "driver",
        ("ixgbe", "4.1.5", "0x80000887, 1.1200.0", "0000:04:00.0"),
    ),
    "ixgbe_enp2s0f0_rhel73_-i.txt": (
        "driver",
        ("ixgbe", "4.4.0-k-rh7.3", "0x800003df", "0000:02:00.0"),
    ),
    "ixgbevf_ens3_-i_aws-c4_centos7.txt": (
        "driver",
        ("ixgbevf", "3.2.2-k-rh7.4", "", "0000:00:03.0"),
    ),
    "mlx4_en_-i_ethq21.txt": ("driver", ("mlx4_en", "4.0-0", "2.42.5000", "0000:83:00.0")),
    "mlx5_core_cx4-100g_kube02_pve-6.8_driver_-i.txt": (
        "driver",
        ("mlx5_core", "6.8.12-4-pve", "12.28.2006 (MT_2150110033)", "0000:81:00.0"),
    ),
    "mlx5_core_cx4lx_enp1s0f0np0_pve-6.8_driver_-i.txt": (
        "driver",
        ("mlx5_core", "6.8.12-8-pve", "14.32.1900 (MT_2420110034)", "0000:01:00.0"),
    ),
    "mlx5_core_cx4lx_ubuntu1804_-i_ethq8.txt": (
        "driver",
        ("mlx5_core", "5.0-0", "14.23.1020 (MT_2420110034)", "0000:af:00.0"),
    ),
    "mlx5_core_p3p1_cx4lx_-i_ethq8.txt": (
        "driver",
        ("mlx5_core", "3.0-1 (January 2015)", "14.23.1020", "0000:af:00.0"),
    ),
    "netutils_be2net_eth4_-i.txt": (
        "driver",
        ("be2net", "10.6.0.3r", "11.1.183.62", "0000:07:00.0"),
    ),
    "netutils_bnx2_eth0_-i.txt": (
        "driver",
        ("bnx2", "2.2.5", "bc 5.2.3 NCSI 2.0.12", "0000:02:00.0"),
    ),
    "netutils_i40e-x710_eth0_-i.txt": (
        "driver",
        ("i40e", "1.5.10-k", "5.04 0x80002530 0.0.0", "0000:01:00.0"),
    ),
    "netutils_igb-i350_eth0_-i.txt": (
        "driver",
        ("igb", "5.2.15-k", "1.61, 0x8000090e", "0000:02:00.0"),
    ),
    "netutils_ixgbe-82599_eth2_-i.txt": (
        "driver",
        ("ixgbe", "4.0.1-k", "0x800000cb", "0000:81:00.0"),
    ),
    "netutils_mlx4_en-MT27520_eth2_-i.txt": (
        "driver",
        ("mlx4_en", "2.2-1 (Feb 2014)", "2.36.5000", "0000:07:00.0"),
    ),
    "netutils_mlx4_en_eth6_-i.txt": (
        "driver",
        ("mlx4_en", "2.2-1 (Feb 2014)", "2.36.5000", "0000:04:00.0"),
    ),
    "netutils_qlcnic_eth0_-i.txt": ("driver", ("qlcnic", "5.3.59", "4.9.98", "0000:05:00.0")),
    "netutils_tg3_eth0_-i.txt": (
        "driver",
        ("tg3", "3.137", "5719-v1.46 NCSI v1.3.16.0", "0000:03:00.0"),
    ),
    "netutils_virtio_net_eth0_-i.txt": ("driver", ("virtio_net", "1.0.0", "", "0000:00:03.0")),
    # ---- ethtool -k (65 lines in the mlx5 capture minus 3 group summaries; the grep subset
    # loses the tcp-segmentation-offload summary whose members were grepped away)
    "mlx5_core_cx4lx_enp1s0f0np0_pve-6.8_features_-k.txt": ("features", (62, 33, 22)),
    "igb_em1_32cpu_features_-k_grep_offload.txt": ("features", (6, 2, 4)),
    # ---- ethtool -g
    "atlantic-aqc113_eth0_ring_-g_newest-fields_NO-SECTION-HEADERS_systemd41289.txt": (
        "rings",
        ((8184, 0, 0, 8184), (2048, 0, 0, 4096)),
    ),
    "igb_em1_32cpu_ring_-g.txt": ("rings", ((4096, 0, 0, 4096), (4096, 0, 0, 4096))),
    "mlx5_core_cx4lx_enp1s0f0np0_pve-6.8_ring_-g.txt": (
        "rings",
        ((8192, 0, 0, 8192), (1024, 0, 0, 1024)),
    ),
    "netutils_be2net_eth4_-g.txt": ("rings", ((0, 0, 0, 2048), (0, 0, 0, 2048))),
    "netutils_bnx2_eth0_-g.txt": ("rings", ((2040, 0, 8160, 255), (255, 0, 0, 255))),
    "netutils_i40e-x710_eth0_-g.txt": ("rings", ((4096, 0, 0, 4096), (2048, 0, 0, 512))),
    "netutils_igb-i350_eth0_-g.txt": ("rings", ((4096, 0, 0, 4096), (256, 0, 0, 256))),
    "netutils_ixgbe-82599_eth2_-g.txt": ("rings", ((4096, 0, 0, 4096), (4096, 0, 0, 512))),
    "netutils_mlx4_en-MT27520_eth2_-g.txt": ("rings", ((8192, 0, 0, 8192), (8192, 0, 0, 512))),
    "netutils_mlx4_en_eth6_-g.txt": ("rings", ((8192, 0, 0, 8192), (8192, 0, 0, 8192))),
    "netutils_qlcnic_eth0_-g.txt": ("rings", ((8192, 0, 1024, 1024), (4096, 0, 1024, 1024))),
    "netutils_tg3_eth0_-g.txt": ("rings", ((2047, 0, 0, 511), (2047, 0, 0, 511))),
    "netutils_virtio_net_eth0_-g.txt": ("rings", ((256, 0, 0, 256), (256, 0, 0, 256))),
    "unknown-driver_eth0_ring_-g_tabs_ifupdown2-256.txt": (
        "rings",
        ((4096, 0, 0, 4096), (4096, 0, 0, 4096)),
    ),
    "virtio_net-guest-on-bhyve-viona_eth0_ring_-g_after_propolis1056.txt": (
        "rings",
        ((2048, 0, 0, 256), (2048, 0, 0, 256)),
    ),
    "virtio_net-guest-on-bhyve-viona_eth0_ring_-g_before_propolis1056.txt": (
        "rings",
        ((256, 0, 0, 2048), (256, 0, 0, 2048)),
    ),
    # ---- ethtool -l
    "azure-vm_eth0_channels_-l_netlink_lisa4191.txt": ("channels", ((0, 0, 0, 32), (0, 0, 0, 32))),
    "ena_eth0_channels_-l_ena2.2.3_amzn123.txt": ("channels", ((0, 0, 0, 2), (0, 0, 0, 2))),
    "hv_netvsc_eth0_channels_-l_lisa230.txt": ("channels", ((0, 0, 0, 64), (0, 0, 0, 8))),
    "ixgbe-likely_p2p1_channels_-l_pbench264.txt": ("channels", ((0, 0, 1, 63), (0, 0, 1, 1))),
    "mlx5_core_cx4lx_enp1s0f0np0_pve-6.8_channels_-l.txt": (
        "channels",
        ((0, 0, 0, 12), (0, 0, 0, 12)),
    ),
    "unknown-driver_eno1_channels_-l_separate_rx_tx_firedancer1427.txt": (
        "channels",
        ((4, 4, 0, 0), (4, 1, 0, 0)),
    ),
    "unknown-driver_ens10f0_channels_-l_ifupdown2-268.txt": (
        "channels",
        ((64, 64, 0, 64), (0, 0, 0, 64)),
    ),
    "unknown-driver_ens3f0_channels_-l_combined64_firedancer1427.txt": (
        "channels",
        ((0, 0, 1, 64), (0, 0, 1, 1)),
    ),
    # ---- ethtool -c
    "ena_ens7_coalesce_-c_TRUNCATED.txt": ("coalesce", ("ioctl", 14, 0, 0, 0, 0)),
    "mlx4-era_eth2_coalesce_-c_2011_blanklines_sockperf21.txt": (
        "coalesce",
        ("ioctl", 22, 16, 0, 1, 0),
    ),
    "mlx5_core_cx4lx_enp1s0f0np0_pve-6.8_coalesce_-c.txt": (
        "coalesce",
        ("netlink", 8, 8, 8, 1, 1),
    ),
    "netutils_be2net_eth4_-c.txt": ("coalesce", ("ioctl", 22, 0, 0, 1, 1)),
    "netutils_bnx2_eth0_-c.txt": ("coalesce", ("ioctl", 22, 18, 80, 0, 0)),
    "netutils_i40e-x710_eth0_-c.txt": ("coalesce", ("ioctl", 22, 25, 25, 1, 1)),
    "netutils_igb-i350_eth0_-c.txt": ("coalesce", ("ioctl", 22, 3, 0, 0, 0)),
    "netutils_ixgbe-82599_eth2_-c.txt": ("coalesce", ("ioctl", 22, 1, 0, 0, 0)),
    "netutils_mlx4_en-MT27520_eth2_-c.txt": ("coalesce", ("ioctl", 22, 16, 16, 1, 0)),
    "netutils_mlx4_en_eth6_-c.txt": ("coalesce", ("ioctl", 22, 16, 16, 1, 0)),
    "netutils_qlcnic_eth0_-c.txt": ("coalesce", ("ioctl", 22, 3, 0, 0, 0)),
    "netutils_tg3_eth0_-c.txt": ("coalesce", ("ioctl", 22, 20, 72, 0, 0)),
    "unknown-driver_enp1s0_coalesce_-c_netlink_tuned726.txt": (
        "coalesce",
        ("netlink", 2, 3, 3, None, None),
    ),
    # ---- ethtool -a
    "ixgbe_eth8_pause_-a_pfring293.txt": ("pause", (False, True, True)),
    "mtk_eth_soc_eth2_pause_-a_with-negotiated_openwrt14988.txt": ("pause", (True, False, False)),
    # ---- ethtool IF
    "mlx5_core_cx4lx_enp1s0f0np0_pve-6.8_settings_noopt.txt": (
        "settings",
        ("25000Mb/s", "Full", "Direct Attach Copper", "yes"),
    ),
    # ---- ethtool -x
    "igb_em1_32cpu_rxfh_-x.txt": ("rxfh", (8, 128)),
}

MLX5 = "mlx5_core_cx4lx_enp1s0f0np0_pve-6.8_"


def _read(fixtures_dir: Path, name: str) -> str:
    return (fixtures_dir / "ethtool" / name).read_text()


def _key_values(kind: str, parsed: object) -> object:
    if isinstance(parsed, DriverInfo):
        return (parsed.driver, parsed.version, parsed.firmware, parsed.bus_info)
    if isinstance(parsed, Rings):
        return (
            (parsed.rx_max, parsed.rx_mini_max, parsed.rx_jumbo_max, parsed.tx_max),
            (parsed.rx, parsed.rx_mini, parsed.rx_jumbo, parsed.tx),
        )
    if isinstance(parsed, Channels):
        return (
            (parsed.rx_max, parsed.tx_max, parsed.other_max, parsed.combined_max),
            (parsed.rx, parsed.tx, parsed.other, parsed.combined),
        )
    if isinstance(parsed, Coalesce):
        return (
            parsed.source,
            len(parsed.params),
            parsed.get("rx-usecs"),
            parsed.get("tx-usecs"),
            parsed.get("adaptive-rx"),
            parsed.get("adaptive-tx"),
        )
    if isinstance(parsed, Pause):
        return (parsed.autoneg, parsed.rx, parsed.tx)
    if isinstance(parsed, Indirection):
        return (parsed.ring_count, len(parsed.table))
    if kind == "features":
        assert isinstance(parsed, tuple)
        feats = [f for f in parsed if isinstance(f, Feature)]
        assert len(feats) == len(parsed)
        return (len(feats), sum(f.fixed for f in feats), sum(f.active for f in feats))
    if kind == "settings":
        assert isinstance(parsed, dict)
        return tuple(parsed.get(k) for k in ("speed", "duplex", "port", "link detected"))
    raise AssertionError(f"no key values for {kind}: {parsed!r}")


# ---- every capture ------------------------------------------------------------------------


def test_listing_is_the_fixture_directory(fixtures_dir: Path) -> None:
    on_disk = sorted(p.name for p in (fixtures_dir / "ethtool").iterdir() if p.is_file())
    assert on_disk == LISTING
    assert len(LISTING) >= 60  # an empty listing would silently parametrize nothing


def test_every_capture_has_expected_values() -> None:
    assert set(LISTING) == set(EXPECTED)


@pytest.mark.parametrize("name", LISTING)
def test_capture_parses_as_the_kind_its_name_says(fixtures_dir: Path, name: str) -> None:
    kind = capture_kind(name)  # raises for a name with no handled kind
    assert name in EXPECTED, f"new capture {name}: add its kind and key values to EXPECTED"
    assert kind == EXPECTED[name][0]
    text = _read(fixtures_dir, name)
    parsed = PARSERS[kind](text)
    assert _key_values(kind, parsed) == EXPECTED[name][1]

    if isinstance(parsed, Rings):
        assert parsed.rx <= parsed.rx_max and parsed.tx <= parsed.tx_max
        assert parsed.rx_jumbo <= parsed.rx_jumbo_max
    if isinstance(parsed, Channels):
        assert parsed.rx <= parsed.rx_max and parsed.tx <= parsed.tx_max
        assert parsed.combined <= parsed.combined_max and parsed.other <= parsed.other_max
        assert parsed.combined or (parsed.rx and parsed.tx)  # the kernel's own rule
    if isinstance(parsed, Coalesce):
        assert set(parsed.names()) <= set(COALESCE_BY_NAME)
        order = [COALESCE_BY_NAME[n][0] for n in parsed.names()]
        assert order == sorted(order)  # the product's (netlink attribute) order

    # ... and no other parser takes it.
    for other, parse in PARSERS.items():
        if other != kind:
            with pytest.raises(ValueError, match="not `ethtool"):
                parse(text)


# ---- capture kinds from names -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("netutils_bnx2_eth0_-c.txt", "coalesce"),
        ("ena_ens5_-i_ena1.0.2_centos7.txt", "driver"),
        ("virtio_net-guest-on-bhyve-viona_eth0_ring_-g_after_propolis1056.txt", "rings"),
        ("ixgbe-likely_p2p1_channels_-l_pbench264.txt", "channels"),
        ("x_settings_noopt.txt", "settings"),
        ("x_eth0_-S.txt", "stats"),
    ],
)
def test_capture_kind(name: str, kind: CaptureKind) -> None:
    assert capture_kind(name) == kind


@pytest.mark.parametrize(
    "name",
    ["igb_em1_-e.txt", "igb_em1_ring.txt", "igb_em1_-i_-g.txt", "igb-likely_em1.txt", "a_-c-x.txt"],
)
def test_capture_kind_refuses_names_without_one_known_kind(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        capture_kind(name)


# ---- ethtool -i ---------------------------------------------------------------------------


def test_driver_info_mlx5_and_the_supports_counts(fixtures_dir: Path) -> None:
    info = parse_driver_info(_read(fixtures_dir, f"{MLX5}driver_-i.txt"))
    assert info == DriverInfo(
        driver="mlx5_core",
        version="6.8.12-8-pve",
        firmware="14.32.1900 (MT_2420110034)",
        erom_version="",
        bus_info="0000:01:00.0",
        n_priv_flags=1,  # supports-priv-flags: yes
        n_stats=1,
        testinfo_len=1,
        eedump_len=0,  # supports-eeprom-access: no
        regdump_len=0,
    )
    virtio = parse_driver_info(_read(fixtures_dir, "netutils_virtio_net_eth0_-i.txt"))
    assert virtio.n_stats == 0  # supports-statistics: no


def test_driver_info_old_and_new_ethtool_and_trailing_spaces(fixtures_dir: Path) -> None:
    # Older ethtool has no expansion-rom-version line; newer prints it empty.
    old = _read(fixtures_dir, "netutils_bnx2_eth0_-i.txt")
    new = _read(fixtures_dir, "ixgbe_enp2s0f0_rhel73_-i.txt")
    assert "expansion-rom-version" not in old and "expansion-rom-version:\n" in new
    assert parse_driver_info(old).erom_version == parse_driver_info(new).erom_version == ""
    text = _read(fixtures_dir, "mlx4_en_-i_ethq21.txt")
    assert "version: 4.0-0   " in text
    assert parse_driver_info(text).version == "4.0-0"


def test_driver_info_truncated_keeps_what_is_there(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "netutils_i40e-x710_eth0_-i.txt")
    info = parse_driver_info("\n".join(text.splitlines()[:3]))  # driver, version, firmware
    assert (info.driver, info.firmware, info.bus_info, info.n_stats) == (
        "i40e",
        "5.04 0x80002530 0.0.0",
        "",
        0,
    )


# ---- ethtool -k ---------------------------------------------------------------------------


def test_features_mlx5_names_and_fixed(fixtures_dir: Path) -> None:
    feats = parse_features(_read(fixtures_dir, f"{MLX5}features_-k.txt"))
    by = {f.name: f for f in feats}
    assert [f.index for f in feats] == list(range(len(feats)))
    # a fixed feature that is on, and one that is off
    assert by["highdma"].active and by["highdma"].fixed and not by["highdma"].available
    assert by["rx-vlan-stag-filter"].active and by["rx-vlan-stag-filter"].fixed
    assert not by["tx-checksum-ipv4"].active and by["tx-checksum-ipv4"].fixed
    # indented group members keep their kernel names
    assert by["tx-checksum-ip-generic"].active and not by["tx-checksum-ip-generic"].fixed
    assert not by["tx-tcp-mangleid-segmentation"].active
    # single-member legacy flags are renamed to the kernel feature they stand for
    assert by["rx-gro"].active and not by["rx-gro"].fixed  # generic-receive-offload
    assert not by["rx-lro"].active and by["rx-lro"].available  # large-receive-offload
    assert by["rx-checksum"].active and by["rx-hashing"].active
    assert not by["rx-ntuple-filter"].active
    assert by["tx-vlan-hw-insert"].active and by["rx-vlan-hw-parse"].active
    # group summaries are not features
    for summary in ("tx-checksumming", "scatter-gather", "tcp-segmentation-offload"):
        assert summary not in by
    assert "generic-receive-offload" not in by
    # the product's own alias patterns find the members
    tso = [n for n in by if fnmatch.fnmatchcase(n, LEGACY_FEATURE_ALIASES["tso"])]
    assert tso == [
        "tx-tcp-segmentation",
        "tx-tcp-ecn-segmentation",
        "tx-tcp-mangleid-segmentation",
        "tx-tcp6-segmentation",
    ]
    assert all(f.requested == f.active and not f.never_changed for f in feats)
    assert len(requested_snapshot(feats)) == 62 - 33  # the changeable ones


def test_features_grep_subset_without_header(fixtures_dir: Path) -> None:
    feats = parse_features(_read(fixtures_dir, "igb_em1_32cpu_features_-k_grep_offload.txt"))
    assert [(f.name, f.active, f.fixed) for f in feats] == [
        ("tx-udp-fragmentation", False, True),
        ("tx-generic-segmentation", True, False),
        ("rx-gro", True, False),
        ("rx-lro", False, True),
        ("rx-vlan-hw-parse", True, False),
        ("tx-vlan-hw-insert", True, False),
    ]


def test_features_requested_note_and_tab_indent() -> None:
    # No capture has a "[requested ...]" note; this is the form ethtool prints it in.
    text = (
        "Features for eth0:\n"
        "tcp-segmentation-offload: off\n"
        "\ttx-tcp-segmentation: off [requested on]\n"
        "\ttx-tcp6-segmentation: on [requested off]\n"
        "generic-receive-offload: on\n"
    )
    feats = parse_features(text)
    assert [(f.name, f.active, f.requested, f.available) for f in feats] == [
        ("tx-tcp-segmentation", False, True, True),
        ("tx-tcp6-segmentation", True, False, True),
        ("rx-gro", True, True, True),
    ]


# ---- ethtool -g ---------------------------------------------------------------------------


def test_rings_newer_fields_are_ignored(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, f"{MLX5}ring_-g.txt")
    assert "RX Buf Len:" in text and "TCP data split:" in text and "n/a" in text
    assert parse_rings(text) == Rings(
        rx=1024, rx_mini=0, rx_jumbo=0, tx=1024, rx_max=8192, rx_mini_max=0, rx_jumbo_max=0,
        tx_max=8192,
    )  # fmt: skip


def test_rings_without_section_headers(fixtures_dir: Path) -> None:
    name = "atlantic-aqc113_eth0_ring_-g_newest-fields_NO-SECTION-HEADERS_systemd41289.txt"
    text = _read(fixtures_dir, name)
    assert "Pre-set maximums" not in text
    r = parse_rings(text)
    assert (r.rx_max, r.tx_max, r.rx, r.tx) == (8184, 8184, 2048, 4096)


def test_rings_tabs_and_na_equal_spaces_and_zero(fixtures_dir: Path) -> None:
    tabs = _read(fixtures_dir, "unknown-driver_eth0_ring_-g_tabs_ifupdown2-256.txt")
    zeros = _read(fixtures_dir, "igb_em1_32cpu_ring_-g.txt")
    assert "\t" in tabs and "n/a" in tabs and "n/a" not in zeros
    assert parse_rings(tabs) == parse_rings(zeros)


def test_rings_jumbo_and_truncated(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "netutils_bnx2_eth0_-g.txt")
    assert parse_rings(text).rx_jumbo_max == 8160
    cut = "\n".join(text.splitlines()[:8])  # ends after "RX:\t\t255" of the current settings
    r = parse_rings(cut)
    assert (r.rx_max, r.rx_jumbo_max, r.tx_max, r.rx, r.tx) == (2040, 8160, 255, 255, 0)
    cut_mid_line = "\n".join(text.splitlines()[:7]) + "\nRX:"  # pasted up to the key
    assert parse_rings(cut_mid_line).rx == 0


def test_rings_viona_fix_swaps_rx_and_tx(fixtures_dir: Path) -> None:
    prefix = "virtio_net-guest-on-bhyve-viona_eth0_ring_-g_"
    before = parse_rings(_read(fixtures_dir, f"{prefix}before_propolis1056.txt"))
    after = parse_rings(_read(fixtures_dir, f"{prefix}after_propolis1056.txt"))
    assert (before.rx_max, before.tx_max) == (after.tx_max, after.rx_max) == (256, 2048)


# ---- ethtool -c ---------------------------------------------------------------------------


def test_coalesce_mlx5_netlink_keeps_only_supported(fixtures_dir: Path) -> None:
    c = parse_coalesce(_read(fixtures_dir, f"{MLX5}coalesce_-c.txt"))
    assert c == Coalesce(
        (
            ("rx-usecs", 8),
            ("rx-frames", 128),
            ("tx-usecs", 8),
            ("tx-frames", 128),
            ("adaptive-rx", 1),
            ("adaptive-tx", 1),
            ("cqe-mode-tx", 0),  # "CQE mode RX: on  TX: off"
            ("cqe-mode-rx", 1),
        ),
        "netlink",
    )
    assert c.get("stats-block-usecs") is None  # n/a


def test_coalesce_netlink_adaptive_na(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "unknown-driver_enp1s0_coalesce_-c_netlink_tuned726.txt")
    assert "Adaptive RX: n/a  TX: n/a" in text
    c = parse_coalesce(text)
    assert c.params == (("rx-usecs", 3), ("tx-usecs", 3))
    assert c.source == "netlink"
    first_lines = "\n".join(text.splitlines()[:2]) + "\nrx-usecs: 3\n"
    assert parse_coalesce(first_lines) == Coalesce((("rx-usecs", 3),), "netlink")


def test_coalesce_old_ethtool_is_the_22_ioctl_fields_with_new_names(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "netutils_bnx2_eth0_-c.txt")
    assert "rx-frame-low:" in text  # what ethtool prints; `ethtool -C` says rx-frames-low
    c = parse_coalesce(text)
    assert c.source == "ioctl"
    assert c.names() == COALESCE_IOCTL_NAMES
    assert c.get("rx-usecs") == 18
    assert c.get("stats-block-usecs") == 999936
    assert (c.get("tx-usecs"), c.get("tx-frames"), c.get("rx-frames-irq")) == (80, 20, 2)
    assert c.get("rx-frame-low") is None and c.get("rx-frames-low") == 0


def test_coalesce_blank_lines_and_single_spaced_adaptive(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "mlx4-era_eth2_coalesce_-c_2011_blanklines_sockperf21.txt")
    assert "\n\nrx-usecs: 16\n\n" in text and "Adaptive RX: on TX: off" in text
    old = dict(parse_coalesce(text).params)
    ref = dict(parse_coalesce(_read(fixtures_dir, "netutils_mlx4_en_eth6_-c.txt")).params)
    assert set(old) == set(ref) == set(COALESCE_IOCTL_NAMES)
    diff = {k: (old[k], ref[k]) for k in old if old[k] != ref[k]}
    assert diff == {"rx-frames": (88, 44), "tx-usecs": (0, 16), "tx-frames": (0, 16)}
    assert (old["adaptive-rx"], old["adaptive-tx"], old["rx-usecs-high"]) == (1, 0, 128)
    assert (old["pkt-rate-low"], old["pkt-rate-high"]) == (400000, 450000)


def test_coalesce_truncated_capture(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "ena_ens7_coalesce_-c_TRUNCATED.txt")
    assert text.endswith("rx-usecs-low:")  # cut mid-line, no trailing newline
    c = parse_coalesce(text)
    assert c.names() == (
        "rx-usecs",
        "rx-frames",
        "rx-usecs-irq",
        "rx-frames-irq",
        "tx-usecs",
        "tx-frames",
        "tx-usecs-irq",
        "tx-frames-irq",
        "stats-block-usecs",
        "adaptive-rx",
        "adaptive-tx",
        "pkt-rate-low",
        "pkt-rate-high",
        "sample-interval",
    )
    assert c.get("rx-usecs-low") is None and c.get("tx-usecs-high") is None
    assert c.source == "ioctl"
    assert parse_coalesce(text, source="netlink").source == "netlink"


# ---- ethtool -l / -a / IF / -x --------------------------------------------------------------


def test_channels_irregular_spacing_and_na(fixtures_dir: Path) -> None:
    ch = parse_channels(_read(fixtures_dir, "ixgbe-likely_p2p1_channels_-l_pbench264.txt"))
    assert ch == Channels(
        rx=0, tx=0, other=1, combined=1, rx_max=0, tx_max=0, other_max=1, combined_max=63
    )
    na = parse_channels(_read(fixtures_dir, "azure-vm_eth0_channels_-l_netlink_lisa4191.txt"))
    assert (na.rx_max, na.other_max, na.combined_max, na.combined) == (0, 0, 32, 32)
    split = parse_channels(
        _read(fixtures_dir, "unknown-driver_eno1_channels_-l_separate_rx_tx_firedancer1427.txt")
    )
    assert (split.rx, split.tx, split.combined_max) == (4, 1, 0)


def test_pause_with_and_without_negotiated_rows(fixtures_dir: Path) -> None:
    assert parse_pause(_read(fixtures_dir, "ixgbe_eth8_pause_-a_pfring293.txt")) == Pause(
        autoneg=False, rx=True, tx=True
    )
    text = _read(fixtures_dir, "mtk_eth_soc_eth2_pause_-a_with-negotiated_openwrt14988.txt")
    assert "RX negotiated" in text
    assert parse_pause(text) == Pause(autoneg=True, rx=False, tx=False)


def test_link_settings(fixtures_dir: Path) -> None:
    s = parse_settings(_read(fixtures_dir, f"{MLX5}settings_noopt.txt"))
    assert s["speed"] == "25000Mb/s"
    assert s["duplex"] == "Full"
    assert s["link detected"] == "yes"
    assert s["port"] == "Direct Attach Copper"
    assert s["auto-negotiation"] == "on"
    assert s["supported link modes"].split() == [
        "1000baseKX/Full",
        "10000baseKR/Full",
        "25000baseCR/Full",
        "25000baseKR/Full",
        "25000baseSR/Full",
    ]
    assert s["advertised fec modes"] == "RS"


def test_rxfh_table(fixtures_dir: Path) -> None:
    ind = parse_rxfh(_read(fixtures_dir, "igb_em1_32cpu_rxfh_-x.txt"))
    assert ind.ring_count == 8
    assert ind.table[:16] == (0,) * 16
    assert ind.table[16] == 1 and ind.table[127] == 7
    assert [ind.table.count(q) for q in range(8)] == [16] * 8


def test_stats_text() -> None:
    # No -S capture exists; this is the shape ethtool prints.
    text = "NIC statistics:\n     rx_packets: 12\n     tx_queue_0_bytes: 3400\n"
    assert parse_stats(text) == (("rx_packets", 12), ("tx_queue_0_bytes", 3400))


# ---- wrong input ----------------------------------------------------------------------------


@pytest.mark.parametrize("parse", list(PARSERS.values()), ids=list(PARSERS))
@pytest.mark.parametrize(
    "text",
    ["", "\n\n", "hello world\n", "netlink error: Operation not supported\n", "RX: 4096\n"],
    ids=["empty", "blank", "garbage", "refusal", "ambiguous"],
)
def test_parsers_refuse_what_is_not_their_output(parse: Callable[[str], object], text: str) -> None:
    with pytest.raises(ValueError, match="not `ethtool"):
        parse(text)


def test_refusal_message_names_the_real_kind(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "hv_netvsc_eth0_channels_-l_lisa230.txt")
    with pytest.raises(ValueError, match=r"not `ethtool -g` output: .*`ethtool -l` output"):
        parse_rings(text)
    with pytest.raises(ValueError, match="refusal"):
        parse_rings("Ring parameters for lo:\nnetlink error: Operation not supported\n")


def test_bad_values_raise(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "netutils_tg3_eth0_-g.txt").replace("2047", "lots", 1)
    with pytest.raises(ValueError, match="RX is 'lots'"):
        parse_rings(text)
    pause = _read(fixtures_dir, "ixgbe_eth8_pause_-a_pfring293.txt").replace(
        "RX:    on", "RX:    maybe"
    )
    assert "maybe" in pause
    with pytest.raises(ValueError, match="RX is 'maybe', not on/off"):
        parse_pause(pause)
    with pytest.raises(ValueError, match="listed twice"):
        parse_channels("Channel parameters for x:\nCurrent hardware settings:\nRX: 1\nRX: 2\n")


# ---- FakeEthtool --------------------------------------------------------------------------


def test_fake_has_the_products_read_methods() -> None:
    for method in (*READ_METHODS.values(), "close"):
        real = typing.get_type_hints(getattr(Ethtool, method))
        fake = typing.get_type_hints(getattr(FakeEthtool, method))
        assert fake == real, method


def test_fake_for_mlx5_serves_product_values(fixtures_dir: Path) -> None:
    with fake_for(fixtures_dir, MLX5) as eth:
        assert set(eth.files) == {"driver", "features", "rings", "coalesce", "channels", "settings"}
        assert eth.ifname == "enp1s0f0np0"
        info = eth.driver_info()
        assert isinstance(info, DriverInfo) and info.firmware == "14.32.1900 (MT_2420110034)"
        feats = eth.features()
        assert isinstance(feats, tuple) and all(isinstance(f, Feature) for f in feats)
        assert len(feats) == 62
        rings = eth.rings()
        assert isinstance(rings, Rings) and rings.rx_max == 8192
        co = eth.coalesce()
        assert isinstance(co, Coalesce) and co.get("rx-usecs") == 8 and co.source == "netlink"
        ch = eth.channels()
        assert isinstance(ch, Channels) and ch.combined_max == 12
        assert eth.pause() == Unavailable("missing", "pause: not recorded")
        assert eth.stats() == Unavailable("missing", "stats: not recorded")
        settings = eth.link_settings()
        assert isinstance(settings, dict) and settings["speed"] == "25000Mb/s"
        assert eth.rxfh() == Unavailable("missing", "rx flow hash: not recorded")
        assert eth.calls[:3] == ["driver_info", "features", "rings"]
    assert eth.closed


def test_fake_for_netutils_ixgbe(fixtures_dir: Path) -> None:
    eth = fake_for(fixtures_dir, "netutils_ixgbe-82599_eth2_")
    assert set(eth.files) == {"driver", "rings", "coalesce"}
    assert eth.ifname == "eth2"
    info = eth.driver_info()
    assert isinstance(info, DriverInfo) and info.driver == "ixgbe"
    rings = eth.rings()
    assert isinstance(rings, Rings) and (rings.rx, rings.tx) == (4096, 512)
    co = eth.coalesce()
    assert isinstance(co, Coalesce) and co.get("rx-usecs") == 1 and co.source == "ioctl"
    for method, what in (("features", "features"), ("channels", "channels"), ("pause", "pause")):
        assert getattr(eth, method)() == Unavailable("missing", f"{what}: not recorded")


def test_capture_files_errors(fixtures_dir: Path) -> None:
    with pytest.raises(ValueError, match="two rings captures"):
        capture_files(fixtures_dir, "virtio_net-guest-on-bhyve-viona_eth0_ring_-g_")
    with pytest.raises(FileNotFoundError):
        fake_for(fixtures_dir, "no-such-device_")
    # the ethtool/ directory itself is accepted too
    assert set(capture_files(fixtures_dir / "ethtool", "netutils_virtio_net_eth0_")) == {
        "driver",
        "rings",
    }


def test_fake_refusals_become_unavailable(fixtures_dir: Path) -> None:
    # What ethtool 6.1 prints for devices without these (seen on `lo`).
    driver = _read(fixtures_dir, "netutils_ixgbe-82599_eth2_-i.txt")
    eth = FakeEthtool(
        {
            "driver": driver,
            "rings": "netlink error: Operation not supported\n",
            "coalesce": "Coalesce parameters for eth2:\n"
            "Cannot get device coalesce settings: Operation not supported\n",
            "stats": "no stats available\n",
            "pause": "netlink error: Operation not permitted\n",
        }
    )
    assert eth.ifname == "eth2"  # from the coalesce header
    assert eth.rings() == Unavailable("unsupported", "rings: not supported by ixgbe")
    assert eth.coalesce() == Unavailable("unsupported", "coalesce: not supported by ixgbe")
    assert eth.stats() == Unavailable("unsupported", "stats: not supported by ixgbe")
    assert eth.pause() == Unavailable("permission", "pause: needs root")
    lo = FakeEthtool(
        {"driver": "Cannot get driver information: Operation not supported\n"}, ifname="lo"
    )
    assert lo.driver_info() == Unavailable("unsupported", "driver info: not supported by lo")


def test_fake_from_parsed_values(fixtures_dir: Path) -> None:
    rings = parse_rings(_read(fixtures_dir, "netutils_qlcnic_eth0_-g.txt"))
    gone = Unavailable("missing", "channels: not present")
    eth = FakeEthtool(
        {"rings": rings, "channels": gone, "pause": Pause(True, True, False), "stats": ()}
    )
    assert eth.ifname == "fake0"
    assert eth.rings() is rings
    assert eth.channels() is gone
    assert eth.pause() == Pause(True, True, False)
    assert eth.stats() == ()
    assert eth.driver_info() == Unavailable("missing", "driver info: not recorded")
    with pytest.raises(ValueError, match="unknown capture kinds"):
        FakeEthtool({"ring": rings})
    with pytest.raises(TypeError, match="rings capture must be"):
        FakeEthtool({"rings": Pause(True, True, True)})
    with pytest.raises(ValueError, match="not `ethtool -g` output"):
        FakeEthtool({"rings": _read(fixtures_dir, "netutils_qlcnic_eth0_-i.txt")})
