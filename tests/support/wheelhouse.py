"""The wheelhouse scripts/wheelhouse builds, built once per test session (about a minute, with
an index to download from) and shared by every test that installs from it."""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def wheelhouse() -> Path:
    """dist/…/wheelhouse of this checkout, in a scratch directory removed at exit; the sdist
    and wheel are beside it."""
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
    return out
