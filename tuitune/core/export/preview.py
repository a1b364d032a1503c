"""The export as the live screen previews and installs it (no UI imports).

The source is the one `tuitune export` reads: the change journal's originals against the live
values. Two things differ from the headless command, both for a screen a user looks at:
  - a format holding an unsafe value is not offered (with the core's message) while the
    others are; headless refuses the whole export instead;
  - the files can be placed under another root (`dest_root` stands for `/`: a staging
    directory, or a test's tmp_path), their text unchanged, so it still names the real paths.
`install_each` writes file by file, so a failure says what was written before it.
"""

from __future__ import annotations

import errno
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tuitune.core.export import sysctld
from tuitune.core.export.build import build_plan, default_formats
from tuitune.core.export.changes import from_journal
from tuitune.core.export.context import ExportContext, gather_context
from tuitune.core.export.files import Written, install, with_installed
from tuitune.core.export.model import Change, ExportFile, ExportPlan, ExportRefused, Format
from tuitune.core.fsutil import FsError
from tuitune.core.session.access import HostAccess

NOTHING = "nothing to export: no setting differs from what tuitune found at start"


@dataclass(frozen=True, slots=True)
class Refusal:
    """A format not offered: one message per value that cannot go into a file safely."""

    format: str  # a Format, or "every format" when the interface name itself is refused
    problems: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Preview:
    """What the preview shows. `changes` counts the settings that differ from the originals;
    `files` are the offered ones (with what is installed at their path now)."""

    ifname: str
    netns: str | None = None
    files: tuple[ExportFile, ...] = ()
    refused: tuple[Refusal, ...] = ()
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()
    changes: int = 0
    dest_root: Path | None = None

    @property
    def to_install(self) -> tuple[ExportFile, ...]:
        """The files an install would write: installable and not already there as shown."""
        return tuple(f for f in self.files if f.installable and f.changed)


def offer(
    changes: Sequence[Change], ctx: ExportContext
) -> tuple[ExportPlan | None, tuple[Refusal, ...]]:
    """The plan of every format that can be written safely, and the refused ones."""
    try:
        return build_plan(changes, ctx, read_installed=False), ()
    except ExportRefused as whole:
        problems = tuple(whole.problems)
    ok: list[Format] = []
    refused: list[Refusal] = []
    for fmt in default_formats(changes, ctx):
        try:
            build_plan(changes, ctx, (fmt,), read_installed=False)
        except ExportRefused as exc:
            refused.append(Refusal(fmt, tuple(exc.problems)))
            continue
        ok.append(fmt)
    if not ok:
        # The interface or namespace name itself: no format can be written.
        return None, tuple(refused) or (Refusal("every format", problems),)
    plan = build_plan(changes, ctx, ok, read_installed=False)
    # "add --format X" is the CLI's hint; here X was refused, which is said already.
    hints = tuple(f"add --format {r.format}" for r in refused)
    skipped = tuple(s for s in plan.skipped if not s.endswith(hints))
    return replace(plan, skipped=skipped), tuple(refused)


def rebase(files: Iterable[ExportFile], etc: Path, dest_root: Path) -> tuple[ExportFile, ...]:
    """Each file under `dest_root` where it would be under `/` (etc/... for what lives in
    `etc`), with what is installed there (not at the real path) for the diff."""
    out = []
    for f in files:
        try:
            rel = Path("etc") / f.path.relative_to(etc)
        except ValueError:
            rel = f.path.relative_to(f.path.anchor)
        out.append(replace(f, path=dest_root / rel, installed=None))
    return with_installed(out)


def preview_of(
    access: HostAccess,
    changes: Sequence[Change],
    ifname: str,
    *,
    unreadable: Sequence[str] = (),
    dest_root: Path | None = None,
    now: float | None = None,
) -> Preview:
    netns = access.root.netns
    if not changes:
        return Preview(ifname, netns, unreadable=tuple(unreadable), dest_root=dest_root)
    ctx = gather_context(access, ifname, now=now)
    plan, refused = offer(changes, ctx)
    files: tuple[ExportFile, ...] = plan.files if plan is not None else ()
    files = rebase(files, ctx.etc, dest_root) if dest_root is not None else with_installed(files)
    return Preview(
        ifname,
        netns,
        files,
        refused,
        plan.warnings if plan is not None else (),
        plan.skipped if plan is not None else (),
        tuple(unreadable),
        len(changes),
        dest_root,
    )


def prepare(
    access: HostAccess,
    journal_dir: Path,
    ifname: str,
    *,
    dest_root: Path | None = None,
    now: float | None = None,
) -> Preview:
    """The preview of `ifname`'s export from the journal in `journal_dir` (JournalError when
    it cannot be read)."""
    changes, unreadable = from_journal(access, journal_dir, ifname)
    return preview_of(access, changes, ifname, unreadable=unreadable, dest_root=dest_root, now=now)


@dataclass(frozen=True, slots=True)
class Installed:
    """What an install did: the files written (or already there), the one that failed and
    why, and the ones not tried after it."""

    done: tuple[Written, ...]
    failed: str | None = None
    not_tried: tuple[Path, ...] = ()


def why(exc: OSError, path: Path | None = None) -> str:
    """The reason in words; it names the directory or file it is about when that is not
    `path` (a refused --out directory, a link on the way)."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        reason = "permission denied (installing needs root)"
    elif exc.errno == errno.EROFS:
        reason = "read-only file system"
    else:
        reason = exc.strerror or str(exc)
    if isinstance(exc, FsError) and path is not None and exc.filename != str(path):
        return f"{exc.filename}: {reason}"
    return reason


def install_each(files: Sequence[ExportFile]) -> Installed:
    """`install` one file at a time (atomic, backup first); stop at the first failure."""
    done: list[Written] = []
    for i, f in enumerate(files):
        try:
            done += install([f])
        except OSError as exc:
            rest = tuple(g.path for g in files[i + 1 :])
            return Installed(tuple(done), f"{f.path}: {why(exc, f.path)}", rest)
    return Installed(tuple(done))


def next_steps(preview: Preview, written: Iterable[Path]) -> list[str]:
    """What makes the consumers read the written files now (the values are live already)."""
    wrote = set(written)
    if not wrote:
        return []
    if preview.dest_root is not None:
        return [
            f"the files are under {preview.dest_root}, laid out as under /: nothing reads them "
            "there; copy them to the host they are for"
        ]
    files = [f for f in preview.files if f.path in wrote]
    return read_now(files, preview.netns, preview.ifname)


def read_now(
    written: Iterable[ExportFile], netns: str | None, ifname: str | None = None
) -> list[str]:
    """The two lines that say the files' values are live already and how to have the
    consumers read the written files now; none when nothing needs it. udev runs the rules
    and .link files on "add" only: a reload reads them, `udevadm trigger --action=add`
    (the host's udevd: not for a device in a namespace) runs them on the device now."""
    steps: list[str] = []
    replay = False
    for f in written:
        if f.format == "sysctl":
            steps.append(sysctld.apply_command(f.path, netns))
        elif f.path.suffix in (".rules", ".link"):
            steps.append("udevadm control --reload")
            replay = True
        elif f.path.suffix == ".service":
            steps.append("systemctl daemon-reload")
    if replay and ifname and not netns:
        steps.append(f"udevadm trigger --action=add /sys/class/net/{ifname}")
    if not steps:
        return []
    when = "each time the namespace is made" if netns else "at every boot"
    return [
        f"the values are live already; the files set them again {when}",
        "to have them read now: " + "; ".join(dict.fromkeys(steps)),
    ]
