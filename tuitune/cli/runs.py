"""Headless `tuitune runs`: the notebook as a table, Markdown or CSV; the baseline; two runs
compared side by side.

Exit status: 0 done, 2 a usage error (no interface or notebook, an unknown run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tuitune.cli import _common
from tuitune.cli._common import EXIT_OK, EXIT_USAGE, err
from tuitune.cli.bench import bench_notebook, found_lab


def register(subparsers: _common.Subparsers) -> None:
    runs = _common.command(subparsers, "runs", cmd_runs)
    _common.iface_arg(runs, "the interface (default: the lab's)")
    runs.add_argument(
        "--netns",
        type=_common.netns,
        metavar="NS",
        help="the interface is in network namespace NS",
    )
    fmt = runs.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="print a Markdown table")
    fmt.add_argument("--csv", action="store_true", help="print CSV")
    fmt.add_argument(
        "--compare", nargs=2, metavar="ID", help="two runs side by side: results and settings"
    )
    runs.add_argument("--baseline", metavar="ID", help="make run ID the baseline (remembered)")
    runs.add_argument("--notebook", type=Path, metavar="FILE", help="the notebook file")


def cmd_runs(args: argparse.Namespace) -> int:
    """the notebook: every run, what changed against the baseline, and what it did

    Print the recorded runs of an interface: per request the median and range over repeats of
    throughput, retransmits and CPU, the change against the baseline run, and the settings
    that differ from it.
    """
    from tuitune.core.bench.runformat import compare, to_csv, to_markdown, to_text

    ifname, netns = args.iface, args.netns
    if args.notebook is None and ifname is None:
        lab = found_lab()
        if lab is not None and netns in (None, lab.netns):
            ifname, netns = lab.ifname, lab.netns
        else:
            err("name the interface (tuitune runs IFACE) or the file (--notebook FILE)")
            return EXIT_USAGE
    notebook = bench_notebook(args, ifname, netns)
    try:
        notebook.check(write=bool(args.baseline))
    except OSError as exc:
        err(f"notebook: {exc}")
        return EXIT_USAGE
    if not notebook.path.exists():
        print(f"no runs yet for {ifname or notebook.path} ({notebook.path}): tuitune bench")
        return EXIT_OK
    if args.baseline:
        try:
            notebook.set_baseline(args.baseline)
        except ValueError as exc:
            err(str(exc))
            return EXIT_USAGE
    if args.compare:
        found = [notebook.find(i) for i in args.compare]
        missing = [i for i, r in zip(args.compare, found, strict=True) if r is None]
        if missing:
            err(f"no run {', '.join(missing)} in {notebook.path}")
            return EXIT_USAGE
        a, b = found
        assert a is not None and b is not None
        pairs = compare(a, b)
        width = max(len(n) for n, _, _ in pairs)
        left = max(len(x) for _, x, _ in pairs)
        for name, x, y in pairs:
            mark = "  *" if x != y and name not in ("run", "started") else ""
            print(f"{name.ljust(width)}  {x.ljust(left)}  {y}{mark}")  # compare() escaped them
        return EXIT_OK
    rows = notebook.table()
    if args.markdown:
        sys.stdout.write(to_markdown(rows))
    elif args.csv:
        sys.stdout.write(to_csv(rows))
    else:
        sys.stdout.write(to_text(rows))
    if notebook.skipped:
        err(f"{notebook.skipped} unreadable line(s) in {notebook.path} skipped")
    return EXIT_OK
