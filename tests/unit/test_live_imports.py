"""The live screen loads what it draws, not what only a key opens (issue 18, goal 5): the
export code (E), the benchmark form and runs table (B, N), the sweep (W) and pyroute2 wait for
their key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_the_live_screen_module_leaves_export_bench_screens_and_pyroute2_unloaded() -> None:
    code = (
        "import sys\n"
        "import tuitune.tui.app\n"
        "names = ('tuitune.core.export', 'tuitune.tui.screens.export',\n"
        "         'tuitune.tui.screens.bench_form', 'tuitune.tui.screens.runs', 'pyroute2',\n"
        "         'tuitune.core.sweep.runner', 'tuitune.core.sweep.pivot',\n"
        "         'tuitune.tui.screens.sweep')\n"
        "names += %r\n"
        "print(' '.join(n for n in names if n in sys.modules) or 'none')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code % (SMALL_HOST,)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "none"


# What a small host's first frame does not need and costs memory (issue 38, goal 3: the screen
# held 49 MB after its first frame, 33 MB of it Python and Textual): the session's writers,
# journal and kinds' handlers (the first change, or a journal of this host found at start,
# loads them), a capture's device state (a --root capture only), the P view's discovery,
# psutil (the irqbalance check, only when such a process runs), hashlib and secrets (OpenSSL's
# digests: a recorded tree's journal name, a file written), statistics (a run's strip).
# Issue 38, goal 3 (≤ 40 MB): ssl (OpenSSL, ~4 MB resident; asyncio's TLS, never used: the
# tui package imports asyncio without it, tuitune/tui/notls.py) and pyudev (a device udevd has
# a record of; the device watch reads the uevent socket itself).
SMALL_HOST = (
    "ssl",
    "pyudev",
    "tuitune.core.session.access",
    "tuitune.core.session.journal",
    "tuitune.core.session.journal_replay",
    "tuitune.core.session.journal_records",
    "tuitune.core.session.kinds.table",
    "tuitune.core.session.kinds.base",
    "tuitune.core.session.choices",
    "tuitune.core.session.readback",
    "tuitune.core.session.proc_affinity",
    "tuitune.core.procs.discover",
    "tuitune.core.capture.device",
    "psutil",
    "hashlib",
    "secrets",
    "statistics",
)

# What only a later key (or a later sample) needs: B's runner and iperf3 parser, the Advisor's
# rules (A, and the header's count from the fifth sample on), the P view, the lab's code;
# pyroute2, which the NIC state's qdisc read loaded until it read netlink itself, and the
# recording's player, recorder and replay keys, which a live host does not use, and the W, T
# and E controllers, built on their key (issue 38).
LATER = (
    "pyroute2",
    "tuitune.core.record.player",
    "tuitune.core.record.recorder",
    "tuitune.tui.controllers.replay",
    "tuitune.tui.controllers.sweep",
    "tuitune.tui.controllers.autotune",
    "tuitune.tui.controllers.export",
    "tuitune.core.bench",
    "tuitune.core.bench.runner",
    "tuitune.core.bench.iperf",
    "tuitune.core.bench.notebook",
    "tuitune.core.advise",
    "tuitune.core.advise.facts",
    "tuitune.tui.screens.procs",
    "tuitune.core.lab",
    *(n for n in SMALL_HOST if n != "tuitune.core.capture.device"),  # a tree has its own
)

FIRST_FRAME = """
import sys, tempfile
from tuitune.tui.app import TuituneApp  # first, as `tuitune` does: asyncio comes with it
import asyncio
from pathlib import Path
from tests.support.fixture_hosts import host_4cpu_series

async def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    reader, name = host_4cpu_series(tmp)
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp)}
    with reader:
        app = TuituneApp(reader, name, env=env, limit=2, show_cost=False, save_settings=False)
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(2000):  # the two samples: the first frame, then the NIC state
                if app.samples_drawn >= 2:
                    break
                await pilot.pause(0.01)
            lines = app.screen._compositor.render_strips()
            shown = "\\n".join("".join(s.text for s in strip) for strip in lines)
            app.sampler.stop()
            await pilot.pause()
    print("drawn", app.samples_drawn, "TxRx 0" in shown or "eth4" in shown)
    print(" ".join(n for n in NAMES if n in sys.modules) or "none")
    import ssl  # still there for whatever needs it
    print(ssl.create_default_context().verify_mode == ssl.CERT_REQUIRED)

NAMES = %r
asyncio.run(main())
"""


def test_the_first_frames_leave_the_bench_runner_advise_rules_procs_view_and_lab_unloaded() -> None:
    """The app built, mounted, its first frame and the NIC state's frame drawn: the modules
    of the keys not pressed are still not loaded (they load on the key: tests/tui cover
    B, A, P, W, E)."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME % (LATER,)],
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr
    drawn, loaded, tls = done.stdout.strip().splitlines()[-3:]
    assert drawn == "drawn 2 True"
    assert loaded == "none"
    assert tls == "True"


# What the screen loads from the Advisor's first count on (the fifth sample) is the rules and
# the platform read for the NIC panel title's note; not the setting kinds' handlers, the Host
# view's rows and edits, nor what the kinds bring (issue 38, goal 3: about 2 MB resident of a
# small host's 40 MB). They load on H or with the first change.
AFTER_COUNT = (
    "tuitune.core.session.kinds.table",
    "tuitune.core.session.kinds.base",
    "tuitune.core.session.kinds.fec",
    "tuitune.core.session.service",
    "tuitune.core.session.validate",
    "tuitune.core.session.profile_model",
    "tuitune.core.platformview",
    "tuitune.tui.screens.host",
    "tuitune.tui.host_edit",
    *(n for n in LATER if not n.startswith("tuitune.core.advise")),
)

AFTER_THE_COUNT = """
import sys, tempfile
from tuitune.tui.app import TuituneApp
import asyncio
from pathlib import Path
from tests.support.fixture_hosts import host_32cpu
from tests.support.platform_trees import TREE_OWNS, pepc_tree

async def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    reader, name = host_32cpu(tmp, samples=5)
    pepc_tree(tmp / "host_32cpu", "clx2s0", keep=TREE_OWNS)  # a CPU governor to name
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp)}
    app = TuituneApp(reader, name, interval=0.05, env=env, limit=8, show_cost=False,
                     save_settings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3000):  # the rules' count in the header, the platform's in the title
            if app.advisor.counted is not None and app.platform_note:
                break
            await pilot.pause(0.01)
        app.sampler.stop()
        await pilot.pause()
    print("counted", app.advisor.counted is not None, repr(app.platform_note))
    print(" ".join(n for n in NAMES if n in sys.modules) or "none")

NAMES = %r
asyncio.run(main())
"""


def test_the_count_and_the_platform_note_leave_the_kinds_and_the_host_view_unloaded() -> None:
    """From the fifth sample the header counts the Advisor's findings and the NIC panel's
    title names the platform's worst: both shown, and the setting kinds' modules, the Host
    view's and the rest of the keys not pressed are still not loaded."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", AFTER_THE_COUNT % (AFTER_COUNT,)],
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr
    shown, loaded = done.stdout.strip().splitlines()[-2:]
    assert shown == "counted True '  host: risk cpu-governor (H)'"
    assert loaded == "none"
