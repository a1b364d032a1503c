"""The "process" export: what makes a process's CPU affinity last past its restart.

An affinity set with sched_setaffinity belongs to the running process only: when the process
is started again it has its default affinity back. What can carry it:
- a systemd drop-in (`/etc/systemd/system/UNIT.d/90-tuitune-affinity.conf`, `CPUAffinity=`)
  when the process runs in a service of systemd's system manager (its /proc/PID/cgroup names
  the unit, below the slices); every process of that unit gets it at the unit's next start.
  A service of a user's manager (under user@UID.service, a subtree the user may name as they
  like, "sshd.service" included) never gets a system drop-in: the export says so and gives
  the drop-in for the user to install in their own manager, with the command prefix;
- otherwise a command prefix to start it with (`taskset -c LIST` or `numactl
  --physcpubind=LIST`), shown, never installed: tuitune does not know how it is started.

One thread's own affinity has no carrier (only the program can set it for its threads): it is
listed as left out. The argv shown comes from another user's process: it is shell-quoted, and
a command line with a control character is not shown at all.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

from tuitune.core.cpulist import format_cpulist
from tuitune.core.export.common import was, where, written_by
from tuitune.core.export.context import ExportContext
from tuitune.core.export.model import Change, ExportFile, Generated, ProcFacts
from tuitune.core.host.root import HostRoot
from tuitune.core.procs import discover
from tuitune.core.procs.model import printable
from tuitune.core.session.kinds import safe
from tuitune.core.session.settings import Key, proc_target

_SERVICE = re.compile(r"^[A-Za-z0-9:_.@-]{1,240}\.service$")  # no "\": it escapes in paths
_FILE_NAME = re.compile(r"[^A-Za-z0-9_.-]")
DROP_IN = "90-tuitune-affinity.conf"
NOT_LASTING = (
    "an affinity set on a running process does not survive its restart: it starts again "
    "with its default affinity unless one of these sets it"
)
THREAD_LEFT_OUT = (
    "one thread's affinity: no unit setting or command prefix reaches a single thread "
    "(only the program itself can pin its threads)"
)


def process_facts(root: HostRoot, keys: Sequence[Key]) -> dict[Key, ProcFacts]:
    """The facts of each whole-process key whose process still runs (same start time)."""
    out: dict[Key, ProcFacts] = {}
    for key in keys:
        if key.kind != "proc_affinity":
            continue
        try:
            pid, start, tid = proc_target(key.name)
        except ValueError:
            continue
        if tid is not None:
            continue
        got = discover.read_process(root, pid)
        if got is not None and got.ident.start_ticks == start:
            out[key] = ProcFacts(got.ident.comm, got.cmdline, got.unit, got.unit_user)
    return out


def _shown_argv(argv: Sequence[str]) -> str | None:
    """argv as one shell line, or None when it holds what a terminal or a shell line cannot
    carry faithfully (control characters, bytes that are not UTF-8)."""
    if not argv or any(printable(a, 1 << 20) != a.replace("\\", "\\\\") for a in argv):
        return None
    return " ".join(shlex.quote(a) for a in argv)


def _drop_in(change: Change, unit: str, cpus: str, ctx: ExportContext, who: str) -> ExportFile:
    text = (
        f"# {written_by(ctx)}: {who} ({where(ctx)})\n"
        f"# {safe.comment(was(change))}\n"
        f"# Every process of {unit} starts on CPUs {cpus}.\n"
        "[Service]\n"
        f"CPUAffinity={cpus}\n"
    )
    return ExportFile(
        "process",
        ctx.etc / "systemd/system" / f"{unit}.d" / DROP_IN,
        text,
        warnings=(f"{who}: {NOT_LASTING}",),
        notes=(
            f"takes effect at the unit's next start: systemctl daemon-reload && "
            f"systemctl restart {unit}",
        ),
    )


def _user_unit(facts: ProcFacts, cpus: str) -> tuple[str, str]:
    """For a process in a user manager's unit: a comment block with the drop-in the user may
    install for it, and the note saying why no system drop-in is written."""
    unit = printable(facts.unit or "", 60)
    block = (
        f"# It runs in {unit} of uid {facts.unit_user}'s own systemd manager\n"
        f"# (user@{facts.unit_user}.service), not a unit of the system manager: that user\n"
        f"# names units there, so no /etc/systemd/system drop-in is written. They may add,\n"
        f"# in ~/.config/systemd/user/{unit}.d/{DROP_IN}:\n"
        f"#   [Service]\n#   CPUAffinity={cpus}\n"
    )
    why = (
        f"{unit} belongs to uid {facts.unit_user}'s user manager, not the system's: a command "
        "prefix (or their own user-unit drop-in), never a system drop-in"
    )
    return block, why


def _prefix(
    change: Change, facts: ProcFacts | None, cpus: str, ctx: ExportContext, who: str, name: str
) -> ExportFile:
    argv = _shown_argv(facts.cmdline) if facts is not None else None
    command = argv or "COMMAND ARGS..."
    hidden = (
        ""
        if argv or facts is None or not facts.cmdline
        else "# (its command line holds control characters: not shown)\n"
    )
    user = facts is not None and facts.unit is not None and facts.unit_user is not None
    block, why = _user_unit(facts, cpus) if user and facts is not None else ("", "")
    where_runs = block or "# It runs outside any systemd service of the system manager.\n"
    text = (
        f"# {written_by(ctx)}: {who} ({where(ctx)})\n"
        f"# {safe.comment(was(change))}\n"
        f"{where_runs}"
        "# Start it with one of these.\n"
        f"{hidden}"
        f"taskset -c {cpus} {command}\n"
        f"numactl --physcpubind={cpus} {command}\n"
    )
    return ExportFile(
        "process",
        ctx.etc / "tuitune" / f"process-{name}.sh",
        text,
        warnings=(f"{who}: {NOT_LASTING}",),
        notes=(
            "a command to start it with, not a file to install: put the prefix where the "
            "program is started (a script, a unit of your own)",
            *((why,) if why else ()),
        ),
        installable=False,
    )


def generate(
    changes: Sequence[Change],
    ctx: ExportContext,
    check: safe.Checker,
    facts: Mapping[Key, ProcFacts] | None = None,
) -> Generated:
    out = Generated()
    facts = ctx.processes if facts is None else facts
    mine = [c for c in changes if c.key.kind == "proc_affinity"]
    whole = {c.key: c.current for c in mine if proc_target(c.key.name)[2] is None}
    for c in mine:
        pid, start, tid = proc_target(c.key.name)
        if tid is not None:
            if whole.get(Key.proc_affinity(pid, start)) == c.current:
                out.covered.add(c.key)  # set with its process: the process's file carries it
            else:
                out.left_out[c.key] = THREAD_LEFT_OUT
            continue
        cpus = check(safe.cpus, c.key, c.current, False)
        if cpus is None:
            continue
        text_cpus = format_cpulist(cpus)
        got = facts.get(c.key)
        comm = got.comm if got is not None else (c.key.queue or f"pid{pid}")
        who = f"{printable(comm, 40)} (pid {pid})"
        name = _FILE_NAME.sub("_", comm)[:40] or f"pid{pid}"
        system = got is not None and got.unit is not None and got.unit_user is None
        if got is not None and got.unit and system and _SERVICE.match(got.unit):
            out.files.append(_drop_in(c, got.unit, text_cpus, ctx, who))
        else:
            out.files.append(_prefix(c, got, text_cpus, ctx, who, f"{name}-{pid}"))
        out.covered.add(c.key)
    return out


__all__ = ["NOT_LASTING", "ProcFacts", "generate", "process_facts"]
