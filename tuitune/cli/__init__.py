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
    "completion",
    "autotune",
    "profile",
    "recommend",
    "record",
    "replay",
    "capture",
)


def build_parser() -> argparse.ArgumentParser:
    from tuitune.cli import (
        advise,
        autotune,
        bench,
        capture,
        completion,
        export,
        lab,
        profile,
        record,
        session,
        sweep,
    )

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
    families = (
        live,
        session,
        export,
        lab,
        bench,
        advise,
        sweep,
        autotune,
        profile,
        record,
        capture,
    )
    for family in families:
        family.register(sub)
    completion.register(sub, completion_parser)
    live.register_replay(sub)  # after capture: --help's order
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


def completion_parser() -> argparse.ArgumentParser:
    """The subcommands' parser, with the live screen's options (`tuitune [IFACE] --interval`)
    at the top: the command line's two parsers as the shell sees them (cli/completion.py)."""
    parser = build_parser()
    taken = {s for a in parser._actions for s in a.option_strings}
    for action in build_tui_parser()._actions:
        if action.option_strings and not taken & set(action.option_strings):
            parser._add_action(action)
    return parser


def _parse_command(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """A subcommand's arguments in any order. argparse fills `FILE [IFACE]` only from one run
    of words, so `apply FILE --dry-run --netns NS IFACE` left IFACE over ("unrecognized"):
    a lone word left over is the interface when the command takes one and none was given."""
    args, extra = parser.parse_known_args(argv)
    if (
        len(extra) == 1
        and not extra[0].startswith("-")
        and "iface" in vars(args)
        and args.iface is None
    ):
        try:
            args.iface = _common.ifname(extra[0])
        except argparse.ArgumentTypeError as exc:
            parser.error(f"argument iface: {exc}")
        return args
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `tuitune IFACE` and `tuitune show IFACE` share a namespace of first words: a first word
    # that names a subcommand wins, so an interface called "show" needs `tuitune -- show`.
    if argv and argv[0] in SUBCOMMANDS:
        args = _parse_command(build_parser(), argv)
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
