"""The tuitune side of the trial watchdog (watchdog.py is the watchdog itself): start it
detached, tell it from a reused pid, stop it. Apart from watchdog.py because that program runs
the journal, and the journal starts it: this half imports no journal, so neither side imports
the other in a circle.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from tuitune.core import proc as programs

MODULE = "tuitune.core.session.watchdog"  # the program, as its argv names it: is_watchdog reads it


def spawn(spec: dict[str, Any]) -> int:
    """Start a detached watchdog for `spec`; returns its pid. Raises OSError if it cannot."""
    try:
        proc = programs.popen(
            programs.python_module_argv(MODULE, json.dumps(spec)),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own session: a terminal hangup does not reach it
        )
    except programs.ProgramRefused as exc:
        raise OSError(str(exc)) from None
    assert proc.stdout is not None
    line = proc.stdout.readline()
    proc.stdout.close()
    proc.wait()
    if proc.returncode != 0 or not line.strip().isdigit():
        raise OSError(f"the trial watchdog did not start (status {proc.returncode})")
    return int(line)


def is_watchdog(pid: int) -> bool:
    """Whether `pid` is (still) a trial watchdog, so that a reused pid is never signalled: our
    own user's process (a journal names the pid), started the way `spawn` starts it."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        owner = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return False
    return owner == os.geteuid() and MODULE.encode() in cmdline.split(b"\0")


def stop(pid: int | None) -> None:
    """End a watchdog that is no longer needed (the trial was confirmed or reverted)."""
    if pid and is_watchdog(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
