"""`tuitune verify`: what the files say against what the kernel holds now, one line per
difference.

A file tuitune wrote names its format, interface and namespace in its `# tuitune-export:` line;
a sysctl.d file written by anyone else is read too (by its name). Values are compared in
canonical form (CPU sets as sets, masks as CPU lists, sysctl triples single-spaced), so "f"
and "0-3" are the same thing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tuitune.core.export import affinity, link, nm, platform_files, spread, sysctld, tuned, udev
from tuitune.core.export.common import read_mark
from tuitune.core.session.access import HostAccess
from tuitune.core.session.kinds.table import handler
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable

INSTALLED_GLOBS = (
    "sysctl.d/90-tuitune.conf",
    "tuitune/netns-*.sysctl.conf",
    "udev/rules.d/90-tuitune-*.rules",
    "systemd/network/10-tuitune-*.link",
    "tuitune/affinity-*.conf",
    "tuned/tuitune-*/tuned.conf",
    "modprobe.d/90-tuitune-*.conf",
    "systemd/system/tuitune-cpu-power.service",
)


@dataclass(frozen=True, slots=True)
class Expect:
    """One setting a file asks for."""

    key: Key
    value: str
    line: int


@dataclass(frozen=True, slots=True)
class Difference:
    path: Path
    line: int
    label: str
    wanted: str
    live: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.label}: file says {self.wanted}, live {self.live}"


@dataclass
class Report:
    checked: int = 0  # settings compared
    files: int = 0
    differences: list[Difference] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # files that could not be read or used

    @property
    def ok(self) -> bool:
        return not self.differences and not self.problems


def installed_files(etc: Path) -> list[Path]:
    found: list[Path] = []
    for pattern in INSTALLED_GLOBS:
        found += sorted(p for p in etc.glob(pattern) if p.is_file())
    return found


def file_kind(path: Path, text: str) -> tuple[str, dict[str, str]] | None:
    """(format, fields) of a file: from tuitune's mark, else a sysctl.d file by its name."""
    marked = read_mark(text)
    if marked is not None:
        return marked
    if path.suffix == ".conf" and ("sysctl" in path.parent.name or path.name == "sysctl.conf"):
        return "sysctl", {}
    return None


def _canonical(key: Key, value: str) -> str:
    """The form HostAccess reads, for comparison."""
    return handler(key.kind).canonical(key, " ".join(value.split()))


def expectations(
    access: HostAccess, fmt: str, fields: dict[str, str], text: str
) -> list[Expect] | str:
    """What a file asks for, as keys of `access`'s host; a string says why it cannot be read."""
    iface = fields.get("iface", "")
    if fmt == "sysctl":
        return [Expect(k, v, n) for k, v, n in sysctld.parse(text)]
    if fmt in ("modprobe", "cpu"):  # the host's, whatever interface the export was for
        return [Expect(k, v, n) for k, v, n in platform_files.parse(text)]
    if not iface or iface == "-":
        return f"no interface named in the {fmt} file"
    if fmt == "udev":
        return [Expect(k, v, n) for k, v, n in udev.parse(text, iface)]
    if fmt == "link":
        device = {k: "" for k in access.device_keys(iface) if k.kind == "feature"}
        return [Expect(k, v, n) for k, v, n in link.parse(text, iface, device)]
    if fmt == "nm":
        return [Expect(k, v, n) for k, v, n in nm.parse(text, iface)]
    if fmt == "tuned":
        return [Expect(k, v, n) for k, v, n in tuned.parse(text, iface)]
    if fmt == "affinity":
        try:
            nic_local = spread.is_nic_local(text)  # the spread, worked out on this host
            pins = (
                spread.resolve(access.root, iface, spread.directive_line(text))
                if nic_local
                else affinity.parse(text)
            )
        except affinity.AffinityFileError as exc:
            return str(exc)
        out = []
        for pin in pins:
            key = access.irq_key(iface, pin.queue)
            if key is None:
                irq = access.run(affinity.irq_of, access.root, pin.queue)
                key = Key.irq(irq or "?", pin.queue, iface)
            out.append(Expect(key, pin.cpus, pin.line))
        return out
    return f"{fmt} files are not compared"


def compare(access: HostAccess, path: Path, wanted: Iterable[Expect], report: Report) -> None:
    wanted = list(wanted)
    live = access.read_many([e.key for e in wanted])
    for e in wanted:
        report.checked += 1
        now = live[e.key]
        want = _canonical(e.key, e.value)
        if isinstance(now, Unavailable):
            report.differences.append(Difference(path, e.line, e.key.label, want, now.reason))
            continue
        if _canonical(e.key, now) != want:
            report.differences.append(Difference(path, e.line, e.key.label, want, now))


def verify(
    paths: Iterable[Path],
    open_access: Callable[[str | None], HostAccess],
) -> Report:
    """Compare each file with the live state. `open_access(netns)` gives the host a file is
    about (the namespace its mark names, None for the host); accesses are closed here."""
    report = Report()
    opened: dict[str | None, HostAccess] = {}
    try:
        for path in paths:
            try:
                text = path.read_text()
            except (OSError, UnicodeDecodeError) as exc:
                report.problems.append(f"{path}: cannot read ({exc})")
                continue
            kind = file_kind(path, text)
            if kind is None:
                report.problems.append(f"{path}: not a file tuitune wrote, nor a sysctl.d file")
                continue
            fmt, fields = kind
            if fmt in ("affinity-udev",):
                continue  # wiring only: nothing to compare
            ns = fields.get("netns")
            netns = None if ns in (None, "-") else ns
            if netns not in opened:
                opened[netns] = open_access(netns)
            access = opened[netns]
            wanted = expectations(access, fmt, fields, text)
            if isinstance(wanted, str):
                report.problems.append(f"{path}: {wanted}")
                continue
            report.files += 1
            compare(access, path, wanted, report)
    finally:
        for access in opened.values():
            access.close()
    return report
