"""Command line: picks a mode. Heavy imports (Rich, Textual, pyroute2) happen per mode."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune import __version__

if TYPE_CHECKING:
    from tuitune.core.hostreader import HostReader

EXIT_USAGE = 2


def _root_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--root",
        type=Path,
        metavar="DIR",
        help="read a recorded host tree (DIR/proc, DIR/sys) instead of this machine",
    )
    p.add_argument(
        "--netns",
        metavar="NAME",
        help="read the interface inside network namespace NAME (see `ip netns list`)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tuitune",
        description="Live tuner for fast NICs: CPUs, IRQs, softirqs, offloads, rings, sysctls.",
    )
    parser.add_argument("--version", action="version", version=f"tuitune {__version__}")
    sub = parser.add_subparsers(dest="command")
    show = sub.add_parser("show", help="print the whole state and one second of rates")
    show.add_argument("iface", nargs="?", help="interface (default: the default route's)")
    show.add_argument("--json", action="store_true", help="print JSON (docs/json-schema.md)")
    show.add_argument(
        "--interval",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="seconds between the two samples the rates come from (default 1)",
    )
    _root_args(show)
    return parser


def _pick_interface(reader: HostReader, wanted: str | None) -> str | None:
    from tuitune.core.host.netdev import default_route_interface

    if wanted:
        reader.check_interface(wanted)
        return wanted
    found: str | None = reader.call(default_route_interface, reader.root)
    return found


def cmd_show(args: argparse.Namespace) -> int:
    from tuitune.core.host.netns import NetnsError
    from tuitune.core.host.root import HostRoot
    from tuitune.core.hostreader import HostReader, UnknownInterface
    from tuitune.core.rates import compute_rates

    if args.root is not None:
        if not (args.root / "proc").is_dir():
            print(f"tuitune: {args.root} has no proc/ directory: not a host tree", file=sys.stderr)
            return EXIT_USAGE
        root = HostRoot.fixture(args.root)
    else:
        root = HostRoot(netns=args.netns)
    if args.interval <= 0 or args.interval > 60:
        print("tuitune: --interval must be between 0 and 60 seconds", file=sys.stderr)
        return EXIT_USAGE
    try:
        reader = HostReader(root)
    except NetnsError as exc:
        print(f"tuitune: {exc}", file=sys.stderr)
        return EXIT_USAGE
    with reader:
        try:
            ifname = _pick_interface(reader, args.iface)
        except UnknownInterface as exc:
            print(f"tuitune: {exc}", file=sys.stderr)
            return EXIT_USAGE
        first = reader.counters(ifname)
        if root.live:
            time.sleep(args.interval)
        snap = reader.snapshot(ifname)
    # Per-CPU detail only for the interface's IRQs: that is all show prints.
    detail = {q.irq for q in snap.nic.irqs} if snap.nic is not None else None
    rates = compute_rates(first, snap.counters, detail) if root.live else None
    if args.json:
        from tuitune.core.jsondoc import show_document

        json.dump(show_document(snap, rates), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from tuitune.show import print_show

        print_show(snap, rates)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        # The live TUI is not built yet: until it is, the bare command shows the state once.
        args = parser.parse_args(["show", *(argv if argv is not None else sys.argv[1:])])
    try:
        return cmd_show(args)
    except BrokenPipeError:
        # `tuitune show --json | head`: the reader left; that is not an error worth a traceback.
        sys.stderr.close()
        return 0
