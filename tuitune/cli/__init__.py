"""Command line: picks a mode. Heavy imports (Rich, Textual, pyroute2) happen per mode.

One module per family of subcommands (live: show and the TUI; session: apply, restore;
export: export, verify, apply-affinity; lab; bench: bench, runs; advise; sweep), and what they
share in
_common (exit codes, the one-line error, the host arguments, the argument types).
"""

from __future__ import annotations

import argparse
import sys
from typing import cast

from tuitune import __version__
from tuitune.cli import _common, live

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
    "advise",
    "sweep",
    "record",
    "replay",
)


def build_parser() -> argparse.ArgumentParser:
    from tuitune.cli import advise, bench, export, lab, record, session, sweep

    parser = _common.Parser(
        prog="tuitune",
        description="Live tuner for fast NICs: CPUs, IRQs, softirqs, offloads, rings, sysctls.",
    )
    parser.add_argument("--version", action="version", version=f"tuitune {__version__}")
    # Subparsers are Parsers too (one-line usage errors); the modules register on the base type.
    sub = cast(
        "argparse._SubParsersAction[argparse.ArgumentParser]",
        parser.add_subparsers(dest="command"),
    )
    for family in (live, session, export, lab, bench, advise, sweep, record):
        family.register(sub)
    record.register_replay(sub)
    return parser


def build_tui_parser() -> argparse.ArgumentParser:
    parser = _common.Parser(
        prog="tuitune",
        usage=f"tuitune [IFACE] [options] | tuitune {{{','.join(SUBCOMMANDS)}}} ...",
        description="Live tuner for fast NICs: CPUs, IRQs, softirqs, offloads, rings, sysctls. "
        f"Subcommands: {', '.join(SUBCOMMANDS)} (see `tuitune COMMAND --help`).",
    )
    parser.add_argument("--version", action="version", version=f"tuitune {__version__}")
    live.tui_args(parser)
    return parser


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
    try:
        result: int = args.func(args)
        return result
    except BrokenPipeError:
        # `tuitune show --json | head`: the reader left; that is not an error worth a traceback.
        sys.stderr.close()
        return 0
