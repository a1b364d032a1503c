"""Pure tests of the ethtool struct layouts and netlink encoding (no kernel calls)."""

from __future__ import annotations

import fnmatch
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tuitune.core.host import ethtool_ioctl as io
from tuitune.core.host import ethtool_netlink as nl
from tuitune.core.host import module_eeprom as sff
from tuitune.core.host.ethtool import (
    COALESCE_IOCTL_NAMES,
    LEGACY_FEATURE_ALIASES,
    Feature,
    requested_snapshot,
)

HEADER = Path("/usr/include/linux/ethtool.h")

# C struct name -> (our field list, name of the trailing flexible array or None)
LAYOUTS: dict[str, tuple[io.Fields, str | None]] = {
    "ethtool_drvinfo": (io.DRVINFO_FIELDS, None),
    "ethtool_ringparam": (io.RINGPARAM_FIELDS, None),
    "ethtool_channels": (io.CHANNELS_FIELDS, None),
    "ethtool_pauseparam": (io.PAUSEPARAM_FIELDS, None),
    "ethtool_coalesce": (io.COALESCE_FIELDS, None),
    "ethtool_gstrings": (io.GSTRINGS_FIELDS, "data"),
    "ethtool_sset_info": (io.SSET_INFO_FIELDS, "data"),
    "ethtool_gfeatures": (io.GFEATURES_FIELDS, "features"),
    "ethtool_get_features_block": (io.GET_FEATURES_BLOCK_FIELDS, None),
    "ethtool_sfeatures": (io.SFEATURES_FIELDS, "features"),
    "ethtool_set_features_block": (io.SET_FEATURES_BLOCK_FIELDS, None),
    "ethtool_stats": (io.STATS_FIELDS, "data"),
    "ethtool_modinfo": (sff.MODINFO_FIELDS, None),
    "ethtool_eeprom": (sff.EEPROM_FIELDS, "data"),
}


def _our_offsets(fields: io.Fields) -> list[int]:
    return [struct.calcsize("=" + "".join(c for _, c in fields[:i])) for i in range(len(fields))]


def test_layouts_match_the_kernel_header(tmp_path: Path) -> None:
    """Every size and field offset equals what the C compiler computes from <linux/ethtool.h>."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not HEADER.exists():
        pytest.skip("needs a C compiler and linux-libc-dev")
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <linux/ethtool.h>"]
    lines.append("int main(void) {")
    expected: list[int] = []
    for cname, (fields, flex) in LAYOUTS.items():
        names = [n for n, _ in fields] + ([flex] if flex else [])
        lines.append(f'printf("%zu\\n", sizeof(struct {cname}));')
        for name in names:
            lines.append(f'printf("%zu\\n", offsetof(struct {cname}, {name}));')
        size = struct.calcsize("=" + "".join(c for _, c in fields))
        expected += [size, *_our_offsets(fields)] + ([size] if flex else [])
    lines += ["return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run([cc, "-o", str(exe), str(src)], check=True, capture_output=True)
    got = [
        int(x)
        for x in subprocess.run(
            [str(exe)], check=True, capture_output=True, text=True
        ).stdout.split()
    ]
    assert got == expected


def test_known_sizes() -> None:
    # Independent of the compiler: the sizes from the header comments / arithmetic.
    assert io.DRVINFO.size == 196
    assert io.COALESCE.size == 4 * 23
    assert io.RINGPARAM.size == io.CHANNELS.size == 36
    assert io.PAUSEPARAM.size == 16
    assert io.SSET_INFO.size == 16
    assert len(COALESCE_IOCTL_NAMES) == 22


def test_decode_strings_stops_at_nul_and_keeps_empty_slots() -> None:
    raw = b"rx-gro".ljust(32, b"\0") + b"\0" * 32 + b"x" * 32
    assert io.decode_strings(raw, 3) == ("rx-gro", "", "x" * 32)


def test_masks_split_and_join() -> None:
    mask = (1 << 0) | (1 << 31) | (1 << 32) | (1 << 63)
    words = io.split_mask(mask, 2)
    assert words == (0x80000001, 0x80000001)
    assert io.join_blocks(words) == mask


def test_pack_sfeatures_keeps_requested_only_inside_valid() -> None:
    data = io.pack_sfeatures(2, valid=(1 << 3) | (1 << 40), requested=(1 << 3) | (1 << 5))
    cmd, size = io.SFEATURES.unpack_from(data)
    assert (cmd, size) == (io.ETHTOOL_SFEATURES, 2)
    blocks = [io.SET_FEATURES_BLOCK.unpack_from(data, 8 + 8 * i) for i in range(2)]
    assert blocks == [(1 << 3, 1 << 3), (1 << 8, 0)]
    assert len(data) == 8 + 16


def test_unpack_gfeatures() -> None:
    data = io.GFEATURES.pack(io.ETHTOOL_GFEATURES, 2)
    data += io.GET_FEATURES_BLOCK.pack(1, 2, 4, 8) + io.GET_FEATURES_BLOCK.pack(16, 32, 64, 128)
    avail, req, act, never = io.unpack_gfeatures(data, 2)
    assert avail == 1 | (16 << 32)
    assert req == 2 | (32 << 32)
    assert act == 4 | (64 << 32)
    assert never == 8 | (128 << 32)


@pytest.mark.parametrize("name", ["", "a" * 16, "a\0b", "a/b"])
def test_bad_interface_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError):
        io.check_ifname(name)


def test_fifteen_byte_name_is_fine() -> None:
    assert io.check_ifname("a" * 15) == b"a" * 15


def test_netlink_attrs_round_trip_with_padding() -> None:
    data = nl.pack_attr(2, b"abc") + nl.pack_attr(5 | nl.NLA_F_NESTED, nl.pack_attr(1, b"\x01"))
    assert len(data) == 8 + 4 + 8  # 3-byte payload padded to 4
    attrs = list(nl.iter_attrs(data))
    assert attrs[0] == (2, b"abc")
    assert attrs[1][0] == 5  # flag bits stripped
    assert list(nl.iter_attrs(attrs[1][1])) == [(1, b"\x01")]


def test_iter_attrs_stops_at_truncated_attr() -> None:
    data = nl.pack_attr(2, b"abcd")[:6]
    assert list(nl.iter_attrs(data)) == []


def test_parse_error_reads_extack_message() -> None:
    inner = struct.pack("=IHHII", 36, 20, 5, 7, 0)  # header of the refused request
    tlv = nl.pack_attr(nl.NLMSGERR_ATTR_MSG, b"requested channel count exceeds maximum\0")
    payload = struct.pack("=i", -22) + inner + tlv
    code, msg = nl.parse_error(payload, nl.NLM_F_CAPPED | nl.NLM_F_ACK_TLVS)
    assert code == 22
    assert msg == "requested channel count exceeds maximum"
    assert nl.parse_error(struct.pack("=i", 0) + inner, 0) == (0, None)


def test_decode_coalesce_keeps_order_flags_and_skips_unknown() -> None:
    attrs = [
        (nl.ETHTOOL_A_COALESCE_HEADER, b""),
        (12, b"\x01"),  # adaptive-tx, u8
        (3, struct.pack("=I", 64)),  # rx-frames
        (29, b"\x00" * 8),  # rx profile nest: not a parameter
        (2, struct.pack("=I", 8)),  # rx-usecs
        (99, struct.pack("=I", 1)),  # newer than our table
    ]
    got = nl.decode_coalesce(iter(attrs))
    assert got == (("rx-usecs", 8), ("rx-frames", 64), ("adaptive-tx", 1))


def test_encode_coalesce_sizes() -> None:
    data = nl.encode_coalesce({"rx-usecs": 50, "adaptive-rx": 1})
    assert list(nl.iter_attrs(data)) == [(2, struct.pack("=I", 50)), (11, b"\x01")]


def test_ioctl_coalesce_names_are_the_netlink_names_in_the_same_order() -> None:
    assert tuple(nl.COALESCE_ATTRS[a][0] for a in range(2, 24)) == COALESCE_IOCTL_NAMES


@pytest.mark.parametrize(
    ("alias", "member", "expected"),
    [
        ("tso", "tx-tcp6-segmentation", True),
        ("tso", "tx-tcp-mangleid-segmentation", True),
        ("tso", "tx-udp-segmentation", False),
        ("tx", "tx-checksum-ip-generic", True),
        ("tx", "tx-checksumming", False),  # the summary line, not a feature
        ("sg", "tx-scatter-gather-fraglist", True),
        ("gso", "tx-gso-list", False),
    ],
)
def test_legacy_alias_patterns(alias: str, member: str, expected: bool) -> None:
    assert fnmatch.fnmatchcase(member, LEGACY_FEATURE_ALIASES[alias]) is expected


def test_fixed_and_snapshot() -> None:
    feats = (
        Feature("a", 0, available=True, requested=False, active=True, never_changed=False),
        Feature("b", 1, available=False, requested=True, active=False, never_changed=False),
        Feature("c", 2, available=True, requested=True, active=True, never_changed=True),
    )
    assert [f.fixed for f in feats] == [False, True, True]
    assert requested_snapshot(feats) == {"a": False}
