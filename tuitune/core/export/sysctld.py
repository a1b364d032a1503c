"""sysctl.d(5): one `key = value` line per changed sysctl, with what it replaced and why.

Per-interface keys are written in the slash form (net/ipv4/conf/eth0.200/forwarding), the only
one in which a dot inside an interface name survives. A namespace's sysctls are not read at
boot (the namespace does not exist yet), so an export from --netns goes to /etc/tuitune/ for
`ip netns exec NAME sysctl -p FILE`, never to /etc/sysctl.d where it would change the host.
Host-wide sysctls changed from such a session (the user agreed to change the whole machine)
go to a host file of their own in /etc/sysctl.d.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tuitune.core import catalog
from tuitune.core.export.common import mark, was, written_by
from tuitune.core.export.context import ExportContext
from tuitune.core.export.model import Change, ExportFile, Generated
from tuitune.core.session.kinds import safe
from tuitune.core.session.kinds.safe import IFACE_SYSCTL_TREES, Checker, comment
from tuitune.core.session.settings import Key

FILE = "sysctl.d/90-tuitune.conf"
# A congestion control or qdisc the kernel loads as a module must be loaded before
# systemd-sysctl runs, or the boot-time write fails.
_BUILTIN = {"reno", "cubic", "pfifo_fast", "pfifo", "bfifo", "mq", "noqueue"}


def path_for(ctx: ExportContext) -> Path:
    if ctx.netns:
        return ctx.etc / f"tuitune/netns-{ctx.netns}.sysctl.conf"
    return ctx.etc / FILE


def host_path_for(ctx: ExportContext) -> Path:
    """Host-wide sysctls changed from a namespace session: they are the host's, so systemd-sysctl
    sets them at boot; a name of their own, so a host session's export is not overwritten."""
    return ctx.etc / f"sysctl.d/90-tuitune-from-netns-{ctx.netns}.conf"


def apply_command(path: Path, netns: str | None) -> str:
    """How to have a written file read now: a namespace's file inside it; a file in sysctl.d
    (the host's, even when exported from a namespace session) on the host."""
    if netns and path.parent.name != "sysctl.d":
        return f"ip netns exec {netns} sysctl -p {path}"
    return f"sysctl -p {path}"


def file_key(name: str) -> str:
    """The key as sysctl.d spells it: slash form for per-interface keys, dotted otherwise."""
    for tree in IFACE_SYSCTL_TREES:
        if name.startswith(tree):
            dev, _, leaf = name[len(tree) :].rpartition(".")
            return tree.replace(".", "/") + f"{dev}/{leaf}"
    return name


def key_of(text: str) -> Key:
    """The dotted key of a sysctl.d key (dotted or slash form), as the journal names it."""
    text = text.strip().lstrip("-")
    if "/" not in text:
        return Key.sysctl(text)
    parts = text.strip("/").split("/")
    return Key.sysctl(".".join(parts))


def _summary(name: str) -> str:
    try:
        return catalog.entry(name).summary
    except KeyError:
        return "not in tuitune's catalog"


def generate(changes: Sequence[Change], ctx: ExportContext, check: Checker) -> Generated:
    chosen = [c for c in changes if c.key.kind == "sysctl"]
    if not ctx.netns:
        return _file(chosen, ctx, check, path_for(ctx), [])
    own = _file([c for c in chosen if c.key.scope != "host"], ctx, check, path_for(ctx), [])
    wide = [c for c in chosen if c.key.scope == "host"]
    if wide:
        said = [
            f"# Host-wide values, changed from a session in network namespace {ctx.netns}:",
            "# one value for the whole machine and every namespace on it.",
        ]
        host = _file(wide, replace(ctx, netns=None), check, host_path_for(ctx), said)
        own.files += host.files
        own.covered |= host.covered
        own.left_out.update(host.left_out)
    return own


def _file(
    chosen: Sequence[Change], ctx: ExportContext, check: Checker, path: Path, said: list[str]
) -> Generated:
    out = Generated()
    warnings: list[str] = []
    notes: list[str] = []
    ns = f" in network namespace {ctx.netns}" if ctx.netns else ""
    lines = [f"# sysctls tuitune changed on {comment(ctx.host)}{ns}", f"# {written_by(ctx)}."]
    lines += said
    if ctx.netns:
        lines += [
            "# A namespace's sysctls are not read at boot: apply this file when the namespace",
            f"# is created: ip netns exec {ctx.netns} sysctl -p FILE",
        ]
        notes.append(
            f"network namespace {ctx.netns}: apply with `ip netns exec {ctx.netns} sysctl -p "
            f"{path}` after creating it (systemd-sysctl only sets the host's)"
        )
    else:
        lines += [
            "# systemd-sysctl applies /etc/sysctl.d at boot, in lexical order;",
            "# `sysctl -p FILE` applies this file now, `tuitune verify FILE` compares.",
        ]
    if said:
        warnings.append(f"{path.name} changes the whole machine at boot, not only the namespace")
    lines.append(mark("sysctl", ctx))
    for c in chosen:
        name = c.key.name
        key = check(safe.sysctl_key, name)
        value = check(safe.sysctl_value, name, c.current)
        if key is None or value is None:
            continue
        lines += ["", f"# {_summary(name)}", f"# {was(c)}", f"{file_key(key)} = {value}"]
        out.covered.add(c.key)
        big = _pages_over_ram(name, value, ctx)
        if big:
            warnings.append(big)
            lines.insert(len(lines) - 1, f"# WARNING: {big}")
        if name.endswith(("tcp_congestion_control", "default_qdisc")) and value not in _BUILTIN:
            module = ("tcp_" if "congestion" in name else "sch_") + value
            warnings.append(
                f"{name} = {value} needs the module {module} loaded before systemd-sysctl "
                f"runs at boot: add it to /etc/modules-load.d/tuitune.conf"
            )
    if out.covered:
        text = "\n".join(lines) + "\n"
        out.files.append(
            ExportFile("sysctl", path, text, warnings=tuple(warnings), notes=tuple(notes))
        )
    return out


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB"


def _pages_over_ram(name: str, value: str, ctx: ExportContext) -> str | None:
    """A page-counted sysctl (tcp_mem) whose largest number is more memory than the host has:
    most likely bytes typed where pages were meant (a 4096-times slip)."""
    try:
        entry = catalog.entry(name)
    except KeyError:
        return None
    if entry.unit != "pages" or not ctx.mem_total:
        return None
    numbers = [int(p) for p in value.split() if p.isdigit()]
    if not numbers or max(numbers) * ctx.page_size <= ctx.mem_total:
        return None
    top = max(numbers)
    return (
        f"{name} counts pages of {ctx.page_size} bytes: {top} pages is "
        f"{_gib(top * ctx.page_size)}, more than the {_gib(ctx.mem_total)} of RAM here "
        "(bytes where pages were meant?)"
    )


def parse(text: str) -> list[tuple[Key, str, int]]:
    """(key, value, line number) of every assignment in a sysctl.d file."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;" or "=" not in line:
            continue
        name, _, value = line.partition("=")
        out.append((key_of(name), " ".join(value.split()), n))
    return out
