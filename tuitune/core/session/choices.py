"""Sysctls whose value is one name from a list: what the list is on this host, and what to say
beside it. The TUI offers these as a list to pick from instead of a text field.

- net.ipv4.tcp_congestion_control: the names in tcp_available_congestion_control (what is
  built in or loaded; inside a namespace only those also in tcp_allowed_congestion_control,
  the only ones the kernel accepts there), with tcp_allowed_congestion_control (what
  programs without CAP_NET_ADMIN may pick) and how a module such as bbr gets into the list.
- net.core.default_qdisc: the kernel lists its qdiscs nowhere in /proc or /sys, so the list is
  the classless qdiscs that work without parameters, plus the current value.
"""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core import catalog
from tuitune.core.host.sysctl import read_sysctl
from tuitune.core.session.access import HostAccess
from tuitune.core.session.kinds.sysctl import accepted_choices
from tuitune.core.session.settings import Key

ALLOWED_CC = "net.ipv4.tcp_allowed_congestion_control"
QDISCS = ("fq", "fq_codel", "cake", "pfifo_fast", "sfq", "codel", "fq_pie", "pie", "pfifo")


@dataclass(frozen=True, slots=True)
class Choices:
    options: tuple[str, ...]  # in the kernel's order; the current value is among them
    current: str | None
    note: str  # shown under the list


def has_choices(key: Key) -> bool:
    """Whether `key` is edited by picking from a list."""
    if key.kind != "sysctl":
        return False
    if key.name == "net.core.default_qdisc":
        return True
    try:
        return catalog.entry(key.name).choices_key is not None
    except KeyError:
        return False


def sysctl_choices(access: HostAccess, key: Key) -> Choices | str:
    """The list for `key` on `access`'s host, or why there is none (a line for the user)."""
    return access.run(_read, access, key)


def _read(access: HostAccess, key: Key) -> Choices | str:
    root = access.root
    now = read_sysctl(root, key.name)
    current = " ".join(now.split()) if isinstance(now, str) else None
    if key.name == "net.core.default_qdisc":
        options = tuple(dict.fromkeys([*([current] if current else []), *QDISCS]))
        note = (
            "The kernel loads module sch_NAME when a name is not built in; a name it cannot "
            "load is refused. Only interfaces created (or whose root qdisc is reset) after the "
            "change get it."
        )
        return Choices(options, current, note)
    entry = catalog.entry(key.name)
    if entry.choices_key is None:
        return f"{key.name}: not a list of names"
    listed = read_sysctl(root, entry.choices_key)
    if not isinstance(listed, str):
        return f"{key.name}: cannot read {entry.choices_key}: {listed.reason}"
    # What the kernel accepts here: inside a namespace, not every loaded algorithm.
    options = accepted_choices(root, entry) or ()
    if current and current not in options:
        options = (current, *options)
    note = ""
    if key.name == "net.ipv4.tcp_congestion_control":
        allowed = read_sysctl(root, ALLOWED_CC)
        note = (
            "Only what is built in or loaded is listed: load a module to add one "
            "(modprobe tcp_bbr adds bbr; r re-reads)."
        )
        if isinstance(allowed, str) and root.netns is not None:
            left = [n for n in catalog.split_choices(listed) if n not in options]
            note += (
                f" In namespace {root.netns} the kernel accepts only "
                f"tcp_allowed_congestion_control: {' '.join(allowed.split()) or 'none'}"
                + (f" ({', '.join(left)} loaded but refused here)." if left else ".")
            )
        elif isinstance(allowed, str):
            note += (
                " Programs without CAP_NET_ADMIN may pick only from "
                f"tcp_allowed_congestion_control: {' '.join(allowed.split()) or 'none'}."
            )
    return Choices(tuple(options), current, note)
