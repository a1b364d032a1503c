"""Every additional RSS context of an interface, listed by the ethtool netlink RSS_GET dump.

The SIOCETHTOOL ioctl reads a context only by its number, and has no list: a context no ntuple
rule names is invisible to it. Linux 6.12 added a dump of RSS_GET that walks the device's
contexts (net/ethtool/rss.c: ethnl_rss_dump_start/ethnl_rss_dumpit; filtered by the request's
header device; ETHTOOL_A_RSS_START_CONTEXT 1 skips context 0). Before it, RSS_GET is a doit
only (6.2-6.11) or absent (6.1, the VM bench's Debian kernel): the kernel refuses the dump with
EOPNOTSUPP, and tuitune says it cannot list them.

Attribute numbers: include/uapi/linux/ethtool_netlink(_generated).h, ETHTOOL_A_RSS_* and the
ETHTOOL_MSG_* enums (RSS_GET is 38 both ways; checked against this machine's 6.18 family
listing, where op 38 has do and dump).
"""

from __future__ import annotations

import errno
import struct
from collections.abc import Iterable

from tuitune.core.host.ethtool_netlink import ETHTOOL_A_HEADER_DEV_NAME, NLA_F_NESTED
from tuitune.core.host.nlmsg import iter_attrs, pack_attr
from tuitune.core.host.rss import MAX_CONTEXTS, MAX_KEY, MAX_SLOTS, RssTable, hfunc_name

ETHTOOL_MSG_RSS_GET = 38  # and ETHTOOL_MSG_RSS_GET_REPLY
ETHTOOL_A_HEADER_DEV_INDEX = 1
ETHTOOL_A_RSS_HEADER = 1
ETHTOOL_A_RSS_CONTEXT = 2  # u32, only in replies for a context other than 0
ETHTOOL_A_RSS_HFUNC = 3  # u32, ETH_RSS_HASH_* bits (as the ioctl's hfunc)
ETHTOOL_A_RSS_INDIR = 4  # u32 per slot
ETHTOOL_A_RSS_HKEY = 5  # the key bytes
ETHTOOL_A_RSS_START_CONTEXT = 7  # u32, dump requests only (6.12+)

# Why the list is incomplete, in the user's words (show, the NIC panel, show --json).
CANNOT_LIST = (
    "RSS contexts: this kernel cannot list them (the netlink RSS_GET dump is Linux 6.12+);"
    " only those an ntuple rule names are read"
)


def dump_request(ifname: str) -> bytes:
    """The genl payload's attributes of the dump: this device's contexts from 1 on."""
    dev = pack_attr(ETHTOOL_A_HEADER_DEV_NAME, ifname.encode() + b"\0")
    return pack_attr(ETHTOOL_A_RSS_HEADER | NLA_F_NESTED, dev) + pack_attr(
        ETHTOOL_A_RSS_START_CONTEXT, struct.pack("=I", 1)
    )


def decode_contexts(
    replies: Iterable[bytes], ifname: str, rings: int | None
) -> dict[int, RssTable]:
    """Context id -> its table, from RSS_GET_REPLY payloads (after the genl header). A reply
    of another device, or without a context number (context 0), is skipped; a malformed
    table is cut to whole slots. At most MAX_CONTEXTS are kept."""
    out: dict[int, RssTable] = {}
    for reply in replies:
        ctx, name, indir, key, hfunc = 0, None, (), b"", 0
        for atype, payload in iter_attrs(reply):
            if atype == ETHTOOL_A_RSS_HEADER:
                for htype, hval in iter_attrs(payload):
                    if htype == ETHTOOL_A_HEADER_DEV_NAME:
                        name = hval.split(b"\0", 1)[0].decode("utf-8", "replace")
            elif atype == ETHTOOL_A_RSS_CONTEXT and len(payload) >= 4:
                ctx = struct.unpack_from("=I", payload)[0]
            elif atype == ETHTOOL_A_RSS_INDIR:
                n = min(len(payload) // 4, MAX_SLOTS)
                indir = struct.unpack_from(f"={n}I", payload)
            elif atype == ETHTOOL_A_RSS_HKEY:
                key = payload[:MAX_KEY]
            elif atype == ETHTOOL_A_RSS_HFUNC and len(payload) >= 4:
                hfunc = struct.unpack_from("=I", payload)[0]
        if ctx and name == ifname and len(out) < MAX_CONTEXTS:
            out[ctx] = RssTable(tuple(indir), key, hfunc_name(hfunc), rings)
    return out


def list_contexts(ifname: str, rings: int | None) -> dict[int, RssTable]:
    """Every additional context of `ifname`, by id (empty: it has none). OSError: the kernel
    cannot list them (EOPNOTSUPP before 6.12, ENOENT without ethtool netlink)."""
    from tuitune.core.host.ethtool_netlink import ETHTOOL_GENL_VERSION, EthtoolNetlink

    nl = EthtoolNetlink(ifname)
    try:
        replies = nl.dump(nl.family(), ETHTOOL_MSG_RSS_GET, ETHTOOL_GENL_VERSION,
                          dump_request(ifname))  # fmt: skip
    finally:
        nl.close()
    return decode_contexts(replies, ifname, rings)


def listing_refused(exc: OSError) -> str:
    """The reason shown for a kernel that would not list the contexts."""
    if exc.errno in (errno.EOPNOTSUPP, errno.ENOENT, errno.EINVAL):
        return CANNOT_LIST  # no dump (6.2-6.11), no RSS_GET (6.1), no family, no START_CONTEXT
    return f"RSS contexts: not listed ({exc.strerror or exc}); only those an ntuple rule names"
