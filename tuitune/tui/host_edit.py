"""What `e` on a Host view row changes (issue 32): the row's `edit` and the typed text as one
setting Key and its value, or a one-line reason nothing is changed. Pure (no Textual), so
every message is tested without a terminal; the journal validates the value itself."""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.platformview import Row
from tuitune.core.session import Key

HINTS = {
    "smt": "on or off (off takes each core's sibling threads offline; on trial)",
    "fec": "FEC modes: auto, off, rs, baser, llrs (one or more, as ethtool --set-fec takes)",
    "priv_flag": "a private flag and on or off, e.g. legacy-rx on",
    "module_param": "a writable parameter (marked *) and its value, e.g. InterruptThrottleRate 3",
}


@dataclass(frozen=True, slots=True)
class HostEdit:
    edit: str  # the row's `edit`
    label: str
    current: str  # what the editor starts from
    hint: str


def host_edit(row: Row, ifname: str | None, module: str | None) -> HostEdit | str:
    """How to edit `row`, or why it cannot be edited."""
    if row.edit is None and (row.label in ("FEC", "private flags", "SMT") or "params" in row.label):
        return f"{row.label}: cannot be changed here ({row.value})"
    if row.edit is None:
        return f"{row.label}: nothing to change here (e on SMT, FEC, private flags, module params)"
    if row.edit in ("fec", "priv_flag") and not ifname:
        return f"{row.label}: no interface"
    if row.edit == "module_param" and not module:
        return f"{row.label}: no module"
    current = ""
    if row.edit == "fec":
        current = row.value.rsplit("(configured ", 1)[-1].rstrip(")")
    elif row.edit == "smt":
        current = row.value.split(",", 1)[0]
    return HostEdit(row.edit, row.label, current, HINTS[row.edit])


def parse_host_edit(
    edit: str, ifname: str | None, module: str | None, text: str
) -> tuple[Key, str] | str:
    """(key, value) for what was typed, or a one-line reason (nothing is written then)."""
    words = text.split()
    if edit == "fec":
        return Key.fec(ifname or ""), text
    if edit == "smt":
        return Key.smt(), text
    if len(words) != 2:
        return f"type two words: {HINTS[edit]}"
    name, value = words
    if edit == "priv_flag":
        return Key.priv_flag(ifname or "", name), value
    return Key.module_param(module or "", name), value
