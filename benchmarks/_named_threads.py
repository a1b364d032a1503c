"""`tuitune ARGS` with each Python thread's name given to its OS thread, so that
/proc/PID/task/TID/comm tells tuitune-sampler, tuitune-kernel_0, textual-input and
textual-output apart in bench_observer's per-thread table. Nothing else changes: the same
tuitune.cli.main runs; the only extra work is one prctl() per thread start.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any

PR_SET_NAME = 15  # <linux/prctl.h>
_libc = ctypes.CDLL(None, use_errno=True)
_start_inner: Any = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]


def _named(self: threading.Thread) -> None:
    _libc.prctl(PR_SET_NAME, self.name.encode()[:15], 0, 0, 0)
    _start_inner(self)


if __name__ == "__main__":
    threading.Thread._bootstrap_inner = _named  # type: ignore[attr-defined]
    from tuitune.cli import main

    sys.argv[0] = "tuitune"
    raise SystemExit(main())
