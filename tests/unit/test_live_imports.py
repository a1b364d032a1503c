"""The live screen loads what it draws, not what only a key opens (issue 18, goal 5): the
export code (E), the benchmark form and runs table (B, N), the sweep (W) and pyroute2 wait for
their key."""

from __future__ import annotations

import subprocess
import sys


def test_the_live_screen_module_leaves_export_bench_screens_and_pyroute2_unloaded() -> None:
    code = (
        "import sys\n"
        "import tuitune.tui.app\n"
        "names = ('tuitune.core.export', 'tuitune.tui.screens.export',\n"
        "         'tuitune.tui.screens.bench_form', 'tuitune.tui.screens.runs', 'pyroute2',\n"
        "         'tuitune.core.sweep.runner', 'tuitune.core.sweep.pivot',\n"
        "         'tuitune.tui.screens.sweep')\n"
        "print(' '.join(n for n in names if n in sys.modules) or 'none')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "none"
