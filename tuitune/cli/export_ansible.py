"""`tuitune export IFACE --ansible --out DIR` and `--match`: the export as a playbook and role
for a fleet (tuitune.core.export.ansible), and how its files find the NIC on every host."""

from __future__ import annotations

import argparse
import pathlib
import textwrap
from dataclasses import replace
from typing import TYPE_CHECKING

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, err

if TYPE_CHECKING:
    from pathlib import Path

    from tuitune.core.export import ExportContext, ExportPlan
    from tuitune.core.export.model import Change, Format
    from tuitune.core.export.wheelhouse import Install
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session import HostAccess

MATCH_CHOICES = ("path", "mac", "name", "driver")


def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ansible",
        action="store_true",
        help="with --out DIR: write an Ansible playbook and role (DIR/playbook.yml, "
        "DIR/roles/tuitune_nic) that install these files on every host of a fleet",
    )
    p.add_argument(
        "--match",
        choices=MATCH_CHOICES,
        help="how the udev rules and .link file find the NIC: path (ID_PATH, the bus "
        "position: the same on identical servers; the default with --ansible), mac (this "
        "NIC only), name (whatever device has the name), driver (every NIC that driver runs: "
        "for hosts whose NIC sits in different slots)",
    )
    p.add_argument(
        "--install-tuitune",
        metavar="WHEELHOUSE",
        help="with --ansible: the role first installs tuitune on each host, into a venv "
        "(/opt/tuitune) with its command linked where the affinity unit runs it "
        "(/usr/local/bin/tuitune): from WHEELHOUSE (a directory scripts/wheelhouse built; the "
        "role ships it, so the hosts need no package index), or `index` for the hosts' own",
    )


def add_pair_args(p: argparse.ArgumentParser) -> None:
    _common.peer_end_args(
        p,
        "with --ansible: one playbook for both ends of a link, the far end being network "
        "namespace NS on this machine (the lab's peer), exported from its own journal",
    )
    p.add_argument(
        "--peer-json",
        type=pathlib.Path,
        metavar="FILE",
        help="with --ansible: one playbook for both ends of a link, the far end being the host "
        "whose `tuitune show --json IF` output FILE holds: its role sets the settings this "
        "end's export names, to the values FILE shows",
    )
    p.add_argument(
        "--peer-host",
        type=_host,
        metavar="NAME",
        help="with --peer-json: the far host's name in the inventory (default: FILE's hostname)",
    )


def _host(text: str) -> str:
    from tuitune.core.export.peer_json import host_name
    from tuitune.core.session.kinds.safe import UnsafeValue

    try:
        return host_name(text)
    except UnsafeValue as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def pair_problem(args: argparse.Namespace) -> str | None:
    """Which far end, and only with --ansible; None when the options fit together."""
    if (problem := _common.peer_end_problem(args)) is not None:
        return problem
    if args.peer_json is not None and args.peer_netns is not None:
        return "--peer-json and --peer-netns both name the far end: give one"
    if args.peer_host is not None and args.peer_json is None:
        return "--peer-host names the host of --peer-json FILE: give both"
    if args.install_tuitune is not None and not args.ansible:
        return "--install-tuitune puts tuitune into the playbook's role: give --ansible --out DIR"
    for given, name in ((args.peer_netns, "--peer-netns"), (args.peer_json, "--peer-json")):
        if given is not None and not args.ansible:
            return f"{name} writes one playbook for both ends: give --ansible --out DIR"
    return None


def driver_of(access: HostAccess, ifname: str) -> str | None:
    """The driver ethtool reports (what udev's net_setup_link stores as ID_NET_DRIVER and
    .link's Driver= matches: "veth" too); None on a recorded tree or when it cannot say."""
    from tuitune.core.host.ethtool_types import DriverInfo

    def ask() -> str | None:
        et = access.handles.ethtool(ifname)
        info = getattr(et, "driver_info", None)
        got = info() if callable(info) else None
        return got.driver if isinstance(got, DriverInfo) and got.driver else None

    return access.run(ask) if access.root.live else None


def with_match(
    args: argparse.Namespace,
    root: HostRoot,
    ctx: ExportContext,
    driver: str | None = None,
    ifname: str | None = None,
) -> ExportContext | None:
    """The context with the match asked for (ID_PATH by default with --ansible, said why on
    stderr); None after a one-line message when it cannot be had."""
    from tuitune.core.export.fleet import DEFAULT_MATCH, WHY_DEFAULT, NoMatch, choose_match

    if args.ansible and args.out is None:
        err("--ansible writes a playbook: give --out DIR")
        return None
    if args.install_tuitune is not None:
        from tuitune.core.export.context import DEFAULT_TUITUNE

        # The role links tuitune there, so the unit runs that, whatever this host has.
        ctx = replace(ctx, tuitune=DEFAULT_TUITUNE, tuitune_warning=None)
    kind = args.match or (DEFAULT_MATCH if args.ansible else None)
    if kind is None:
        return ctx
    try:
        match = choose_match(root, ifname or args.iface, kind, driver)
    except NoMatch as exc:
        err(f"{exc}; nothing was written")
        return None
    if args.match is None:
        err(f"note: matching the NIC by {WHY_DEFAULT}")
    return replace(ctx, match=match)


def match_note(ctx: ExportContext, chosen: str | None) -> list[str]:
    from tuitune.core.export.fleet import WHY_DEFAULT

    said = f"The files match the NIC by {ctx.match.describe}."
    if chosen is None:
        said += f" Why: {WHY_DEFAULT}."
    return textwrap.wrap(said, 90)


def _install(args: argparse.Namespace) -> Install | int | None:
    """What --install-tuitune names (None without it), or an exit status after saying why it
    cannot be shipped."""
    from tuitune.core.export.wheelhouse import INDEX, Install, WheelhouseError, read_wheelhouse

    if args.install_tuitune is None:
        return None
    if args.install_tuitune == INDEX:
        return Install({})
    try:
        return read_wheelhouse(pathlib.Path(args.install_tuitune))
    except WheelhouseError as exc:
        err(f"{exc}; nothing was written")
        return EXIT_FAILED


def write(args: argparse.Namespace, plan: ExportPlan, ctx: ExportContext) -> int:
    from tuitune.core.export.ansible import role_files

    install = _install(args)
    if isinstance(install, int):
        return install
    return _written(args, role_files(plan, ctx, match_note(ctx, args.match), install), install)


def _written(args: argparse.Namespace, text: dict[str, str], install: Install | None = None) -> int:
    from tuitune.core.export.ansible import install_files
    from tuitune.core.export.fleet import write_tree

    files: dict[str, str | bytes] = {**text}
    if install is not None:
        files |= install_files(install)
        if install.from_index:
            print(f"the role installs tuitune {install.version} from each host's package index")
        else:
            print(
                f"the role ships the wheelhouse ({len(install.files)} files) and installs from it"
            )
    try:
        written = write_tree(files, args.out)
    except OSError as exc:
        err(f"not written: {exc}")
        return EXIT_FAILED
    for path in written:
        print(f"wrote {path}")
    if not written:
        print(f"unchanged: {args.out} already holds this playbook")
    print(
        f"nothing installed; `ansible-playbook -i INVENTORY {args.out}/playbook.yml --check "
        "--diff` shows what it would change on each host (inventory.example.yml: the form)"
    )
    return EXIT_OK


def write_pair(
    args: argparse.Namespace,
    near: tuple[ExportPlan, ExportContext],
    far: tuple[ExportPlan, ExportContext],
    hosts: tuple[str, str] | tuple[()] = (),
) -> int:
    """Both ends' roles, one playbook, verify.yml and an inventory with a group per end
    (`hosts`: the two hosts' names, for an inventory.yml of both)."""
    from tuitune.core.export.ansible import pair_files

    install = _install(args)
    if isinstance(install, int):
        return install
    files = pair_files(near, far, match_note(near[1], args.match), hosts, install)
    return _written(args, files, install)


def write_pair_from_json(
    args: argparse.Namespace,
    near: tuple[ExportPlan, ExportContext],
    changes: list[Change],
    formats: tuple[Format, ...] | None,
) -> int:
    """`--peer-json FILE`: the far end's role from the other host's show --json file."""
    from tuitune.core.docfile import shown
    from tuitune.core.export import ExportRefused, build_plan
    from tuitune.core.export.fleet import DEFAULT_MATCH
    from tuitune.core.export.peer_json import HOST as _HOST_RE
    from tuitune.core.export.peer_json import PeerFileError, far_end
    from tuitune.core.session.kinds.safe import comment

    path: Path = args.peer_json
    try:
        far = far_end(path, changes, near[1], args.match or DEFAULT_MATCH, args.peer_host)
        plan = build_plan(far.changes, far.ctx, formats, read_installed=False)
    except PeerFileError as exc:
        err(f"{exc}; nothing was written")
        return EXIT_FAILED
    except ExportRefused as exc:
        err(f"--peer-json {shown(path)}: {'; '.join(exc.problems)}; nothing was written")
        return EXIT_FAILED
    print(f"the far end: {far.ctx.ifname} on {far.ctx.host}, as {shown(path)} shows it")
    for line in far.missing:
        err(f"left out at the far end: {line}")
    for line in plan.skipped:
        err(f"left out at the far end: {line}")
    _differ(changes, far.changes)
    if not plan.files:
        err(f"nothing to export for the far end {far.ctx.ifname}: nothing written")
        return EXIT_FAILED
    hosts = (near[1].host, far.ctx.host)
    if not _HOST_RE.fullmatch(hosts[0]) or hosts[0] == hosts[1]:
        err(
            f"note: inventory.yml not written: this host is {comment(hosts[0])!r}, the far end "
            f"{hosts[1]!r}; --peer-host names the far one (inventory.example.yml: the form)"
        )
        return write_pair(args, near, (plan, far.ctx))
    return write_pair(args, near, (plan, far.ctx), hosts)


def _differ(near: list[Change], far: tuple[Change, ...]) -> None:
    """A note per setting the two ends hold differently: the far role keeps the far value."""
    from tuitune.core.session.kinds.safe import comment

    theirs: dict[tuple[str, str], str] = {
        (c.key.kind, c.key.name): c.current for c in far if c.key.kind != "irq_affinity"
    }
    for c in near:
        other = theirs.get((c.key.kind, c.key.name))
        if other is not None and other != c.current:
            err(
                f"note: {c.key.label}: {comment(c.current)} here, {comment(other)} at the far "
                "end (its role keeps the far end's value)"
            )
