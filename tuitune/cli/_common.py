"""What every subcommand shares: exit codes, the one-line error, the host arguments
(--root, --netns, --journal-dir) and the argument types. Each type refuses a bad value with one
line from argparse (exit status 2) before anything reads the host, writes or starts a program.

Kept light (no Rich, Textual or pyroute2): `import tuitune.cli` is on every command's path.

Why here and not in each command: `--interval nan` passed every `<= 0 or > 60` check (NaN
compares false) and spun the screen; a 5,000-character interface name reached os.stat as a
traceback. A type runs at parse time, for every subcommand that declares the option.
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeAlias

from tuitune.core import paths
from tuitune.core.bench.limits import MAX_CPU, BadLength, parse_length
from tuitune.core.names import ifname_problem, netns_problem
from tuitune.core.text import printable

if TYPE_CHECKING:
    from tuitune.core.host.root import HostRoot
    from tuitune.core.watch.hostreader import HostReader

# 0 done; 1 something could not be done, differs or failed; 2 a usage error (bad option, file,
# interface or namespace), as argparse itself exits.
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_JOURNAL_DIR = paths.RUN_DIR

INTERVAL_MIN, INTERVAL_MAX = 0.1, 60.0  # seconds between samples (iperf3's -i has the same)
# A trial change's countdown: long enough to read the header and press y; an hour at most, so
# a forgotten trial (a cut link) still comes back the same day.
TRIAL_MIN, TRIAL_MAX = 2.0, 3600.0
TRIAL_DEFAULT = 30.0  # the screen's TRIAL_SECONDS, not imported here: that would load the TUI


Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
Handler: TypeAlias = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line: what is wrong, and where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _short(text: str) -> str:
    return repr(text) if len(text) <= 24 else f"{text[:24]!r}... ({len(text)} characters)"


def bounded_float(low: float, high: float, what: str) -> Callable[[str], float]:
    """A float type for argparse: finite (no nan, inf), within [low, high]."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_short(text)} is not a number") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{_short(text)}: {what} must be between {low:g} and {high:g}"
            )
        return value

    return parse


interval = bounded_float(INTERVAL_MIN, INTERVAL_MAX, "seconds")
trial_seconds = bounded_float(TRIAL_MIN, TRIAL_MAX, "seconds")


def _checked(problem_of: Callable[[str], str | None]) -> Callable[[str], str]:
    """A type for argparse that takes the text as it is once `problem_of` finds no problem."""

    def parse(text: str) -> str:
        problem = problem_of(text)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return text

    return parse


def _peer_problem(text: str) -> str | None:
    from tuitune.core.advise.peer import peer_problem  # the advisor's package: load it late

    return peer_problem(text)


ifname = _checked(ifname_problem)
netns = _checked(netns_problem)
# A host name or IP address that may reach a program's argv (never an option).
peer = _checked(_peer_problem)


def length(text: str) -> str:
    """iperf3's -l (bench): a number of bytes with an optional K or M, at most 1M."""
    try:
        return parse_length(text)
    except BadLength as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive(text: str) -> int:
    # ASCII digits, and a length bound before int(): int() takes "١٢" and refuses 5,000 digits
    # with a ValueError of its own.
    s = text.strip()
    shown = s if len(s) <= 20 else s[:20] + "..."
    if not (s.isascii() and s.lstrip("+-").isdigit()):
        raise argparse.ArgumentTypeError(f"{shown!r} is not a whole number")
    if len(s) > 12:
        raise argparse.ArgumentTypeError(f"{shown} is out of range")
    value = int(s)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be 1 or more")
    return value


def upto(high: int) -> Callable[[str], int]:
    """A whole number 1..high (iperf3's own limits: it refuses more)."""

    def parse(text: str) -> int:
        value = positive(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"{value} is out of range (1..{high})")
        return value

    return parse


def count_option(
    p: argparse.ArgumentParser | argparse._ArgumentGroup,
    *flags: str,
    high: int,
    help: str,
    default: int | None = None,
    metavar: str = "N",
    dest: str | None = None,
) -> None:
    """A whole-number option bounded to 1..high (durations, streams, repeats, windows)."""
    action = p.add_argument(*flags, type=upto(high), default=default, metavar=metavar, help=help)
    if dest is not None:
        action.dest = dest  # argparse derives it from the flag; -t and -P name theirs


def port(text: str) -> int:
    value = positive(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (1-65535)")
    return value


def pinning(text: str) -> tuple[int, int | None]:
    """-A N or N,M: the client's CPU, and the server's."""
    parts = [p.strip() for p in text.split(",")]
    ok = all(p.isascii() and p.isdigit() and len(p) <= 5 for p in parts)
    if len(parts) > 2 or not ok or any(int(p) > MAX_CPU for p in parts):
        shown = text if len(text) <= 20 else text[:20] + "..."
        raise argparse.ArgumentTypeError(f"{shown!r}: give a CPU number N, or N,M (client,server)")
    return int(parts[0]), int(parts[1]) if len(parts) == 2 else None


def err(msg: str) -> None:
    """A problem, one line on stderr (stdout stays the command's output). Escaped by the one
    sanitiser (core/text.py): a message often quotes a name or a file another user chose."""
    print(f"tuitune: {printable(msg, 4000)}", file=sys.stderr)


def command(subparsers: Subparsers, name: str, run: Handler) -> argparse.ArgumentParser:
    """Subcommand `name`, run by `run`. The handler's docstring is the text the user reads:
    its first paragraph the one-line help in `tuitune --help`, the rest the description in
    `tuitune NAME --help` (argparse rewraps both), so each command's words live beside it."""
    first, _, rest = (inspect.getdoc(run) or "").partition("\n\n")
    p = subparsers.add_parser(name, help=" ".join(first.split()), description=rest or None)
    p.set_defaults(func=run)
    return p


def iface_arg(p: argparse.ArgumentParser, help: str | None, optional: bool = True) -> None:
    """The interface a command works on; optional ones fall back to a default the help names."""
    p.add_argument("iface", nargs="?" if optional else None, type=ifname, help=help)


def report_args(p: argparse.ArgumentParser) -> None:
    """A report on one interface (show, advise): IFACE, else the default route's, and --json."""
    iface_arg(p, "interface (default: the default route's)")
    p.add_argument("--json", action="store_true", help="print JSON (docs/json-schema.md)")


def host_args(
    p: argparse.ArgumentParser,
    netns_help: str = "the host is network namespace NAME",
    journal: bool = False,
) -> None:
    """--root and --netns: which host a command reads (and writes)."""
    p.add_argument(
        "--root",
        type=Path,
        metavar="DIR",
        help="a recorded host tree (DIR/proc, DIR/sys, DIR/etc), or a capture (tuitune "
        "capture's FILE.tar.gz), instead of this machine",
    )
    p.add_argument("--netns", type=netns, metavar="NAME", help=netns_help)
    if journal:
        journal_dir_arg(p)


def journal_dir_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--journal-dir",
        type=Path,
        default=DEFAULT_JOURNAL_DIR,
        metavar="DIR",
        help=f"where change journals live (default {DEFAULT_JOURNAL_DIR})",
    )


def tree_problem(tree: Path) -> str | None:
    """Why --root DIR is not a host tree, or None."""
    return None if (tree / "proc").is_dir() else f"{tree} has no proc/ directory: not a host tree"


_UNPACKED: dict[Path, Path] = {}  # a capture named twice in one command is unpacked once


def host_tree(tree: Path) -> Path | None:
    """The directory --root names: itself, or a capture (`tuitune capture`'s tar.gz)
    unpacked into a private directory; None after one line saying why it is neither."""
    from tuitune.core.capture.unpack import CaptureError, is_capture, unpacked
    from tuitune.core.text import printable

    if is_capture(tree):
        if tree in _UNPACKED:
            return _UNPACKED[tree]
        try:
            _UNPACKED[tree] = tree = unpacked(tree)
        except CaptureError as exc:
            err(str(exc))
            return None
    problem = tree_problem(tree)
    if problem is not None:
        err(printable(problem))
        return None
    return tree


def from_capture(tree: Path | None) -> Path | None:
    """The directory a capture named by --root was unpacked to in this command, else None."""
    return None if tree is None else _UNPACKED.get(tree)


def host_root(args: argparse.Namespace, netns: str | None = None) -> HostRoot | None:
    """The host --root/--netns name (`netns` when --netns is not given), or None after saying
    why --root is not a host tree."""
    from tuitune.core.host.root import HostRoot

    if args.root is not None:
        tree = host_tree(args.root)
        return None if tree is None else HostRoot.fixture(tree)
    return HostRoot(netns=args.netns or netns)


def open_reader(tree: Path | None, netns: str | None, interval: float) -> HostReader | None:
    """The reader for --root/--netns, or None after printing why it cannot be had."""
    from tuitune.core.host.netns import NetnsError
    from tuitune.core.host.root import HostRoot
    from tuitune.core.watch.hostreader import HostReader

    if tree is not None:
        found = host_tree(tree)
        if found is None:
            return None
        root = HostRoot.fixture(found)
    else:
        root = HostRoot(netns=netns)
    # The parser's type refuses nan and out-of-range values; `not lo <= x <= hi` refuses NaN
    # here too (every comparison with NaN is false), for a caller that builds args itself.
    if not INTERVAL_MIN <= interval <= INTERVAL_MAX:
        err("--interval must be between 0.1 and 60 seconds")
        return None
    try:
        return HostReader(root)
    except NetnsError as exc:
        err(str(exc))
        return None


def pick_interface(reader: HostReader, wanted: str | None) -> str | None:
    """`wanted` once the host has it (UnknownInterface if not), else the default route's."""
    from tuitune.core.host.netdev import default_route_interface

    if wanted:
        reader.check_interface(wanted)
        return wanted
    found: str | None = reader.call(default_route_interface, reader.root)
    return found


def reader_on(netns: str | None, wanted: str | None, which: str) -> tuple[HostReader, str] | None:
    """A reader of this machine (or namespace `netns`) and the interface to work on (see
    `pick_interface`), or None after one line saying why not; `which` tells the user which
    interface to name when the host has no default route to fall back to."""
    from tuitune.core.host.netns import NetnsError
    from tuitune.core.host.root import HostRoot
    from tuitune.core.watch.hostreader import HostReader, UnknownInterface

    try:
        reader = HostReader(HostRoot(netns=netns))
    except NetnsError as exc:
        err(str(exc))
        return None
    try:
        ifname = pick_interface(reader, wanted)
    except UnknownInterface as exc:
        problem = str(exc)
    else:
        if ifname is not None:
            return reader, ifname
        problem = f"no interface: name the one {which}"
    reader.close()
    err(problem)
    return None


def screen_args(parser: argparse.ArgumentParser) -> None:
    """The live screen's own options, for every command that opens it (the TUI, the lab)."""
    parser.add_argument(
        "--interval",
        type=interval,
        default=1.0,
        metavar="SECONDS",
        help="seconds between refreshes (default 1)",
    )
    parser.add_argument("--theme", metavar="NAME", help="colour theme (themes/*.toml)")


def trial_arg(parser: argparse.ArgumentParser) -> None:
    """--trial-seconds, for the screens that change things (not `replay`)."""
    parser.add_argument(
        "--trial-seconds",
        type=trial_seconds,
        default=TRIAL_DEFAULT,
        metavar="SECONDS",
        help="countdown of a change that can cut the link (MTU, channels, rings, pause, the SSH "
        "interface) before it is put back unless kept with y (default 30)",
    )


def peer_end_args(p: argparse.ArgumentParser, netns_help: str) -> None:
    """--peer-netns NS --peer-iface IF: the far end of the link, a namespace on this machine
    (the lab's peer); check them with `peer_end_problem`."""
    p.add_argument("--peer-netns", type=netns, metavar="NS", help=netns_help)
    p.add_argument("--peer-iface", type=ifname, metavar="IF", help="the far end's interface in NS")


def peer_end_problem(args: argparse.Namespace) -> str | None:
    if (args.peer_netns is None) != (args.peer_iface is None):
        return "--peer-netns and --peer-iface go together"
    return None
