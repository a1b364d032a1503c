"""RSS read: real `ethtool -x` captures, and the ioctl path against a fake kernel that answers
ETHTOOL_GRSSH / GRXRINGS / GRXFH with a captured table."""

from __future__ import annotations

import ctypes
import errno
import struct
from pathlib import Path

import pytest

from tuitune.core.host.ethtool_ioctl import EthtoolIoctl
from tuitune.core.host.rss import (
    ETHTOOL_GRSSH,
    ETHTOOL_GRXFH,
    ETHTOOL_GRXRINGS,
    RssTable,
    hash_fields,
    parse_ethtool_x,
    read_state,
    table_vs_traffic,
)

CAPTURES = Path(__file__).parents[3] / "fixtures" / "captures" / "ethtool_x"


def capture(name: str) -> RssTable:
    return parse_ethtool_x((CAPTURES / name).read_text())


def test_igb_table_spreads_eight_rings_equally() -> None:
    t = capture("igb_em1_32cpu_rxfh_-x.txt")
    assert len(t.indir) == 128 and t.rings == 8
    assert t.slots_per_queue() == {q: 16 for q in range(8)}
    assert t.uncovered() == ()


def test_sfc_table_after_a_channel_change_sends_everything_to_queue_0() -> None:
    t = capture("sfc_enp2s0f0_-x_4rings_zeros_onload208.txt")
    assert t.rings == 4 and t.hfunc == "toeplitz" and t.key == bytes(40)
    assert set(t.indir) == {0}  # the lines shown; the reporter elided slots 24-119
    assert t.uncovered() == (1, 2, 3)


def test_share_of_table_beside_share_of_packets() -> None:
    t = capture("igb_em1_32cpu_rxfh_-x.txt")
    rows = table_vs_traffic(t, {0: 900.0, 1: 100.0})
    assert rows[0] == (0, 0.125, 0.9) and rows[1] == (1, 0.125, 0.1)
    assert rows[7] == (7, 0.125, 0.0)


@pytest.mark.parametrize(
    ("bits", "letters"), [(0x30, "sd"), (0xF0, "sdfn"), (0x38, "tsd"), (0, "")]
)
def test_hash_fields_as_ethtool_spells_them(bits: int, letters: str) -> None:
    assert hash_fields(bits) == letters


class FakeKernel(EthtoolIoctl):
    """Answers like a driver holding `table` (struct layouts of <linux/ethtool.h>)."""

    def __init__(self, table: RssTable, flow: dict[int, int], rss: bool = True) -> None:
        super().__init__("fake0")
        self.table, self.flow, self.rss = table, flow, rss

    def call(self, buf: ctypes.Array[ctypes.c_char]) -> int:
        cmd = struct.unpack_from("=I", buf.raw)[0]
        if cmd == ETHTOOL_GRSSH:
            if not self.rss:
                raise OSError(errno.EOPNOTSUPP, "Operation not supported")
            n_indir, n_key = struct.unpack_from("=II", buf.raw, 8)
            t = self.table
            struct.pack_into("=IIB", buf, 8, len(t.indir), len(t.key), 1)  # toeplitz
            if n_indir == len(t.indir) and n_key == len(t.key):
                struct.pack_into(f"={n_indir}I", buf, 24, *t.indir)
                ctypes.memmove(ctypes.addressof(buf) + 24 + 4 * n_indir, t.key, n_key)
            return 0
        if cmd == ETHTOOL_GRXRINGS:
            struct.pack_into("=Q", buf, 8, self.table.rings or 0)
            return 0
        if cmd == ETHTOOL_GRXFH:
            ft = struct.unpack_from("=I", buf.raw, 4)[0]
            if ft not in self.flow:
                raise OSError(errno.EINVAL, "Invalid argument")
            struct.pack_into("=Q", buf, 8, self.flow[ft])
            return 0
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")


def test_the_ioctl_path_reads_what_the_driver_holds() -> None:
    t = capture("sfc_enp2s0f0_-x_4rings_zeros_onload208.txt")
    st = read_state(FakeKernel(t, {0x01: 0xF0, 0x02: 0x30}), "sfc")
    assert st.table == RssTable(t.indir, t.key, "toeplitz", 4)
    assert st.flow_hash == {"tcp4": "sdfn", "udp4": "sd"}
    assert st.why is None


def test_no_rss_is_a_state_not_an_error() -> None:
    t = capture("igb_em1_32cpu_rxfh_-x.txt")
    st = read_state(FakeKernel(t, {}, rss=False), "veth")
    assert st.table is None and st.why is not None and "not supported by veth" in st.why
    assert st.flow_hash == {}
