"""The trial watchdog: a detached process that puts a trial change back if nobody confirms it.

Why a process of its own: a change that cuts the SSH connection also kills the terminal, and
with it the tuitune process (SIGHUP) that would have reverted it at the end of the countdown.
The watchdog runs in its own session (no controlling terminal, SIGHUP ignored) and is
re-parented to init (double fork), so neither a hangup, a closed terminal nor a `kill -9` of
tuitune stops it. It sleeps until the deadline plus a short grace (the live tuitune, if any,
acts at the deadline itself), then, unless the journal says the trial ended, undoes the trial
step through the journal, verifies by reading back, and records how it ended.

systemd-run would be the other way (a transient timer unit); this helper needs nothing but
Python and works where systemd does not run (containers, this project's test VMs).

watchdog_process.py starts, recognises and stops it, as `python -I -c BOOT PKG
tuitune.core.session.watchdog SPEC_JSON` (see tuitune.core.proc): isolated mode, so neither the
current directory nor PYTHONPATH and the like put a module on sys.path, a clean environment,
cwd /, and the tuitune package imported from exactly the directory this tuitune runs from.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

GRACE_SECONDS = 1.5  # after the deadline: the live tuitune reverts first, the watchdog second
POLL_SECONDS = 0.25


def _detach() -> None:
    """Second fork: the intermediate prints the watchdog's pid and exits, so the watchdog is
    re-parented to init and never becomes a zombie of the tuitune that started it."""
    pid = os.fork()
    if pid:
        sys.stdout.write(f"{pid}\n")
        sys.stdout.flush()
        os._exit(0)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    os.chdir("/")


def _trial_open(directory: Path, host: str, trial_id: str) -> bool:
    # The journal's imports wait until after the fork: the tuitune that spawns us waits only for
    # the pid line, not for them.
    from tuitune.core.session.journal import JournalState
    from tuitune.core.session.journal_file import journal_path, read_records

    state = JournalState.replay(read_records(journal_path(directory, host)))
    return state.trial is not None and state.trial.id == trial_id


def run(spec: dict[str, Any]) -> int:
    """Wait for the deadline, then expire the trial if it is still open."""
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session.access import HostAccess
    from tuitune.core.session.journal import Journal
    from tuitune.core.session.journal_file import JournalFile

    directory, host, trial_id = Path(spec["dir"]), spec["host"], spec["id"]
    wake = float(spec["deadline"]) + float(spec.get("grace", GRACE_SECONDS))
    while time.time() < wake:
        if not _trial_open(directory, host, trial_id):
            return 0  # confirmed or reverted by tuitune
        time.sleep(min(POLL_SECONDS, max(0.0, wake - time.time())))
    if not _trial_open(directory, host, trial_id):
        return 0
    r = spec["root"]
    root = HostRoot(proc=Path(r["proc"]), sys=Path(r["sys"]), netns=r["netns"], live=r["live"])
    with HostAccess(root) as access:
        journal = Journal(access, JournalFile.attach(directory, host))
        try:
            journal.expire_trial(trial_id, by="watchdog")
        finally:
            journal.detach()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    spec = json.loads(args[0])
    _detach()
    return run(spec)


if __name__ == "__main__":
    sys.exit(main())
