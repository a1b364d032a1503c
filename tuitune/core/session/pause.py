"""Why a pause (flow control) write did not take, in words the user can act on.

With pause autoneg on, rx/tx pause is negotiated: the driver advertises what was asked and
reports what the link partner agreed to (e1000e, igb, ixgbe report the negotiated state), so
"rx off" can read back "on" although the write was accepted. Forcing it needs autoneg off.
"""

from __future__ import annotations

from collections.abc import Mapping

from tuitune.core.session.settings import Key

PARTNER_DECIDES = (
    "with pause autoneg on, the link partner decides rx/tx pause: turn pause autoneg off to "
    "force it"
)


def autoneg_key(key: Key) -> Key | None:
    """The pause autoneg of `key`'s device when `key` is a negotiated pause field (rx, tx)."""
    if key.kind != "pause" or key.name not in ("rx", "tx") or key.ifname is None:
        return None
    return Key.field(key.ifname, "pause", "autoneg")


def partner_note(key: Key, values: Mapping[Key, str | None]) -> str:
    """The note above (after "; ") when `key` is rx/tx pause and autoneg is on in `values`
    (the device's pause group as read before the write), else an empty string."""
    auto = autoneg_key(key)
    return f"; {PARTNER_DECIDES}" if auto is not None and values.get(auto) == "on" else ""
