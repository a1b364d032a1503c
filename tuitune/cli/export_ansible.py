"""`tuitune export IFACE --ansible --out DIR` and `--match`: the export as a playbook and role
for a fleet (tuitune.core.export.ansible), and how its files find the NIC on every host."""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import replace
from typing import TYPE_CHECKING

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, err

if TYPE_CHECKING:
    from tuitune.core.export import ExportContext, ExportPlan
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


def add_pair_args(p: argparse.ArgumentParser) -> None:
    _common.peer_end_args(
        p,
        "with --ansible: one playbook for both ends of a link, the far end being network "
        "namespace NS on this machine (the lab's peer), exported from its own journal",
    )


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


def write(args: argparse.Namespace, plan: ExportPlan, ctx: ExportContext) -> int:
    from tuitune.core.export.ansible import role_files

    return _written(args, role_files(plan, ctx, match_note(ctx, args.match)))


def _written(args: argparse.Namespace, files: dict[str, str]) -> int:
    from tuitune.core.export.fleet import write_tree

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
) -> int:
    """Both ends' roles, one playbook, verify.yml and an inventory with a group per end."""
    from tuitune.core.export.ansible import pair_files

    return _written(args, pair_files(near, far, match_note(near[1], args.match)))
