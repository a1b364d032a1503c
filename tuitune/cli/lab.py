"""`tuitune lab`: build (or reuse) the two-namespace lab and open the live screen on it.

    tuitune lab             clean a stale lab, reuse a live one or build one, open the TUI
    tuitune lab --no-tui    the same without the TUI: print how to use the lab
    tuitune lab --status    what lab exists, and any stale leftovers
    tuitune lab --down      remove the lab (and any stale leftovers)

Exit status: 0 done, 1 `--status` found no lab or the lab could not be built, 2 not root or
a tool missing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err
from tuitune.core import paths

if TYPE_CHECKING:
    from tuitune.core.lab import Lab


def register(subparsers: _common.Subparsers) -> None:
    lab = _common.command(subparsers, "lab", cmd_lab)
    mode = lab.add_mutually_exclusive_group()
    mode.add_argument(
        "--no-tui", action="store_true", help="build (or reuse) it and print how to use it"
    )
    mode.add_argument("--down", action="store_true", help="remove it and any stale leftovers")
    mode.add_argument("--status", action="store_true", help="show the lab and stale leftovers")
    _common.screen_args(lab)
    _common.trial_arg(lab)
    lab.add_argument(
        "--state-dir",
        type=Path,
        default=paths.RUN_DIR,
        metavar="DIR",
        help=f"where the lab's state file lives (default {paths.RUN_DIR})",
    )


def _as_root_hint(args: argparse.Namespace) -> str:
    flags = [f for f, on in (("--no-tui", args.no_tui), ("--down", args.down),
                             ("--status", args.status)) if on]  # fmt: skip
    return " ".join(["sudo", _command(), "lab", *flags])


def _command() -> str:
    """How root can start this tuitune: sudo's PATH holds only the system directories, so a
    tuitune in a virtualenv needs its full path."""
    argv0 = Path(sys.argv[0])
    if argv0.name != "tuitune":  # `python -m tuitune`, or a test runner
        return "tuitune"
    path = Path(os.path.abspath(argv0))  # as invoked: a symlink in /usr/local/bin is fine
    system = ("/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin", "/usr/local/sbin", "/sbin")
    return "tuitune" if str(path.parent) in system else str(path)


def cmd_lab(args: argparse.Namespace) -> int:
    """a safe place to try everything: two network namespaces, a veth pair and an iperf3
    server, watched in the live screen

    Build a two-host lab on this machine (network namespaces tuitune-lab-TAG and
    tuitune-peer-TAG joined by a veth pair, addresses from 198.18.0.0/15 inside them only, an
    iperf3 server in the peer) and open the live screen on the lab's end. The machine's own
    interfaces are never touched. Needs root.
    """
    if os.geteuid() != 0:
        err(f"the lab needs root (it creates network namespaces): run `{_as_root_hint(args)}`")
        return EXIT_USAGE
    from tuitune.core.lab.state import LabError
    from tuitune.core.text import printable

    state_dir: Path = args.state_dir
    try:
        return _lab(args, state_dir)
    except (OSError, LabError) as exc:  # the state dir or the lock is not root's alone, ...
        err(printable(str(exc), 1000))  # one line, whatever a file or a name held
        return EXIT_FAILED


def _lab(args: argparse.Namespace, state_dir: Path) -> int:
    from tuitune.core import lab as labmod

    if args.status:
        return _status(state_dir)
    if args.down:
        recorded = labmod.current_lab(state_dir)
        held = labmod.holders(recorded) if recorded is not None else []
        removed = labmod.down(None, state_dir) + labmod.clean_stale(state_dir)
        print("\n".join(f"removed {item}" for item in removed) or "no lab to remove")
        for line in held:
            err(f"warning: {line}")
        for line in labmod.find_orphans(state_dir):  # not this state dir's: never removed
            err(line)
        return EXIT_OK
    missing = labmod.missing_tools()
    if missing:
        err(f"the lab needs {', '.join(missing)}")
        return EXIT_USAGE
    stale = labmod.find_stale(state_dir)
    if stale:
        removed = labmod.clean_stale(state_dir)
        err(f"removed a stale lab: {'; '.join(stale)}: {', '.join(removed) or 'nothing left'}")
    try:
        lab = labmod.current_lab(state_dir)
        if lab is not None:
            lab = labmod.reuse(lab)
            err(f"reusing lab {lab.name}")
        else:
            lab = labmod.build(state_dir)
            err(f"built lab {lab.name}")
    except labmod.LabError as exc:
        err(str(exc))
        return EXIT_FAILED
    if args.no_tui:
        print("\n".join(labmod.describe(lab)))
        return EXIT_OK
    return _tui(args, lab)


def _tui(args: argparse.Namespace, lab: Lab) -> int:
    """The live screen on the lab's end, through the same path as `tuitune --netns NS IFACE`;
    leaving it offers to remove the lab."""
    from tuitune.cli.live import run_tui
    from tuitune.core.lab import current_lab

    code = run_tui(
        tree=None,
        netns=lab.netns,
        iface=lab.ifname,
        interval=args.interval,
        theme=args.theme,
        lab=lab,
        trial_seconds=args.trial_seconds,
    )
    if current_lab(lab.state_dir) is None:
        err(f"lab {lab.name} removed")
    else:
        err(
            f"lab {lab.name} stays: `tuitune --netns {lab.netns} {lab.ifname}` watches it, "
            f"`{labmod_down(lab)}` removes it"
        )
    return code


def labmod_down(lab: Lab) -> str:
    from tuitune.core.lab import down_command

    return down_command(lab.state_dir)


def _status(state_dir: Path) -> int:
    from tuitune.core import lab as labmod

    lab = labmod.current_lab(state_dir)
    stale = labmod.find_stale(state_dir)
    if lab is not None:
        owner = "alive" if labmod.owner_alive(lab) else "gone"
        print("\n".join(labmod.describe(lab)))
        print(f"owner: pid {lab.owner_pid} ({owner}); state file {state_dir / labmod.STATE_FILE}")
    else:
        print("no lab (`tuitune lab` builds one)")
    for item in stale:
        down = labmod.down_command(state_dir)
        print(f"stale: {item} (`tuitune lab` or `{down}` removes it)")
    for line in labmod.find_orphans(state_dir):
        print(f"stale: {line}")
    return EXIT_OK if lab is not None else EXIT_FAILED
