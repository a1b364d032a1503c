"""The trial watchdog runs as root: nothing in the directory tuitune was started from, nor in
the environment, may end up imported by it.

As found: `python -m tuitune.core.session.watchdog` put the current directory first on
sys.path, so a trial change made from a directory holding someone's `tuitune/` package ran that
package as root. Here nobody's directory holds such a package (and a sitecustomize.py, and a
startup file), tuitune's cwd is that directory and PYTHONPATH/PYTHONSTARTUP point into it; each
planted file appends to a marker when imported. The trial must still be put back by the
watchdog, and the marker must never appear.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.conftest import VethNs, veth_ns
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session import watchdog_process as wd
from tuitune.core.session.journal_file import read_records

__all__ = ["veth_ns"]

pytestmark = pytest.mark.kernel
NOBODY = 65534
PLANT = "import os\nopen({marker!r}, 'a').write('{what} imported by uid %d\\n' % os.getuid())\n"


@pytest.fixture
def hostile_dir() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="tuitune-cwd-", dir="/tmp"))
    try:
        marker = d / "marker"
        (d / "tuitune").mkdir()
        for rel in ("tuitune/__init__.py", "sitecustomize.py", "startup.py"):
            (d / rel).write_text(PLANT.format(marker=str(marker), what=rel))
        for path in (d, *d.rglob("*")):
            os.chown(path, NOBODY, NOBODY)
        d.chmod(0o777)  # the marker can be made by anyone, so a missing one means "not run"
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def mtu(ns: VethNs, dev: str) -> str:
    return ns.nsexec("cat", f"/sys/class/net/{dev}/mtu").strip()


def test_a_trial_started_from_a_hostile_directory_imports_nothing_from_it(
    veth_ns: VethNs, hostile_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = hostile_dir / "marker"
    monkeypatch.chdir(hostile_dir)
    monkeypatch.setenv("PYTHONPATH", str(hostile_dir))
    monkeypatch.setenv("PYTHONSTARTUP", str(hostile_dir / "startup.py"))
    dev, pid = veth_ns.a, 0
    try:
        with HostAccess(HostRoot(netns=veth_ns.ns)) as access:
            journal = Journal.open(access, tmp_path / "journal")
            out, trial = journal.apply_trial(Key.mtu(dev), "9000", seconds=1.0)
            assert out.status == "changed" and trial is not None, out.reason
            pid = trial.pid or 0
            journal.detach()  # as if tuitune died: the watchdog alone puts it back
        assert not marker.exists(), marker.read_text()  # nothing planted ran at its start
        assert wd.is_watchdog(pid)
        # What the kernel says the watchdog runs with: isolated mode, cwd /, a clean env.
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        assert argv[1] == b"-I"
        assert os.readlink(f"/proc/{pid}/cwd") == "/"
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert not [e for e in env if e.startswith((b"PYTHON", b"LD_"))]
        end = time.monotonic() + 30  # bounds a hang; the assertions are on what happened
        while mtu(veth_ns, dev) != "1500" and time.monotonic() < end:
            time.sleep(0.05)
        assert mtu(veth_ns, dev) == "1500"
        while wd.is_watchdog(pid) and time.monotonic() < end:
            time.sleep(0.05)  # it records how the trial ended, then exits
        ended = [r for r in read_records(journal.path) if r["t"] == "trial-end"]
        assert [(r["how"], r["by"]) for r in ended] == [("reverted", "watchdog")]
    finally:
        wd.stop(pid)
    assert not marker.exists(), marker.read_text()
