"""Headless `tuitune export`, `tuitune verify` and `tuitune apply-affinity`.

export: the settings tuitune changed (its journal's originals against the live values) as
files: printed (default), written to --out DIR for a look, or installed with --install (atomic,
the old file set aside first). verify: every difference between the files and the live state.
apply-affinity: IRQ affinity by queue name, from the file export wrote (the systemd unit runs
it with --follow to re-apply whenever the link comes up).

Exit status: 0 done, 1 something differs / could not be done / a value was refused, 2 usage.
"""

from __future__ import annotations

import argparse
import signal
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.cli import _common, export_ansible
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err, host_args, host_root

if TYPE_CHECKING:
    from tuitune.core.export import ExportContext, ExportFile, ExportPlan
    from tuitune.core.export.model import Change, Format
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session import HostAccess


def _host_args(p: argparse.ArgumentParser, journal: bool = False) -> None:
    host_args(p, netns_help="the interface is in network namespace NAME", journal=journal)


def register(subparsers: _common.Subparsers) -> None:
    export = _common.command(subparsers, "export", cmd_export)
    _common.iface_arg(export, "the interface whose settings to export", optional=False)
    export.add_argument(
        "--format", metavar="LIST", help="comma-separated formats to write (tuned: a tuned profile)"
    )
    export.add_argument(
        "--profile",
        metavar="NAME",
        help="export a shipped profile (`tuitune profile list`) as it resolves on this host, "
        "instead of what tuitune changed",
    )
    where = export.add_mutually_exclusive_group()
    where.add_argument("--out", type=Path, metavar="DIR", help="write the files into DIR")
    where.add_argument(
        "--install", action="store_true", help="write them where they take effect (under /etc)"
    )
    where.add_argument(
        "--diff", action="store_true", help="print each file as a diff against the installed one"
    )
    export_ansible.add_args(export)
    export_ansible.add_pair_args(export)
    _host_args(export, journal=True)

    verify = _common.command(subparsers, "verify", cmd_verify)
    verify.add_argument("files", nargs="*", type=Path, help="files to check")
    verify.add_argument(
        "--installed", action="store_true", help="check the files tuitune installed under /etc"
    )
    _host_args(verify)

    aff = _common.command(subparsers, "apply-affinity", cmd_apply_affinity)
    _common.iface_arg(aff, None, optional=False)
    aff.add_argument(
        "--file", type=Path, metavar="FILE", help="default: /etc/tuitune/affinity-IFACE.conf"
    )
    aff.add_argument(
        "--follow", action="store_true", help="stay and re-apply each time the link comes up"
    )
    _host_args(aff)


def _access(root: HostRoot) -> HostAccess | None:
    from tuitune.core.host.netns import NetnsError
    from tuitune.core.session import HostAccess

    try:
        return HostAccess(root)
    except NetnsError as exc:
        err(str(exc))
        return None


def _check_iface(access: HostAccess, ifname: str) -> bool:
    from tuitune.core.host.netdev import interface_exists, list_interfaces

    if access.run(interface_exists, access.root, ifname):
        return True
    known = ", ".join(access.run(list_interfaces, access.root)) or "none"
    err(f"no interface {ifname!r}; interfaces here: {known}")
    return False


# ---- export ------------------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    """write what tuitune changed as files that survive a reboot (sysctl.d, udev, ...)

    Export every setting tuitune changed on IFACE (and the sysctls) that still differs from
    what it found: a sysctl.d file, udev rules, a systemd .link file, NetworkManager settings,
    IRQ affinity by queue name. Prints the files unless --out or --install. Formats: sysctl,
    udev, link, nm, affinity (default: the ones the changes need, plus link and nm when the host
    runs systemd-networkd or NetworkManager).
    """
    from tuitune.core.export import parse_formats as formats_of

    try:
        formats = formats_of(args.format) if args.format else None
    except ValueError as exc:
        err(str(exc))
        return EXIT_USAGE
    if (problem := export_ansible.pair_problem(args)) is not None:
        err(problem)
        return EXIT_USAGE
    root = host_root(args)
    if root is None:
        return EXIT_USAGE
    unpacked = _common.from_capture(args.root)
    if unpacked is not None and args.install:
        # A capture is a copy of another host, unpacked for this command only.
        err("--root CAPTURE: a copy of a host, not one to install on: use --out DIR")
        return EXIT_USAGE
    changes: list[Change] = []
    near = _end_plan(args, root, args.iface, formats, changes)
    if isinstance(near, int):
        return near
    plan, ctx = near
    if not plan.files:
        return EXIT_OK
    if args.peer_json is not None:
        return export_ansible.write_pair_from_json(args, near, changes, formats)
    if args.peer_netns is not None:
        from tuitune.core.host.root import HostRoot

        print(f"the far end: {args.peer_iface} in network namespace {args.peer_netns}")
        far = _end_plan(args, HostRoot(netns=args.peer_netns), args.peer_iface, formats)
        if far == EXIT_OK or (not isinstance(far, int) and not far[0].files):
            err(f"nothing to export for {args.peer_iface} in {args.peer_netns}: nothing written")
            return EXIT_FAILED
        if isinstance(far, int):
            return far
        return export_ansible.write_pair(args, near, far)
    if args.ansible:
        return export_ansible.write(args, plan, ctx)
    if args.install:
        return _install(plan)
    if args.out is not None:
        from tuitune.core.export import write_out

        try:
            results = write_out(plan.files, args.out)
        except OSError as exc:
            err(f"not written: {exc}")
            return EXIT_FAILED
        for written in results:
            print(written)
        ns = f" --netns {args.netns}" if getattr(args, "netns", None) else ""
        print(f"nothing installed; `tuitune export{ns} {args.iface} --install` puts them in place")
        return EXIT_OK
    for f in plan.files:
        _print_file(f, diff=args.diff, capture=unpacked)
    return EXIT_OK


def _end_plan(
    args: argparse.Namespace,
    root: HostRoot,
    ifname: str,
    formats: tuple[Format, ...] | None,
    keep: list[Change] | None = None,
) -> tuple[ExportPlan, ExportContext] | int:
    """The plan for `ifname` from its host's journal, reported; an exit status when there is
    none to be had (said in one line). `keep` receives the changes it was built from."""
    from tuitune.core.export import ExportRefused, build_plan, from_journal, gather_context
    from tuitune.core.export.procs import process_facts
    from tuitune.core.session import JournalError
    from tuitune.core.session.journal_file import host_id, journal_path

    access = _access(root)
    if access is None:
        return EXIT_USAGE
    with access:
        if not _check_iface(access, ifname):
            return EXIT_USAGE
        journal = journal_path(args.journal_dir, host_id(root))
        unreadable: list[str] = []
        if getattr(args, "profile", None) is not None:
            got = _profile_changes(access, args.profile, ifname)
            if isinstance(got, int):
                return got
            changes = got
        elif not _exists(journal):
            print(
                f"nothing to export: no change journal in {args.journal_dir} for this host "
                "(tuitune apply and the live screen record what they change there)"
            )
            return EXIT_OK
        else:
            try:
                changes, unreadable = from_journal(access, args.journal_dir, ifname)
            except JournalError as exc:
                err(str(exc))
                return EXIT_FAILED
        ctx = gather_context(access, ifname)
        keys = [c.key for c in changes]
        ctx = replace(ctx, processes=access.run(process_facts, access.root, keys))
        driver = export_ansible.driver_of(access, ifname) if args.match == "driver" else None
        matched = export_ansible.with_match(args, access.root, ctx, driver, ifname)
        if matched is None:
            return EXIT_USAGE
        ctx = matched
        if keep is not None:
            keep += changes
        try:
            plan = build_plan(changes, ctx, formats)
        except ExportRefused as exc:
            for problem in exc.problems:
                err(problem)
            err("nothing was written: these values cannot go into a file safely")
            return EXIT_FAILED
    for line in unreadable:
        err(line)
    _report(plan)
    from tuitune.core.platformview import boot_words

    for word in boot_words(root, ifname):
        err(f"note: kernel command line, printed only (the bootloader is yours): {word}")
    return plan, ctx


def _profile_changes(access: HostAccess, name: str, ifname: str) -> list[Change] | int:
    """A shipped profile's values on this host as changes from what it holds now (a value
    already so is exported too: the file is the whole profile); what the host cannot take is
    left out, one line each on stderr."""
    from tuitune.core.export import Change
    from tuitune.core.profiles import find, shipped
    from tuitune.core.session.profile import resolve
    from tuitune.core.values import Unavailable

    prof = find(name)
    if prof is None:
        err(f"no profile {name[:40]!r}; profiles: {', '.join(p.name for p in shipped())}")
        return EXIT_USAGE
    pairs, errors = resolve(access, prof.to_profile(), ifname)
    for line in errors:
        err(f"left out: {line}")
    now = access.read_many([k for k, _ in pairs])
    out = []
    for key, text in pairs:
        have = now[key]
        if isinstance(have, Unavailable):
            err(f"left out: {key.label}: {have.reason}")
            continue
        out.append(Change(key, have, text))
    return out


def _exists(path: Path) -> bool:
    """False only when it is surely absent (unreadable directory: let the reader say why)."""
    try:
        return path.exists()
    except OSError:
        return True


def _report(plan: ExportPlan) -> None:
    """Warnings, notes and left-out settings, on stderr (stdout carries the files)."""
    for line in plan.warnings:
        err(line)
    seen: set[str] = set()
    for f in plan.files:
        for w in f.warnings:
            if w not in seen:
                seen.add(w)
                err(f"warning: {w}")
        for n in f.notes:
            if n not in seen:
                seen.add(n)
                err(f"note: {n}")
    for line in plan.skipped:
        err(f"left out: {line}")


def _print_file(f: ExportFile, diff: bool, capture: Path | None = None) -> None:
    state = "new" if f.installed is None else ("same as installed" if not f.changed else "changed")
    hint = "" if f.installable else ", to merge by hand"
    path = f.path
    if capture is not None and path.is_relative_to(capture):  # the captured host's own path
        path = Path("/") / path.relative_to(capture)
    print(f"### {path} ({f.format}, {state}{hint})")
    if diff:
        print(f.diff or "(no difference)\n", end="")
    else:
        print(f.text, end="")
    print()


def _install(plan: ExportPlan) -> int:
    from tuitune.core.export import install
    from tuitune.core.export.preview import read_now

    try:
        results = install(plan.files)
    except OSError as exc:
        err(f"install failed: {exc}")
        return EXIT_FAILED
    for r in results:
        print(r)
    wrote = [f for f in plan.files if f.path in {r.path for r in results if r.status == "written"}]
    lines = read_now(wrote, plan.netns, plan.ifname)
    if lines:
        print(lines[0] + ".")
        print(lines[1])
    return EXIT_OK


# ---- verify ------------------------------------------------------------------------------------


def cmd_verify(args: argparse.Namespace) -> int:
    """compare the live state with exported files; list every difference

    Compare what each file says (files tuitune exported, or any sysctl.d file) with the live
    state and print every difference. Exit status 1 when anything differs.
    """
    from tuitune.core.export import installed_files, verify
    from tuitune.core.host.netns import NetnsError
    from tuitune.core.host.root import HostRoot

    paths: list[Path] = list(args.files)
    if args.installed or not paths:
        etc = args.root / "etc" if args.root is not None else HostRoot().etc
        found = installed_files(etc)
        if not found and not paths:
            print(f"no tuitune files installed under {etc}")
            return EXIT_OK
        paths += found

    def open_access(netns: str | None) -> HostAccess:
        root = host_root(args, netns)
        if root is None:
            raise SystemExit(EXIT_USAGE)
        access = _access(root)
        if access is None:
            raise SystemExit(EXIT_FAILED)
        return access

    try:
        report = verify(paths, open_access)
    except NetnsError as exc:
        err(str(exc))
        return EXIT_FAILED
    for problem in report.problems:
        err(problem)
    for diff in report.differences:
        print(diff)
    if report.ok:
        print(f"every setting matches: {report.checked} in {report.files} file(s)")
        return EXIT_OK
    print(
        f"{len(report.differences)} of {report.checked} setting(s) differ"
        + (f"; {len(report.problems)} file(s) could not be checked" if report.problems else "")
    )
    return EXIT_FAILED


# ---- apply-affinity ------------------------------------------------------------------------------


def cmd_apply_affinity(args: argparse.Namespace) -> int:
    """pin IFACE's IRQs to CPUs by queue name (from the exported affinity file)

    Resolve each queue name of the affinity file to the IRQ that serves it now and write its
    CPUs to /proc/irq/N/smp_affinity_list. --follow keeps running and writes them again
    whenever the link comes up (drivers reset affinity on reopen).
    """
    from tuitune.core.docfile import DocumentError, shown
    from tuitune.core.export import affinity, spread

    root = host_root(args)
    if root is None:
        return EXIT_USAGE
    path: Path = args.file or affinity.default_file(root, args.iface)
    try:
        pins, nic_local = spread.read(path)  # nic_local: `* = nic-local`, resolved here
    except FileNotFoundError:
        err(
            f"no affinity file {shown(path)}; `tuitune export {args.iface} --format affinity` "
            "makes one"
        )
        return EXIT_USAGE
    except DocumentError as exc:
        err(f"{exc}; nothing was changed")
        return EXIT_FAILED
    except affinity.AffinityFileError as exc:
        err(f"{shown(path)}: {exc}; nothing was changed")
        return EXIT_FAILED
    access = _access(root)
    if access is None:
        return EXIT_USAGE
    with access:
        if not _check_iface(access, args.iface):
            return EXIT_USAGE
        if nic_local:
            pins = spread.resolve(root, args.iface)
        try:
            affinity.plan(access, args.iface, pins)
        except affinity.ForeignIrq as exc:
            err(f"{shown(path)}: {exc}; nothing was changed")
            return EXIT_FAILED  # also with --follow: the file itself is wrong

        def run_once() -> bool:
            nonlocal pins
            if nic_local:  # the IRQs may be others now (requested at open)
                pins = spread.resolve(root, args.iface)
            try:
                results = affinity.apply(access, args.iface, pins)
            except affinity.ForeignIrq as exc:
                # Checked again on each run: IRQ numbers change when the device reopens.
                err(f"{shown(path)}: {exc}; nothing was changed")
                return False
            for r in results:
                print(r, flush=True)
            return all(r.ok for r in results)

        ok = run_once()
        if not args.follow:
            return EXIT_OK if ok else EXIT_FAILED
        return _follow(access, args.iface, run_once)


def _follow(access: HostAccess, ifname: str, run_once: Callable[[], bool]) -> int:
    from tuitune.core.export import affinity

    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    sock = access.run(affinity.open_link_socket)
    try:
        flags = access.run(affinity.link_flags, access.root, ifname)
        print(f"following {ifname}: re-applying whenever its link comes up", flush=True)
        why = affinity.follow(
            affinity.link_events(sock, lambda: stopping),
            ifname,
            run_once,
            flags=flags,
        )
    finally:
        sock.close()
    print(f"stopped: {why}", flush=True)
    return EXIT_OK
