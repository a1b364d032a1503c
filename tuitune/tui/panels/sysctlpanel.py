"""Rows of the sysctl panel and the help text behind every row of every panel."""

from __future__ import annotations

from collections.abc import Sequence

from tuitune.core import catalog
from tuitune.core.catalog import Advice
from tuitune.core.catalog.device import DEVICE_HELP
from tuitune.core.catalog.sources import source
from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import SysctlValue
from tuitune.tui.look.palette import Palette
from tuitune.tui.panels.nicpanel import help_name
from tuitune.tui.panels.rowview import CellValue, Column, Row, RowsBuilder

COLUMNS = [
    Column("sysctl", 30),
    Column("value", 22),
    Column("scope", 5, drop=1),
    Column("what it does", 10, flex=True, drop=2),
]

_GROUPS = (
    ("net.core.", "core: socket buffers, backlog, busy polling"),
    ("net.ipv4.tcp", "TCP: windows, congestion control, timestamps"),
    ("net.", "other"),
)


def sysctl_rows(
    values: Sequence[SysctlValue], baseline: dict[str, str] | None, p: Palette
) -> list[Row]:
    b = RowsBuilder()
    by_key = {v.key: v for v in values}
    done: set[str] = set()
    for prefix, title in _GROUPS:
        members = [e for e in catalog.SYSCTLS if e.key.startswith(prefix) and e.key not in done]
        if not members:
            continue
        b.section(prefix, title)
        for e in members:
            done.add(e.key)
            v = by_key.get(e.key)
            raw = v.value if v is not None else Unavailable("missing", "not read")
            scope = "ns" if e.scope == "netns" else "host"
            value_cell: CellValue
            if isinstance(raw, Unavailable):
                value_cell = ((raw.reason.removeprefix(f"{e.key}: "), p.muted),)
            else:
                was = baseline.get(e.key) if baseline else None
                if was is not None and was != raw:
                    value_cell = ((f"{raw} (was {was})", p.changed),)
                else:
                    value_cell = ((raw, p.muted if v and v.note else None),)
            summary = e.summary + (f" [{v.note}]" if v and v.note else "")
            b.add(
                f"sysctl:{e.key}",
                e.key.removeprefix("net."),
                value_cell,
                scope,
                ((summary, p.muted),),
                search=f"{e.key} {summary}",
            )
    return b.rows


def _advice(a: Advice) -> str:
    src = source(a.source)
    where = "general" if a.context == "general" else f"{a.context} advice"
    value = f" [{a.value}]" if a.value else ""
    return f"- {src.citation}, {where}{value}: {a.finding}"


def help_text(key: str | None) -> tuple[str, str]:
    """(title, body) of the help for a panel row key: what it does, then what each report
    measured and whether that was LAN or WAN advice."""
    if not key:
        return "", ""
    kind, _, rest = key.partition(":")
    if kind == "sysctl":
        e = catalog.entry(rest)
        scope = (
            "per network namespace"
            if e.scope == "netns"
            else "host-wide (one value for every namespace)"
        )
        bounds = []
        if e.unit:
            bounds.append(f"unit: {e.unit}")
        if e.minimum is not None or e.maximum is not None:
            bounds.append(f"range {e.minimum}..{e.maximum}")
        lines = [e.help, "", f"Scope: {scope}." + (f" {'; '.join(bounds)}." if bounds else "")]
        if e.sources:
            lines += ["", "What the reports found:", *(_advice(a) for a in e.sources)]
        return e.key, "\n".join(lines)
    names = help_names(key)
    if not names:
        return rest, ""
    return f"{rest} ({', '.join(names)})", device_help(names)


# Device help a row explains beside its own entry: an IRQ row is an MSI-X vector that
# irqbalance moves; a CPU row's time includes its clock and power state and the firewall's
# per-packet cost. Each entry is reachable from the rows it is about (issue 31 item 9).
ALSO: dict[str, tuple[str, ...]] = {
    "irq": ("irqbalance", "msi-x"),
    "cpu": ("cpu-power", "firewall"),
}
# What a process row of the P view explains: where it runs, its priority, how it sends.
PROCESS_HELP = ("cpu-affinity", "nice", "sendfile")


def own_help(key: str | None) -> bool:
    """Whether a row has help of its own (a sysctl, a NIC setting), not only related entries."""
    if not key:
        return False
    return key.startswith("sysctl:") or help_name(key) is not None


def help_names(key: str) -> tuple[str, ...]:
    """The device help entries behind a row key: its own first, then the ones it also
    explains (a CPU row has no entry of its own)."""
    kind = key.partition(":")[0]
    own = help_name(key)
    names = ((own,) if own else ()) + ALSO.get(kind, ())
    return tuple(dict.fromkeys(n for n in names if n in DEVICE_HELP))


def device_help(names: Sequence[str]) -> str:
    """The full text of device help entries, one after the other under their names."""
    parts = []
    for name in names:
        h = DEVICE_HELP[name]
        lines = [f"{name}: {h.summary}" if len(names) > 1 else h.summary, "", h.help]
        if h.tool:
            lines += ["", f"By hand: {h.tool}"]
        if h.sources:
            lines += ["", "What the reports found:", *(_advice(a) for a in h.sources)]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def help_summary(key: str | None) -> str:
    """One line for the panel's help strip."""
    if not key:
        return ""
    kind, _, rest = key.partition(":")
    if kind == "sysctl":
        e = catalog.entry(rest)
        tags = sorted(
            {
                f"{source(a.source).citation.split(',')[0]} ({a.context})"
                for a in e.sources
                if a.context != "general"
            }
        )
        return e.summary + (f"  - from {', '.join(tags)}" if tags else "")
    name = help_name(key)
    if name is None or name not in DEVICE_HELP:
        return ""
    h = DEVICE_HELP[name]
    tags = sorted(
        {
            f"{source(a.source).citation.split(',')[0]} ({a.context})"
            for a in h.sources
            if a.context != "general"
        }
    )
    return h.summary + (f"  - from {', '.join(tags)}" if tags else "")
