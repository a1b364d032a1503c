"""The live command's process collects less often once started (core/gcpolicy.py): a tick on a
1152-CPU host ran one young collection over its large lists each time. It also hands the C
allocator's free pages back once started and every few samples after (issue 38, goal 3). Apps
built by tests (many in one process) keep the collector and the allocator as they are."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tuitune.core.gcpolicy import TRIM_EVERY, YOUNG

APP = """
import asyncio, gc, tempfile
from pathlib import Path
from tests.support.fixture_hosts import host_4cpu_series
from tuitune.core import gcpolicy
from tuitune.tui.app import TuituneApp

trims = []
LIMIT = %d  # samples: the trim every TRIM_EVERY samples comes after the one when settled
gcpolicy._TRIM = lambda pad: trims.append(pad) or 1  # glibc's malloc_trim, counted

async def main(settle: bool) -> str:
    tmp = Path(tempfile.mkdtemp())
    reader, name = host_4cpu_series(tmp)
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp)}
    before = gc.get_threshold()[0]
    with reader:
        app = TuituneApp(
            reader, name, interval=0.05, env=env, limit=LIMIT, show_cost=False, save_settings=False
        )
        app.settle_gc = settle
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(3000):
                if app.samples_drawn >= LIMIT and len(trims) >= settle * 2:
                    break
                await pilot.pause(0.01)
            app.sampler.stop()
            await pilot.pause()
    frozen = gc.get_freeze_count() > 0
    return f"{app.samples_drawn} {before} {gc.get_threshold()[0]} {frozen} {len(trims)}"

print(asyncio.run(main(%s)))
"""


def _run(settle: bool) -> list[str]:
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", APP % (TRIM_EVERY, settle)], capture_output=True, text=True, cwd=root
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_live_command_collects_less_often_once_started() -> None:
    drawn, before, after, frozen, trims = _run(True)
    assert int(drawn) >= TRIM_EVERY and int(before) < YOUNG
    assert int(after) == YOUNG and frozen == "True"
    assert int(trims) >= 2  # settled, then the TRIM_EVERY-th sample


def test_an_app_built_by_a_test_leaves_the_collector_alone() -> None:
    drawn, before, after, frozen, trims = _run(False)
    assert int(drawn) >= TRIM_EVERY and after == before and frozen == "False" and trims == "0"
