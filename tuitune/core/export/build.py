"""One export: the changes in, every requested format's files out, or a refusal.

`build_plan` is the front door for the CLI and the TUI preview: it checks the interface and
namespace names, runs each format's generator, refuses the whole export if any value is unsafe
(`ExportRefused`: nothing is written), reads what is installed at each path (for the diff), and
lists every change that no chosen format carries, with why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from tuitune.core.export import (
    affinity,
    link,
    nm,
    platform_files,
    procs,
    sysctld,
    tuned,
    udev,
)
from tuitune.core.export.context import ExportContext
from tuitune.core.export.files import with_installed
from tuitune.core.export.model import (
    FORMATS,
    Change,
    ExportFile,
    ExportPlan,
    ExportRefused,
    Format,
    Generated,
)
from tuitune.core.session.kinds import safe
from tuitune.core.session.kinds.safe import Checker
from tuitune.core.session.kinds.table import handler

Generator = Callable[[Sequence[Change], ExportContext, Checker], Generated]
GENERATORS: dict[Format, Generator] = {
    "sysctl": sysctld.generate,
    "udev": udev.generate,
    "link": link.generate,
    "nm": nm.generate,
    "affinity": affinity.generate,
    "process": procs.generate,
    "tuned": tuned.generate,
    "modprobe": platform_files.modprobe,
    "cpu": platform_files.cpu_unit,
}


def parse_formats(text: str) -> tuple[Format, ...]:
    """ "sysctl,udev" -> ("sysctl", "udev"); ValueError naming the unknown ones."""
    wanted = [w.strip() for w in text.split(",") if w.strip()]
    bad = [w for w in wanted if w not in FORMATS]
    if bad or not wanted:
        raise ValueError(
            f"unknown format {', '.join(bad) or '(none)'}; known: {', '.join(FORMATS)}"
        )
    return tuple(dict.fromkeys(w for w in FORMATS if w in wanted))


def relevant(changes: Iterable[Change], ifname: str) -> list[Change]:
    """The sysctls, the interface's settings, IRQs without an interface (resolved by the
    caller) and services (only to be listed as left out); other interfaces' settings belong to
    their own export."""
    return [
        c
        for c in changes
        if not handler(c.key.kind).of_interface
        or c.key.ifname == ifname
        or (c.key.kind == "irq_affinity" and c.key.ifname is None)
    ]


def default_formats(changes: Sequence[Change], ctx: ExportContext) -> tuple[Format, ...]:
    """sysctl.d, udev rules and affinity for what changed; .link and the NetworkManager
    settings beside the udev rules when the host runs networkd or NetworkManager."""
    kinds = {c.key.kind for c in relevant(changes, ctx.ifname)}
    # Each kind's first carrier (its handler's, kinds/base.py): an interface's own settings go
    # in its udev rules, with .link and NetworkManager beside them where the host runs those.
    wanted = {handler(k).carriers[0] for k in kinds if handler(k).carriers}
    if "udev" in wanted:
        wanted |= {f for f, on in (("link", ctx.networkd), ("nm", ctx.network_manager)) if on}
    return tuple(f for f in FORMATS if f in wanted)


def build_plan(
    changes: Sequence[Change],
    ctx: ExportContext,
    formats: Sequence[Format] | None = None,
    *,
    read_installed: bool = True,
) -> ExportPlan:
    """Every file of the export. Raises ExportRefused (one message per unsafe value)."""
    check = Checker()
    check(safe.ifname, ctx.ifname)
    if ctx.netns is not None:
        check(safe.netns, ctx.netns)
    if check.problems:
        raise ExportRefused(check.problems)
    mine = relevant(changes, ctx.ifname)
    chosen = tuple(formats) if formats is not None else default_formats(mine, ctx)
    files: list[ExportFile] = []
    covered: set[object] = set()
    left_out: dict[object, str] = {}
    for fmt in chosen:
        got = GENERATORS[fmt](mine, ctx, check)
        files += [f for f in got.files if all(f.path != g.path for g in files)]
        covered |= got.covered
        for key, why in got.left_out.items():
            left_out.setdefault(key, why)
    if check.problems:
        raise ExportRefused(check.problems)
    skipped = []
    for c in mine:
        if c.key in covered:
            continue
        why = left_out.get(c.key) or _hint(c, chosen)
        skipped.append(f"{c.key.label}: {why}")
    warnings: list[str] = []
    if not [c for c in mine if c.key.kind != "service"]:
        warnings.append("nothing to export: no setting differs from what tuitune found")
    for fmt in chosen:
        if mine and not any(f.format == fmt for f in files):
            warnings.append(f"{fmt}: nothing to write (no change this format carries)")
    out = with_installed(files) if read_installed else tuple(files)
    return ExportPlan(ctx.ifname, out, tuple(warnings), tuple(skipped), ctx.netns)


def _hint(c: Change, chosen: Sequence[Format]) -> str:
    """Why a change is not in the export: its handler's reason (a service, SMT), or the
    format that would carry it (the handler's `carriers`, kinds/base.py)."""
    kind = handler(c.key.kind)
    if kind.not_exported is not None:
        return kind.not_exported
    missing = [f for f in kind.carriers if f not in chosen]
    if missing:
        return f"not exported: add --format {missing[0]}"
    return "not exported"
