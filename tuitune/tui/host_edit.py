"""What `e` on a Host view row changes (issue 32): the row's `edit` and the typed text as
setting Keys and their values, or a one-line reason nothing is changed. Pure (no Textual), so
every message is tested without a terminal; the journal validates each value itself.

CPU power rows act on the row's CPUs by default; a CPU list or `nic` (the NIC's NUMA-local
CPUs) as the first word picks others. A governor or EPP is a cpufreq policy's (every policy
covering one of those CPUs); a C-state's `disable` is each CPU's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.host.cpupower import IdleState
from tuitune.core.platformview import Row
from tuitune.core.session import Key
from tuitune.core.session.kinds.table import HANDLERS

# The rows whose kind's handler says how they are edited (`host_row`, kinds/edit.py).
_BY_ROW = {e.row: e for h in HANDLERS.values() if (e := h.host_row) is not None}
HINTS = {
    **{row: e.hint for row, e in _BY_ROW.items()},
    "cpu_freq": "governor NAME and/or epp NAME; first a CPU list or nic for other CPUs "
    "(nic governor performance)",
    "cstate": "NAME on|off pairs, e.g. C6 off; first a CPU list or nic for other CPUs",
    "cpu_boost": "on or off",
}
CPU_EDITS = ("cpu_freq", "cstate", "cpu_boost")
# The frame's rows that show a setting (core/platformview.py); a kind's own rows say so
# themselves (`Row.setting`).
_STATEFUL = ("private flags", "SMT", "CPU frequency", "C-states", "boost/turbo")


@dataclass(frozen=True, slots=True)
class HostEdit:
    edit: str  # the row's `edit`
    label: str
    current: str  # what the editor starts from
    hint: str
    shown: str = ""  # the editor's "now:" line, when it is not `current`
    cpus: frozenset[int] = frozenset()  # a CPU power row's CPUs


@dataclass(frozen=True, slots=True)
class CpuContext:
    """What a CPU power edit needs of the host, read with the platform (off the UI thread)."""

    policies: tuple[tuple[int, frozenset[int]], ...] = ()
    idle: Mapping[int, tuple[IdleState, ...]] | None = None  # each CPU's C-states
    nic_cpus: frozenset[int] | None = None
    boost_file: str | None = None


def host_edit(row: Row, ifname: str | None, module: str | None) -> HostEdit | str:
    """How to edit `row`, or why it cannot be edited."""
    if row.edit is None and (row.setting or row.label in _STATEFUL or "params" in row.label):
        return f"{row.label}: cannot be changed here ({row.value})"
    if row.edit is None:
        return (
            f"{row.label}: nothing to change here (e on CPU frequency, boost, C-states, SMT, "
            "FEC, private flags, module params)"
        )
    how = _BY_ROW.get(row.edit)
    current, shown = row.now, ""
    if how is not None:
        if how.needs == "interface" and not ifname:
            return f"{row.label}: no interface"
        if how.needs == "module" and not module:
            return f"{row.label}: no module"
        current, shown = how.start(row.value, row.now)
    elif row.edit in ("cpu_freq", "cstate"):
        shown = f"{row.now} (cpus {format_cpulist(row.cpus) or '-'})"
    return HostEdit(row.edit, row.label, current, HINTS[row.edit], shown, row.cpus)


def parse_host_edit(
    edit: str, ifname: str | None, module: str | None, text: str
) -> tuple[Key, str] | str:
    """(key, value) for what was typed, or a one-line reason (nothing is written then)."""
    how = _BY_ROW[edit]
    if not how.named:
        return how.key(ifname or "", module or "", ""), text
    words = text.split()
    if len(words) != 2:
        return f"type two words: {how.hint}"
    name, value = words
    return how.key(ifname or "", module or "", name), value


def _target(words: list[str], row_cpus: frozenset[int], ctx: CpuContext) -> frozenset[int] | str:
    """The CPUs an edit acts on; pops the first word when it names them."""
    if words and words[0].lower() == "nic":
        words.pop(0)
        if not ctx.nic_cpus:
            return "the NIC's local CPUs are not known here: give a CPU list"
        return ctx.nic_cpus
    if words and words[0][:1].isdigit():
        first = words.pop(0)
        try:
            return parse_cpulist(first)
        except CpuListError as exc:
            return f"{first[:32]!r}: {exc}"
    return row_cpus


def _pairs(words: list[str]) -> list[tuple[str, str]] | None:
    if not words or len(words) % 2:
        return None
    return list(zip(words[::2], words[1::2], strict=True))


def parse_cpu_edit(
    edit: str, row_cpus: frozenset[int], text: str, ctx: CpuContext
) -> list[tuple[Key, str]] | str:
    """The (key, value) pairs a CPU power edit asks for, or a one-line reason."""
    words = text.split()
    if edit == "cpu_boost":
        if ctx.boost_file is None:
            return "no boost control here (no cpufreq/boost, no intel_pstate/no_turbo)"
        if len(words) != 1:
            return f"type one word: {HINTS[edit]}"
        return [(Key.cpu_boost(ctx.boost_file), words[0])]
    cpus = _target(words, row_cpus, ctx)
    if isinstance(cpus, str):
        return cpus
    pairs = _pairs(words)
    if pairs is None:
        return f"type NAME VALUE pairs: {HINTS[edit]}"
    if edit == "cpu_freq":
        return _freq_keys(cpus, pairs, ctx)
    return _cstate_keys(cpus, pairs, ctx)


def _freq_keys(
    cpus: frozenset[int], pairs: list[tuple[str, str]], ctx: CpuContext
) -> list[tuple[Key, str]] | str:
    policies = [p for p, covered in ctx.policies if covered & cpus]
    if not policies:
        return f"no cpufreq policy covers CPUs {format_cpulist(cpus) or '-'}"
    out: list[tuple[Key, str]] = []
    for what, value in sorted(pairs, key=lambda pv: pv[0].lower() != "governor"):
        maker = {"governor": Key.cpu_governor, "epp": Key.cpu_epp}.get(what.lower())
        if maker is None:
            return f"{what[:32]!r}: say governor or epp"
        out += [(maker(p), value) for p in policies]
    return out


def _cstate_keys(
    cpus: frozenset[int], pairs: list[tuple[str, str]], ctx: CpuContext
) -> list[tuple[Key, str]] | str:
    idle = ctx.idle or {}
    out: list[tuple[Key, str]] = []
    for name, state in pairs:
        word = state.lower()
        if word not in ("on", "off", "enable", "disable", "enabled", "disabled"):
            return f"{name[:32]}: {state[:16]!r} is not on or off"
        disable = "1" if word in ("off", "disable", "disabled") else "0"
        for cpu in sorted(cpus):
            index = next(
                (s.index for s in idle.get(cpu, ()) if s.name.lower() == name.lower()), None
            )
            if index is None:
                return f"CPU {cpu} has no C-state {name[:32]!r}"
            out.append((Key.cstate_disable(cpu, index), disable))
    return out
