"""The wheelhouse scripts/wheelhouse builds, built once per test session (about a minute, with
an index to download from) and shared by every test that installs from it."""

from __future__ import annotations

import atexit
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
    and wheel are beside it. The test command (scripts/tiers.py) runs each tier as its own
    pytest and names one directory for all of them (TUITUNE_TEST_WHEELHOUSE): built by the
    first tier that needs it, reused by the next."""
    shared = os.environ.get("TUITUNE_TEST_WHEELHOUSE")
    if shared:
        out = Path(shared) / "wheelhouse"
        done_mark = Path(shared) / "built"
        if done_mark.is_file():
            return out
        shutil.rmtree(shared, ignore_errors=True)
        Path(shared).mkdir(parents=True)
    else:
        top = Path(tempfile.mkdtemp(prefix="tuitune-wheelhouse-"))
        atexit.register(shutil.rmtree, top, ignore_errors=True)
        out = top / "wheelhouse"
    done = subprocess.run(
        [str(REPO / "scripts" / "wheelhouse"), str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    if shared:
        (Path(shared) / "built").touch()
    return out
