"""The RSS indirection table as one journaled setting (issue 33): read with ETHTOOL_GRSSH,
written with ETHTOOL_SRSSH through the device's ethtool handle (core/host/rss_spec.py).

The value is rss_spec's ("default", "equal 2", "table 0*64 1*64"): the whole table, so the
original is restored slot for slot, and "default" is put back as the kernel's reset, which
follows later channel changes again. Key and hash function are left as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tuitune.core.host.rss import RssTable, read_rss, table_value
from tuitune.core.host.rss_spec import (
    RssSpecError,
    indir_of,
    parse_rss,
    weight_fill,
    write_indir,
)
from tuitune.core.session.kinds.base import NOT_RECORDED, Family, Form, GroupRead, WriteRefused
from tuitune.core.session.outcome import Effect
from tuitune.core.session.settings import Key
from tuitune.core.session.validate import InvalidValue
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.access import HostAccess


def _table(acc: HostAccess, key: Key) -> tuple[Any, RssTable] | Unavailable:
    """(the ioctl handle, the table now) or why there is none."""
    et = acc._eth(key.ifname or "")
    io = getattr(et, "ioctl", None)
    if et is None or io is None:
        return NOT_RECORDED
    driver = getattr(et, "driver_label", None) or "this driver"
    try:
        table = read_rss(io)
    except OSError as exc:
        why = f"RSS table: not supported by {driver} ({exc.strerror or exc})"
        return Unavailable("unsupported", why)
    if not table.indir:
        return Unavailable("unsupported", f"RSS table: {driver} reports none")
    return io, table


def _rings(t: RssTable) -> int:
    return t.rings or (max(t.indir) + 1)


def _defaults(size: int, rings: int) -> tuple[tuple[int, ...], ...]:
    """The tables drivers fill by default: slot i -> i % rings (ethtool's core, mlx5, ixgbe,
    virtio) or equal contiguous blocks (igb)."""
    return (tuple(i % rings for i in range(size)), tuple(weight_fill([1] * rings, size)))


class RssIndirection(Family):
    value_form: Form = "text"

    def read(self, acc: HostAccess, key: Key) -> GroupRead:
        got = _table(acc, key)
        if isinstance(got, Unavailable):
            return got
        _, t = got
        return {key: table_value(t.indir, t.rings)}

    def validate(self, acc: HostAccess, key: Key, text: str) -> str:
        got = _table(acc, key)
        if isinstance(got, Unavailable):
            raise WriteRefused(key, got)
        _, t = got
        try:
            return parse_rss(text if isinstance(text, str) else "", len(t.indir), _rings(t))
        except RssSpecError as exc:
            raise InvalidValue(key, f"{key.label}: {exc}") from None

    def write(self, acc: HostAccess, key: Key, value: str) -> tuple[Effect, ...]:
        got = _table(acc, key)
        if isinstance(got, Unavailable):
            raise WriteRefused(key, got)
        io, t = got
        try:
            indir = indir_of(value, len(t.indir), _rings(t))
        except RssSpecError as exc:
            # An original taken before a channel change may name a queue that is gone.
            raise WriteRefused(key, Unavailable("error", f"{key.label}: {exc}")) from None
        if indir is None or indir in _defaults(len(t.indir), _rings(t)):
            # Try the driver's own default first: where it gives these slots, the table is
            # left unconfigured, as the kernel had it (it follows later channel changes).
            write_indir(io, None)
            if indir is None or read_rss(io).indir == indir:
                return ()
        write_indir(io, indir)
        return ()

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} RSS table"
