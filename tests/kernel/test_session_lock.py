"""One tuitune at a time changes a host, wherever its journal lives: the one-writer lock was
per journal directory, so a second `--journal-dir` let two tuitunes change one namespace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, JournalBusy, host_id
from tuitune.core.session.journal_dir import LOCK_DIR

from .conftest import VethNs

pytestmark = pytest.mark.kernel
REPO = Path(__file__).resolve().parents[2]


def test_a_second_journal_dir_does_not_bypass_the_lock(veth_ns: VethNs, tmp_path: Path) -> None:
    with HostAccess(HostRoot(netns=veth_ns.ns)) as access:
        first = Journal.open(access, tmp_path / "one")
        try:
            with pytest.raises(JournalBusy, match=r"tuitune \(pid \d+\) is already changing"):
                Journal.open(access, tmp_path / "two")
            profile = tmp_path / "p.toml"
            profile.write_text("[interface]\ntxqueuelen = 2000\n")
            where = ["--netns", veth_ns.ns, "--journal-dir", str(tmp_path / "three")]
            done = subprocess.run(
                [sys.executable, "-m", "tuitune", "apply", str(profile), veth_ns.a, *where],
                capture_output=True,
                text=True,
                cwd=REPO,
            )
            assert done.returncode == 1 and "is already changing" in done.stderr
            assert veth_ns.nsexec("cat", f"/sys/class/net/{veth_ns.a}/tx_queue_len") == "1000\n"
        finally:
            first.detach()
        Journal.open(access, tmp_path / "two").detach()  # free again once released
    # Namespaces come and go: a live host's lock file leaves with its holder.
    assert not (LOCK_DIR / f"{host_id(HostRoot(netns=veth_ns.ns))}.lock").exists()
