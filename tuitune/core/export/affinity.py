"""IRQ affinity: stored by queue name, applied by `tuitune apply-affinity`, kept from irqbalance.

udev cannot set it (it lives in /proc/irq, not in the device's sysfs), IRQ numbers change
across boots and driver reloads, and drivers reset affinity when they reopen the device. So
the export is:
  - /etc/tuitune/affinity-IFACE.conf: `queue = CPU list` lines, by queue name;
  - tuitune-affinity@.service: runs `tuitune apply-affinity --follow IFACE`, which resolves the
    names to today's IRQ numbers, writes smp_affinity_list, and writes again whenever the link
    comes up (the IRQs of many drivers are requested when the device is opened). Bound to the
    device's unit (sys-subsystem-net-devices-IFACE.device): started after it appears, stopped
    when it goes; it names the tuitune of a system directory, which a reinstall replaces;
  - 91-tuitune-affinity-IFACE.rules: starts that unit when the device appears (the device
    wants it); an interface name systemd must escape gets `systemctl enable` instead, which
    the unit's [Install] WantedBy= the device makes work the same way;
  - for irqbalance (which would move the IRQs back): a --policyscript that answers ban=true
    for the pinned queues' IRQs, and its config with that option added. --banirq would need
    IRQ numbers and IRQBALANCE_BANNED_CPULIST bans whole CPUs, so neither fits.
"""

from __future__ import annotations

import errno
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from tuitune.core.docfile import DocumentError, read_document

# Following the link lives in affinity_link; its names stay reachable from here.
from tuitune.core.export.affinity_link import (
    IFF_LOWER_UP as IFF_LOWER_UP,
)
from tuitune.core.export.affinity_link import (
    IFF_UP as IFF_UP,
)
from tuitune.core.export.affinity_link import (
    IFLA_IFNAME as IFLA_IFNAME,
)
from tuitune.core.export.affinity_link import (
    RTM_DELLINK as RTM_DELLINK,
)
from tuitune.core.export.affinity_link import (
    RTM_NEWLINK as RTM_NEWLINK,
)
from tuitune.core.export.affinity_link import (
    RTMGRP_LINK as RTMGRP_LINK,
)
from tuitune.core.export.affinity_link import (
    LinkEvent as LinkEvent,
)
from tuitune.core.export.affinity_link import (
    follow as follow,
)
from tuitune.core.export.affinity_link import (
    link_events as link_events,
)
from tuitune.core.export.affinity_link import (
    link_flags as link_flags,
)
from tuitune.core.export.affinity_link import (
    open_link_socket as open_link_socket,
)
from tuitune.core.export.affinity_link import (
    parse_link_messages as parse_link_messages,
)
from tuitune.core.export.common import mark, was, where, written_by
from tuitune.core.export.context import ExportContext
from tuitune.core.export.model import Change, ExportFile, Generated
from tuitune.core.export.udev import checked_match, device_section
from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.root import HostRoot
from tuitune.core.session.access import HostAccess, WriteRefused
from tuitune.core.session.kinds import safe
from tuitune.core.session.kinds.safe import Checker, comment
from tuitune.core.session.settings import Key
from tuitune.core.session.validate import InvalidValue

UNIT = "tuitune-affinity@.service"
POLICY_SCRIPT = "tuitune/irqbalance-policy.sh"


def conf_path(etc: Path, ifname: str) -> Path:
    return etc / f"tuitune/affinity-{ifname}.conf"


def unit_path(etc: Path) -> Path:
    return etc / f"systemd/system/{UNIT}"


def wiring_path(etc: Path, ifname: str) -> Path:
    return etc / f"udev/rules.d/91-tuitune-affinity-{ifname}.rules"


# ---- generating ----------------------------------------------------------------------------


def generate(changes: Sequence[Change], ctx: ExportContext, check: Checker) -> Generated:
    out = Generated()
    pins: list[tuple[str, str, Change]] = []
    for c in changes:
        if c.key.kind != "irq_affinity" or c.key.ifname not in (ctx.ifname, None):
            continue
        if c.key.queue is None:
            out.left_out[c.key] = "no queue name to store it by (IRQ numbers change at boot)"
            continue
        queue = check(safe.irq_queue, c.key)
        cpus = check(safe.cpu_list, c.key, c.current)
        if queue is not None and cpus is not None:
            pins.append((queue, cpus, c))
            out.covered.add(c.key)
    if not pins:
        return out
    check(safe.abs_path, "tuitune command", ctx.tuitune)
    conf = conf_path(ctx.etc, ctx.ifname)
    lines = [
        f"# IRQ affinity tuitune set for the queues of {where(ctx)}.",
        f"# {written_by(ctx)}.",
        "# By queue name: IRQ numbers change across boots and driver reloads, names do not.",
        f"# `tuitune apply-affinity {ctx.ifname}` writes them, and the unit",
        f"# tuitune-affinity@{unit_instance(ctx.ifname)}.service does so when the device",
        "# appears and again whenever its link comes up.",
        mark("affinity", ctx),
    ]
    for queue, cpus, c in pins:
        lines += ["", f"# IRQ {comment(c.key.name)} {was(c)}", f"{queue} = {cpus}"]
    notes = [
        "udev cannot set IRQ affinity: tuitune-affinity@.service applies this file when the "
        "device appears and whenever its link comes up (drivers reset affinity on reopen)"
    ]
    warnings = [ctx.tuitune_warning] if ctx.tuitune_warning else []
    instance = unit_instance(ctx.ifname)
    if instance != ctx.ifname:
        # udev and systemd versions differ on a backslash in SYSTEMD_WANTS: no udev wiring.
        notes.append(
            f"{ctx.ifname} is {instance} in unit names: enable the unit instead of a udev rule, "
            f"`systemctl enable 'tuitune-affinity@{instance}.service'` (the device wants it)"
        )
    if ctx.netns:
        warnings.append(
            f"{ctx.ifname} is in network namespace {ctx.netns}: the unit and its udev rule "
            "work for devices of the initial namespace"
        )
    out.files.append(
        ExportFile(
            "affinity",
            conf,
            "\n".join(lines) + "\n",
            notes=tuple(notes),
            warnings=tuple(warnings),
        )
    )
    out.files.append(ExportFile("affinity", unit_path(ctx.etc), unit_text(ctx)))
    if instance == ctx.ifname:
        out.files.append(
            ExportFile("affinity", wiring_path(ctx.etc, ctx.ifname), wiring_text(ctx, check))
        )
    out.files += irqbalance_files(ctx)
    return out


def unit_instance(ifname: str) -> str:
    """The interface name as a unit instance (systemd-escape): '-' is '/' in unit names, so
    it becomes \\x2d, as does a leading '.'. Then %i names the device unit and %I the
    interface."""
    out = []
    for i, ch in enumerate(ifname):
        if (ch.isascii() and (ch.isalnum() or ch in ":_")) or (ch == "." and i > 0):
            out.append(ch)
        else:
            out.append(f"\\x{ord(ch):02x}")
    return "".join(out)


def unit_text(ctx: ExportContext) -> str:
    device = "sys-subsystem-net-devices-%i.device"
    return "\n".join(
        [
            f"# {written_by(ctx)}.",
            "# IRQ affinity by queue name for one interface (the instance: its name as",
            f"# `systemd-escape` writes it), from {ctx.etc}/tuitune/affinity-INTERFACE.conf.",
            "# Started when the interface appears (its udev rule, or `systemctl enable",
            "# tuitune-affinity@INTERFACE`: the device then wants it), stopped when it goes;",
            "# applies, then applies again each time the link comes up.",
            f"# Runs {ctx.tuitune} as root: only root can change that path.",
            "[Unit]",
            "Description=tuitune IRQ affinity for %I",
            f"BindsTo={device}",
            f"After={device}",
            "",
            "[Service]",
            "Type=simple",
            f"ExecStart={ctx.tuitune} apply-affinity --follow %I",
            "Restart=on-failure",
            "RestartSec=5",
            "",
            "[Install]",
            f"WantedBy={device}",
            "",
        ]
    )


def wiring_text(ctx: ExportContext, check: Checker) -> str:
    match = checked_match(ctx.match, check) or ctx.match
    end = f"tuitune_{ctx.ifname}_affinity_end"
    lines = [
        f"# Starts tuitune-affinity@{ctx.ifname}.service when {ctx.ifname} appears: it pins the",
        f"# IRQs of its queues ({conf_path(ctx.etc, ctx.ifname)}).",
        f"# {written_by(ctx)}.",
        mark("affinity-udev", ctx),
        f'ACTION!="add", GOTO="{end}"',
        *device_section(match, end),
        f'TAG+="systemd", ENV{{SYSTEMD_WANTS}}+="tuitune-affinity@{ctx.ifname}.service"',
        f'LABEL="{end}"',
    ]
    return "\n".join(lines) + "\n"


def policy_script(ctx: ExportContext) -> str:
    conf_glob = f"{ctx.etc}/tuitune/affinity-*.conf"
    return "\n".join(
        [
            "#!/bin/sh",
            f"# irqbalance --policyscript. {written_by(ctx)}.",
            "# irqbalance runs it for each IRQ (the IRQ number is the last argument) and leaves",
            "# an IRQ alone when it prints ban=true: here, the IRQs of the queues tuitune pins,",
            "# found by queue name (IRQ numbers change) in:",
            f"#   {conf_glob}",
            'PROC="${TUITUNE_PROC:-/proc}"',
            'for irq in "$@"; do :; done',
            "case \"$irq\" in ''|*[!0-9]*) exit 0 ;; esac",
            f"pinned=$(sed -n 's/^\\([^#= ][^= ]*\\) *=.*/\\1/p' {conf_glob} 2>/dev/null)",
            '[ -n "$pinned" ] || exit 0',
            'for dir in "$PROC/irq/$irq"/*/; do',
            '    [ -d "$dir" ] || continue',
            '    name="${dir%/}"',
            '    name="${name##*/}"',
            '    if printf \'%s\\n\' "$pinned" | grep -qxF -e "$name"; then',
            "        echo ban=true",
            "        exit 0",
            "    fi",
            "done",
            "exit 0",
            "",
        ]
    )


_ARG_WORD = safe.Token("A-Za-z0-9_.,:/=+-", "C+")


def irqbalance_files(ctx: ExportContext) -> list[ExportFile]:
    state, config = ctx.irqbalance, ctx.irqbalance_config
    if config is None and (state is None or not state.running):
        return [
            ExportFile(
                "affinity",
                ctx.etc / POLICY_SCRIPT,
                policy_script(ctx),
                mode=0o755,
                notes=(
                    "irqbalance is not installed here: nothing moves the pinned IRQs; the "
                    "policy script is for hosts where it is (--policyscript=PATH)",
                ),
            )
        ]
    script = ctx.etc / POLICY_SCRIPT
    files = [
        ExportFile(
            "affinity",
            script,
            policy_script(ctx),
            mode=0o755,
            notes=(
                "irqbalance would move the pinned IRQs back: this script bans them (by queue "
                "name) through --policyscript; restart irqbalance after installing",
            ),
        )
    ]
    if config is None:
        files[0] = _with_warning(
            files[0],
            f"irqbalance runs without a config file: start it with --policyscript={script}",
        )
        return files
    path, text = config
    new, problem = add_policy_arg(text, f"--policyscript={script}")
    if problem:
        files[0] = _with_warning(files[0], problem)
    else:
        files.append(ExportFile("affinity", path, new, installed=text))
    return files


def _with_warning(f: ExportFile, warning: str) -> ExportFile:
    return replace(f, warnings=(*f.warnings, warning))


def add_policy_arg(text: str, arg: str) -> tuple[str, str | None]:
    """irqbalance's config with `arg` in IRQBALANCE_ARGS, or (text, why it cannot be done)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.startswith("IRQBALANCE_ARGS="):
            continue
        try:
            # The value once the shell has read the line, then split as the service does.
            words = " ".join(shlex.split(stripped.partition("=")[2], comments=True)).split()
        except ValueError:
            return text, "IRQBALANCE_ARGS could not be read: add the option by hand"
        if arg in words:
            return text, None
        other = [w for w in words if w.startswith(("--policyscript", "-l"))]
        if other:
            return text, (
                f"irqbalance already has a policy script ({other[0]}): make it answer ban=true "
                "for the queues in /etc/tuitune/affinity-*.conf (see irqbalance-policy.sh)"
            )
        if not all(_ARG_WORD.full.fullmatch(w) for w in words):
            return text, "IRQBALANCE_ARGS holds characters tuitune will not rewrite: add it by hand"
        lines[i] = f'IRQBALANCE_ARGS="{" ".join([*words, arg])}"'
        return "\n".join(lines) + "\n", None
    tail = "" if text.endswith("\n") or not text else "\n"
    added = "# tuitune: leave the IRQs tuitune pins alone\n" + f'IRQBALANCE_ARGS="{arg}"\n'
    return text + tail + added, None


# ---- reading the file back -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pin:
    queue: str
    cpus: str  # canonical CPU list
    line: int


class AffinityFileError(ValueError):
    """The affinity file holds a line that is not `queue = CPUs`; nothing was applied."""


def parse(text: str) -> list[Pin]:
    pins, problems = [], []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        queue, eq, value = (p.strip() for p in line.partition("="))
        key = Key.irq("?", queue or "?")
        try:
            if not eq:
                raise safe.UnsafeValue("expected `queue = CPU list`")
            safe.irq_queue(key)
            cpus = safe.cpu_list(key, value)
        except safe.UnsafeValue as exc:
            problems.append(f"line {n}: {exc}")
            continue
        pins.append(Pin(queue, cpus, n))
    if problems:
        raise AffinityFileError("; ".join(problems))
    return pins


# ---- applying ------------------------------------------------------------------------------

Status = Literal["changed", "unchanged", "missing", "refused", "invalid"]


@dataclass(frozen=True, slots=True)
class Applied:
    queue: str
    irq: str | None
    status: Status
    before: str | None = None
    after: str | None = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("changed", "unchanged")

    def __str__(self) -> str:
        where_ = f"IRQ {self.irq} ({self.queue})" if self.irq else self.queue
        if self.status == "changed":
            return f"{where_}: {self.before} -> {self.after}"
        if self.status == "unchanged":
            return f"{where_}: already {self.after}"
        return f"{where_}: NOT set: {self.reason}"


def irq_of(root: HostRoot, queue: str) -> str | None:
    """The IRQ that serves `queue` now, by its exact name in /proc/interrupts."""
    try:
        rows = parse_interrupts(root.read_proc("interrupts")).rows
    except OSError:
        return None
    for row in rows:
        if row.numeric and queue in (p.strip() for p in row.name.split(", ")):
            return row.irq
    return None


class ForeignIrq(AffinityFileError):
    """The file names an IRQ that is not one of the interface's own; nothing was applied."""


def plan(access: HostAccess, ifname: str, pins: Sequence[Pin]) -> list[tuple[Pin, Key | None]]:
    """Each pin with the IRQ of `ifname` that serves its queue now (None: none serves it now,
    say while the link is down). A queue name that an IRQ of anything else answers to (another
    NIC's queue, a disk's) raises ForeignIrq: the file is for `ifname`'s IRQs only, as the
    IRQ map of `ifname` sees them, so a file naming others is refused before any write."""
    out: list[tuple[Pin, Key | None]] = []
    foreign = []
    for pin in pins:
        key = access.irq_key(ifname, pin.queue)
        if key is None:
            irq = access.run(irq_of, access.root, pin.queue)
            if irq is not None:
                foreign.append(f"line {pin.line}: {pin.queue} is IRQ {irq}, not one of {ifname}'s")
        out.append((pin, key))
    if foreign:
        raise ForeignIrq("; ".join(foreign))
    return out


def apply(access: HostAccess, ifname: str, pins: Sequence[Pin]) -> list[Applied]:
    """Resolve each queue to its IRQ now and write its CPUs (read back to confirm). Raises
    ForeignIrq, before any write, when a queue is served by an IRQ that is not `ifname`'s."""
    out = []
    for pin, key in plan(access, ifname, pins):
        if key is None:
            out.append(Applied(pin.queue, None, "missing", reason="no IRQ serves it now"))
            continue
        try:
            value = access.validate(key, pin.cpus)
            before = access.read(key)
            before_s = before if isinstance(before, str) else None
            if before_s == value:
                out.append(Applied(pin.queue, key.name, "unchanged", before_s, value))
                continue
            access.write(key, value)
        except InvalidValue as exc:
            out.append(Applied(pin.queue, key.name, "invalid", reason=exc.message))
            continue
        except WriteRefused as exc:
            out.append(Applied(pin.queue, key.name, "refused", reason=exc.state.reason))
            continue
        now = access.read(key)
        if now != value:
            reason = f"wrote {value}, the kernel kept {now}"
            out.append(Applied(pin.queue, key.name, "refused", before_s, None, reason))
            continue
        out.append(Applied(pin.queue, key.name, "changed", before_s, value))
    return out


def default_file(root: HostRoot, ifname: str) -> Path:
    return conf_path(root.etc, ifname)


def read_text(path: Path) -> str:
    """An affinity file's text: FileNotFoundError when there is none, DocumentError when it is
    not a readable regular file of UTF-8 text."""
    try:
        return read_document(path)
    except DocumentError as exc:
        if exc.errno == errno.ENOENT:
            raise FileNotFoundError(errno.ENOENT, "no such file", str(path)) from None
        raise


def read_pins(path: Path) -> list[Pin]:
    """The pins of an affinity file: AffinityFileError for a bad line, else as read_text."""
    return parse(read_text(path))
