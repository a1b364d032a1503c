"""`tuitune capture [IFACE] -o FILE.tar.gz`: this host as `--root` reads it (docs/capture.md).

Exit status: 0 written, 1 the capture failed (the line names why; a write cut short leaves
the part written), 2 a usage error (an unknown interface, a file that exists)."""

from __future__ import annotations

import argparse
import errno
import os
import time
from pathlib import Path

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err
from tuitune.core.text import printable


def register(subparsers: _common.Subparsers) -> None:
    p = _common.command(subparsers, "capture", cmd_capture)
    _common.iface_arg(p, "interface to capture (default: the default route's)")
    p.add_argument("-o", "--output", type=Path, metavar="FILE", help="the new FILE.tar.gz")
    p.add_argument(
        "--keep-identity",
        action="store_true",
        help="keep the host name, MAC and IP addresses, serial numbers and process arguments",
    )
    p.add_argument(
        "--seconds",
        type=_common.bounded_float(0.0, 60.0, "seconds"),
        default=3.0,
        metavar="S",
        help="seconds of recording in the capture (default 3; 0: none)",
    )
    p.add_argument("--netns", type=_common.netns, metavar="NAME", help="the host is netns NAME")


def cmd_capture(args: argparse.Namespace) -> int:
    """capture this host for --root: its /proc and /sys files, ethtool state, a recording

    The files are the ones show, advise and the live screen read from a --root tree (the
    readers themselves list them), the interface's ethtool state as JSON, and a few seconds
    of recording (rates, the CPU grid). Anonymised unless --keep-identity: host name, MAC and
    IP addresses, serial numbers, process arguments. Written 0600; manifest.json says what it
    holds. Read it back with --root FILE.tar.gz (show, advise, the live screen, replay).
    """
    from tuitune.core.capture.take import take
    from tuitune.core.record.fileformat import RecordError
    from tuitune.core.watch.hostreader import UnknownInterface

    got = _common.reader_on(args.netns, args.iface, "capture")
    if got is None:
        return EXIT_USAGE
    reader, ifname = got
    reader.close()
    path = args.output or Path(f"tuitune-capture-{ifname}-{time.strftime('%Y%m%d-%H%M%S')}.tar.gz")
    if os.path.lexists(path):  # said before the work; the write itself is O_EXCL too
        err(f"{printable(path)}: exists: not overwritten")
        return EXIT_USAGE
    try:
        done = take(
            path,
            ifname,
            args.netns,
            keep_identity=args.keep_identity,
            seconds=args.seconds,
        )
    except UnknownInterface as exc:
        err(str(exc))
        return EXIT_USAGE
    except (OSError, RecordError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.EEXIST:
            err(f"{printable(path)}: exists: not overwritten")
            return EXIT_USAGE
        err(printable(exc))
        return EXIT_FAILED
    what = "anonymised: " + ", ".join(done.replaced) if done.replaced else "identity kept"
    print(
        f"{printable(done.path)}: {done.files} files, {done.samples} samples, "
        f"{done.bytes} bytes ({what})"
    )
    return EXIT_OK
