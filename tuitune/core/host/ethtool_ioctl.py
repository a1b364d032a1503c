"""The SIOCETHTOOL ioctl: struct layouts from <linux/ethtool.h> and the raw calls.

Every layout is declared field by field and packed with "=" (native byte order, standard sizes,
no implicit padding). That is exact because each of these structs is made of naturally aligned
u32/u64 fields and byte arrays whose lengths keep the next field aligned, so the C compiler adds
no padding on x86_64 or arm64. tests/unit/core/host/test_ethtool_structs.py compiles the real
header and checks every size and offset.
"""

from __future__ import annotations

import ctypes
import fcntl
import socket
import struct

SIOCETHTOOL = 0x8946
IFNAMSIZ = 16
ETH_GSTRING_LEN = 32

ETHTOOL_GDRVINFO = 0x03
ETHTOOL_GCOALESCE = 0x0E
ETHTOOL_SCOALESCE = 0x0F
ETHTOOL_GRINGPARAM = 0x10
ETHTOOL_SRINGPARAM = 0x11
ETHTOOL_GPAUSEPARAM = 0x12
ETHTOOL_SPAUSEPARAM = 0x13
ETHTOOL_GSTRINGS = 0x1B
ETHTOOL_GSTATS = 0x1D
ETHTOOL_GSSET_INFO = 0x37
ETHTOOL_GFEATURES = 0x3A
ETHTOOL_SFEATURES = 0x3B
ETHTOOL_GCHANNELS = 0x3C
ETHTOOL_SCHANNELS = 0x3D

ETH_SS_STATS = 1
ETH_SS_PRIV_FLAGS = 2
ETH_SS_FEATURES = 4

# Bits of the (non-negative) return value of ETHTOOL_SFEATURES.
ETHTOOL_F_UNSUPPORTED = 1 << 0
ETHTOOL_F_WISH = 1 << 1
ETHTOOL_F_COMPAT = 1 << 2

Fields = tuple[tuple[str, str], ...]  # (C field name, struct format code)


def _struct(fields: Fields) -> struct.Struct:
    return struct.Struct("=" + "".join(code for _, code in fields))


DRVINFO_FIELDS: Fields = (
    ("cmd", "I"),
    ("driver", "32s"),
    ("version", "32s"),
    ("fw_version", "32s"),
    ("bus_info", "32s"),
    ("erom_version", "32s"),
    ("reserved2", "12s"),
    ("n_priv_flags", "I"),
    ("n_stats", "I"),
    ("testinfo_len", "I"),
    ("eedump_len", "I"),
    ("regdump_len", "I"),
)
RINGPARAM_FIELDS: Fields = (
    ("cmd", "I"),
    ("rx_max_pending", "I"),
    ("rx_mini_max_pending", "I"),
    ("rx_jumbo_max_pending", "I"),
    ("tx_max_pending", "I"),
    ("rx_pending", "I"),
    ("rx_mini_pending", "I"),
    ("rx_jumbo_pending", "I"),
    ("tx_pending", "I"),
)
CHANNELS_FIELDS: Fields = (
    ("cmd", "I"),
    ("max_rx", "I"),
    ("max_tx", "I"),
    ("max_other", "I"),
    ("max_combined", "I"),
    ("rx_count", "I"),
    ("tx_count", "I"),
    ("other_count", "I"),
    ("combined_count", "I"),
)
PAUSEPARAM_FIELDS: Fields = (
    ("cmd", "I"),
    ("autoneg", "I"),
    ("rx_pause", "I"),
    ("tx_pause", "I"),
)
# struct ethtool_coalesce: cmd, then 22 u32 in this order. The second item is the name
# `ethtool -C` takes for the field (also used for the netlink attributes).
COALESCE_IOCTL_NAMES: tuple[tuple[str, str], ...] = (
    ("rx_coalesce_usecs", "rx-usecs"),
    ("rx_max_coalesced_frames", "rx-frames"),
    ("rx_coalesce_usecs_irq", "rx-usecs-irq"),
    ("rx_max_coalesced_frames_irq", "rx-frames-irq"),
    ("tx_coalesce_usecs", "tx-usecs"),
    ("tx_max_coalesced_frames", "tx-frames"),
    ("tx_coalesce_usecs_irq", "tx-usecs-irq"),
    ("tx_max_coalesced_frames_irq", "tx-frames-irq"),
    ("stats_block_coalesce_usecs", "stats-block-usecs"),
    ("use_adaptive_rx_coalesce", "adaptive-rx"),
    ("use_adaptive_tx_coalesce", "adaptive-tx"),
    ("pkt_rate_low", "pkt-rate-low"),
    ("rx_coalesce_usecs_low", "rx-usecs-low"),
    ("rx_max_coalesced_frames_low", "rx-frames-low"),
    ("tx_coalesce_usecs_low", "tx-usecs-low"),
    ("tx_max_coalesced_frames_low", "tx-frames-low"),
    ("pkt_rate_high", "pkt-rate-high"),
    ("rx_coalesce_usecs_high", "rx-usecs-high"),
    ("rx_max_coalesced_frames_high", "rx-frames-high"),
    ("tx_coalesce_usecs_high", "tx-usecs-high"),
    ("tx_max_coalesced_frames_high", "tx-frames-high"),
    ("rate_sample_interval", "sample-interval"),
)
COALESCE_FIELDS: Fields = (("cmd", "I"), *((c, "I") for c, _ in COALESCE_IOCTL_NAMES))

# Headers of the variable-length structs; their arrays follow immediately.
GSTRINGS_FIELDS: Fields = (("cmd", "I"), ("string_set", "I"), ("len", "I"))
SSET_INFO_FIELDS: Fields = (("cmd", "I"), ("reserved", "I"), ("sset_mask", "Q"))
GFEATURES_FIELDS: Fields = (("cmd", "I"), ("size", "I"))
GET_FEATURES_BLOCK_FIELDS: Fields = (
    ("available", "I"),
    ("requested", "I"),
    ("active", "I"),
    ("never_changed", "I"),
)
SFEATURES_FIELDS: Fields = (("cmd", "I"), ("size", "I"))
SET_FEATURES_BLOCK_FIELDS: Fields = (("valid", "I"), ("requested", "I"))
STATS_FIELDS: Fields = (("cmd", "I"), ("n_stats", "I"))

DRVINFO = _struct(DRVINFO_FIELDS)
RINGPARAM = _struct(RINGPARAM_FIELDS)
CHANNELS = _struct(CHANNELS_FIELDS)
PAUSEPARAM = _struct(PAUSEPARAM_FIELDS)
COALESCE = _struct(COALESCE_FIELDS)
GSTRINGS = _struct(GSTRINGS_FIELDS)
SSET_INFO = _struct(SSET_INFO_FIELDS)
GFEATURES = _struct(GFEATURES_FIELDS)
GET_FEATURES_BLOCK = _struct(GET_FEATURES_BLOCK_FIELDS)
SFEATURES = _struct(SFEATURES_FIELDS)
SET_FEATURES_BLOCK = _struct(SET_FEATURES_BLOCK_FIELDS)
STATS = _struct(STATS_FIELDS)

# struct ifreq: the name, then (in the union) the pointer to the ethtool struct. Padded to the
# 40 bytes of the 64-bit union; the kernel copies only sizeof(struct ifreq).
_IFREQ = struct.Struct("@16sP")
_IFREQ_SIZE = 40


# GSTRINGS and GSTATS write as many entries as the driver has *at the time of the call*, not
# as many as we asked for: if the count grows between GSSET_INFO and the read (someone runs
# `ethtool -L` meanwhile) the kernel writes past the buffer. Spare room makes that harmless.
def _with_slack(count: int) -> int:
    return 2 * count + 64


def decode_cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def decode_strings(data: bytes, count: int) -> tuple[str, ...]:
    """The `count` NUL-padded ETH_GSTRING_LEN strings of an ethtool_gstrings array."""
    step = ETH_GSTRING_LEN
    return tuple(decode_cstr(data[i * step : (i + 1) * step]) for i in range(count))


def join_blocks(words: tuple[int, ...]) -> int:
    """u32 words (least significant first) as one bit mask: bit i is feature i."""
    mask = 0
    for i, word in enumerate(words):
        mask |= word << (32 * i)
    return mask


def split_mask(mask: int, words: int) -> tuple[int, ...]:
    return tuple((mask >> (32 * i)) & 0xFFFFFFFF for i in range(words))


def pack_sfeatures(words: int, valid: int, requested: int) -> bytes:
    """struct ethtool_sfeatures with `words` blocks; bits of `requested` outside `valid` dropped."""
    out = bytearray(SFEATURES.pack(ETHTOOL_SFEATURES, words))
    for v, r in zip(split_mask(valid, words), split_mask(requested & valid, words), strict=True):
        out += SET_FEATURES_BLOCK.pack(v, r)
    return bytes(out)


def unpack_gfeatures(data: bytes, words: int) -> tuple[int, int, int, int]:
    """(available, requested, active, never_changed) masks from an ethtool_gfeatures reply."""
    blocks = [
        GET_FEATURES_BLOCK.unpack_from(data, GFEATURES.size + i * GET_FEATURES_BLOCK.size)
        for i in range(words)
    ]
    avail, req, act, never = (join_blocks(tuple(b[k] for b in blocks)) for k in range(4))
    return avail, req, act, never


def check_ifname(ifname: str) -> bytes:
    raw = ifname.encode()
    # A longer name would be cut to 15 bytes by the kernel and could name another device.
    if not raw or len(raw) >= IFNAMSIZ or b"\0" in raw or b"/" in raw:
        raise ValueError(f"invalid interface name {ifname!r}")
    return raw


class EthtoolIoctl:
    """SIOCETHTOOL calls for one interface on one lazily opened socket.

    The socket belongs to the network namespace of the thread that first uses it. Raises
    OSError with the kernel's errno; the caller turns that into a state.
    """

    def __init__(self, ifname: str) -> None:
        self._name = check_ifname(ifname)
        self._sock: socket.socket | None = None

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def call(self, buf: ctypes.Array[ctypes.c_char]) -> int:
        """Run the command whose struct is in `buf`; the kernel writes its answer into `buf`."""
        if self._sock is None:
            self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 0)
        ifr = bytearray(_IFREQ_SIZE)
        _IFREQ.pack_into(ifr, 0, self._name, ctypes.addressof(buf))
        ret: int = fcntl.ioctl(self._sock.fileno(), SIOCETHTOOL, ifr, True)
        return ret

    def get(self, layout: struct.Struct, cmd: int) -> tuple[int | bytes, ...]:
        """A fixed-size get command: returns the unpacked struct (cmd first)."""
        buf = ctypes.create_string_buffer(layout.size)
        struct.pack_into("=I", buf, 0, cmd)
        self.call(buf)
        return layout.unpack(buf.raw)

    def set(self, layout: struct.Struct, values: tuple[int, ...]) -> int:
        buf = ctypes.create_string_buffer(layout.pack(*values), layout.size)
        return self.call(buf)

    def sset_count(self, sset: int) -> int | None:
        """Number of strings in string set `sset`, or None when the device has no such set."""
        buf = ctypes.create_string_buffer(SSET_INFO.size + 4)
        SSET_INFO.pack_into(buf, 0, ETHTOOL_GSSET_INFO, 0, 1 << sset)
        self.call(buf)
        _, _, mask = SSET_INFO.unpack_from(buf.raw)
        if not mask & (1 << sset):
            return None
        count: int = struct.unpack_from("=I", buf.raw, SSET_INFO.size)[0]
        return count

    def strings_raw(self, sset: int, count: int) -> bytes:
        """The raw string array of `sset` (length = strings the kernel wrote x 32)."""
        buf = ctypes.create_string_buffer(GSTRINGS.size + _with_slack(count) * ETH_GSTRING_LEN)
        GSTRINGS.pack_into(buf, 0, ETHTOOL_GSTRINGS, sset, count)
        self.call(buf)
        n = GSTRINGS.unpack_from(buf.raw)[2]
        return buf.raw[GSTRINGS.size : GSTRINGS.size + n * ETH_GSTRING_LEN]

    def gfeatures(self, words: int) -> tuple[bytes, int]:
        """Raw feature blocks (`words` of them) and the number the kernel says it needs."""
        buf = ctypes.create_string_buffer(GFEATURES.size + words * GET_FEATURES_BLOCK.size)
        GFEATURES.pack_into(buf, 0, ETHTOOL_GFEATURES, words)
        self.call(buf)
        needed: int = GFEATURES.unpack_from(buf.raw)[1]
        return buf.raw, needed

    def sfeatures(self, words: int, valid: int, requested: int) -> int:
        """ETHTOOL_SFEATURES; returns the ETHTOOL_F_* bits the kernel answered with."""
        data = pack_sfeatures(words, valid, requested)
        return self.call(ctypes.create_string_buffer(data, len(data)))

    def gstats(self, count: int) -> tuple[int, ...]:
        buf = ctypes.create_string_buffer(STATS.size + _with_slack(count) * 8)
        STATS.pack_into(buf, 0, ETHTOOL_GSTATS, count)
        self.call(buf)
        n = STATS.unpack_from(buf.raw)[1]
        return struct.unpack_from(f"={n}Q", buf.raw, STATS.size)
