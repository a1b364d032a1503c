"""Command line: picks a mode. Heavy imports (Rich, Textual, pyroute2) happen per mode."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

from tuitune import __version__
from tuitune.cli import _common as cli_args

if TYPE_CHECKING:
    from tuitune.core.hostreader import HostReader

EXIT_USAGE = 2
SUBCOMMANDS = (
    "show",
    "apply",
    "restore",
    "export",
    "verify",
    "apply-affinity",
    "lab",
    "bench",
    "runs",
)


def _root_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--root",
        type=Path,
        metavar="DIR",
        help="read a recorded host tree (DIR/proc, DIR/sys) instead of this machine",
    )
    p.add_argument(
        "--netns",
        type=cli_args.netns,
        metavar="NAME",
        help="read the interface inside network namespace NAME (see `ip netns list`)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = cli_args.Parser(
        prog="tuitune",
        description="Live tuner for fast NICs: CPUs, IRQs, softirqs, offloads, rings, sysctls.",
    )
    parser.add_argument("--version", action="version", version=f"tuitune {__version__}")
    # Subparsers are Parsers too (one-line usage errors); the modules register on the base type.
    sub = cast(
        "argparse._SubParsersAction[argparse.ArgumentParser]",
        parser.add_subparsers(dest="command"),
    )
    show = sub.add_parser("show", help="print the whole state and one second of rates")
    show.add_argument(
        "iface", nargs="?", type=cli_args.ifname, help="interface (default: the default route's)"
    )
    show.add_argument("--json", action="store_true", help="print JSON (docs/json-schema.md)")
    show.add_argument(
        "--interval",
        type=cli_args.interval,
        default=1.0,
        metavar="SECONDS",
        help="seconds between the two samples the rates come from (default 1)",
    )
    _root_args(show)
    show.set_defaults(func=cmd_show)
    from tuitune.cli import export as cli_export
    from tuitune.cli import session as cli_session

    cli_session.register(sub)
    cli_export.register(sub)
    from tuitune.cli import lab as cli_lab

    cli_lab.register(sub)
    from tuitune.cli import bench as cli_bench

    cli_bench.register(sub)
    return parser


def build_tui_parser() -> argparse.ArgumentParser:
    parser = cli_args.Parser(
        prog="tuitune",
        usage=f"tuitune [IFACE] [options] | tuitune {{{','.join(SUBCOMMANDS)}}} ...",
        description="Live tuner for fast NICs: CPUs, IRQs, softirqs, offloads, rings, sysctls. "
        f"Subcommands: {', '.join(SUBCOMMANDS)} (see `tuitune COMMAND --help`).",
    )
    parser.add_argument("--version", action="version", version=f"tuitune {__version__}")
    parser.add_argument(
        "iface",
        nargs="?",
        type=cli_args.ifname,
        help="interface to watch (default: pick from a list)",
    )
    parser.add_argument(
        "--interval",
        type=cli_args.interval,
        default=1.0,
        metavar="SECONDS",
        help="seconds between refreshes (default 1)",
    )
    parser.add_argument("--theme", metavar="NAME", help="colour theme (themes/*.toml)")
    _root_args(parser)
    return parser


def _pick_interface(reader: HostReader, wanted: str | None) -> str | None:
    from tuitune.core.host.netdev import default_route_interface

    if wanted:
        reader.check_interface(wanted)
        return wanted
    found: str | None = reader.call(default_route_interface, reader.root)
    return found


def _open_reader(args: argparse.Namespace) -> HostReader | None:
    """The reader for --root/--netns, or None after printing why it cannot be had."""
    from tuitune.core.host.netns import NetnsError
    from tuitune.core.host.root import HostRoot
    from tuitune.core.hostreader import HostReader

    if args.root is not None:
        if not (args.root / "proc").is_dir():
            print(f"tuitune: {args.root} has no proc/ directory: not a host tree", file=sys.stderr)
            return None
        root = HostRoot.fixture(args.root)
    else:
        root = HostRoot(netns=args.netns)
    # The parser's type refuses nan and out-of-range values; `not lo <= x <= hi` refuses NaN
    # here too (every comparison with NaN is false), for a caller that builds args itself.
    if not cli_args.INTERVAL_MIN <= args.interval <= cli_args.INTERVAL_MAX:
        print("tuitune: --interval must be between 0.1 and 60 seconds", file=sys.stderr)
        return None
    try:
        return HostReader(root)
    except NetnsError as exc:
        print(f"tuitune: {exc}", file=sys.stderr)
        return None


def cmd_show(args: argparse.Namespace) -> int:
    from tuitune.core.hostreader import UnknownInterface
    from tuitune.core.rates import compute_rates

    reader = _open_reader(args)
    if reader is None:
        return EXIT_USAGE
    root = reader.root
    with reader:
        try:
            ifname = _pick_interface(reader, args.iface)
        except UnknownInterface as exc:
            print(f"tuitune: {exc}", file=sys.stderr)
            return EXIT_USAGE
        first = reader.counters(ifname)
        if root.live:
            time.sleep(args.interval)
        try:
            snap = reader.snapshot(ifname)
        except UnknownInterface as exc:  # deleted during the interval
            print(f"tuitune: {exc}", file=sys.stderr)
            return EXIT_USAGE
    # A file that could not be read is shown as missing numbers, and named here.
    for problem in snap.counters.problems:
        print(f"tuitune: {problem}", file=sys.stderr)
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


def cmd_tui(args: argparse.Namespace) -> int:
    from tuitune.core.hostreader import UnknownInterface

    reader = _open_reader(args)
    if reader is None:
        return EXIT_USAGE
    with reader:
        if args.iface:
            try:
                reader.check_interface(args.iface)
            except UnknownInterface as exc:
                print(f"tuitune: {exc}", file=sys.stderr)
                return EXIT_USAGE
        from tuitune.tui.app import TuituneApp

        try:
            app = TuituneApp(
                reader,
                args.iface,
                interval=args.interval,
                theme=args.theme,
                lab=getattr(args, "lab", None),  # `tuitune lab`: leaving offers to remove it
            )
        except ValueError as exc:  # an unknown --theme: say which exist
            print(f"tuitune: {exc}", file=sys.stderr)
            return EXIT_USAGE
        app.run()
    return app.return_code or 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `tuitune IFACE` and `tuitune show IFACE` share a namespace of first words: a first word
    # that names a subcommand wins, so an interface called "show" needs `tuitune -- show`.
    if argv and argv[0] in SUBCOMMANDS:
        args = build_parser().parse_args(argv)
    elif argv[:1] in (["-h"], ["--help"]):
        build_tui_parser().print_help()
        return 0
    else:
        if argv[:1] == ["--"]:
            argv = argv[1:]
        args = build_tui_parser().parse_args(argv)
        args.func = cmd_tui
    try:
        result: int = args.func(args)
        return result
    except BrokenPipeError:
        # `tuitune show --json | head`: the reader left; that is not an error worth a traceback.
        sys.stderr.close()
        return 0
