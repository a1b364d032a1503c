"""The wheelhouse scripts/wheelhouse builds, built once per test session (about a minute, with
an index to download from) and shared by every test that installs from it."""

from __future__ import annotations

import atexit
import fcntl
import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def wheelhouse() -> Path:
    """dist/…/wheelhouse of this checkout, in a scratch directory removed at exit; the sdist
    and wheel are beside it. The test command (scripts/tiers.py) names one directory for all
    its tiers (TUITUNE_TEST_WHEELHOUSE) and builds it there from the start, holding its lock:
    taking the lock waits for that build; built by the first tier to get it otherwise."""
    shared = os.environ.get("TUITUNE_TEST_WHEELHOUSE")
    if shared:
        Path(shared).mkdir(parents=True, exist_ok=True)
        with open(Path(shared) / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            return _shared(Path(shared))
    top = Path(tempfile.mkdtemp(prefix="tuitune-wheelhouse-"))
    atexit.register(shutil.rmtree, top, ignore_errors=True)
    return _build(top / "wheelhouse")


def _shared(shared: Path) -> Path:
    out = shared / "wheelhouse"
    if not (shared / "built").is_file():
        shutil.rmtree(out, ignore_errors=True)
        _build(out)
        (shared / "built").touch()
    return out


def _build(out: Path) -> Path:
    done = subprocess.run(
        [str(REPO / "scripts" / "wheelhouse"), str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out
