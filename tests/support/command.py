"""The tests' one way to run the `tuitune` command: `python -m tuitune ARGS` with this
interpreter (so the checkout under test, not whatever `tuitune` is on PATH), from the
repository's root, output captured as text. It never raises on a non-zero exit: the test
asserts on `returncode`, `stdout` and `stderr` as a user would read them. `ran` is the same
command in this process (its `main`), for tests that need no process of its own.

The timeout only ends a hung command (the slowest user, an Ansible run against a peer
namespace, takes about a minute); no test's outcome depends on it.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

from tuitune.cli import main

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 300.0


def tuitune(*args: str | Path, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "tuitune", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=timeout)


def ran(*args: str | Path) -> tuple[int, str, str]:
    """`tuitune ARGS` through its main in this process: the exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()
