"""Autotune's trial on this machine's own link (issue 36: each candidate "applied through the
journal, on trial where risky"), proven on a veth in a namespace with the trial forced on
(`JournalHost(trial_seconds=...)`, which the CLI and `T` set outside a lab): an MTU
candidate goes on trial with a detached watchdog, a candidate put back ends its trial
(the watchdog stopped, the kernel's MTU as it was), and a kept one is confirmed and stays
until restore. No benchmark runs: the search around it is tests/unit/test_autotune.py's.
"""

from __future__ import annotations

import os
import select
from pathlib import Path

import pytest

from tests.kernel.test_sweep_kernel import Pair, run
from tests.kernel.test_sweep_kernel import pair as pair  # the fixture
from tuitune.core.autotune.host import JournalHost
from tuitune.core.host.root import HostRoot
from tuitune.core.session import Key, Session

pytestmark = pytest.mark.kernel


def _mtu(p: Pair) -> str:
    out = run("ip", "netns", "exec", p.client_ns, "cat", f"/sys/class/net/{p.dev}/mtu")
    return out.strip()


def _ends(pid: int | None) -> bool:
    """The watchdog process exits (awaited on its pidfd, bounded): it was stopped."""
    assert pid is not None
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], 30)[0])
    finally:
        os.close(fd)


def test_a_risky_candidate_goes_on_trial_and_ends_it_put_back_or_kept(
    pair: Pair, tmp_path: Path
) -> None:
    before = _mtu(pair)
    session = Session(HostRoot(netns=pair.client_ns), journal_dir=tmp_path / "journal")
    host = JournalHost(session, None, trial_seconds=600)
    mtu = Key.mtu(pair.dev)
    sack = Key.sysctl("net.ipv4.tcp_sack")
    try:
        # Put back: the trial is open while it runs (a watchdog process), then reverted.
        assert host.apply([(mtu, "1400"), (sack, "0")]) is None
        trial = session.run(lambda j: j.trial)
        assert trial is not None and trial.key == mtu and _mtu(pair) == "1400"
        assert trial.pid is not None and os.path.exists(f"/proc/{trial.pid}")
        host.undo()
        assert session.run(lambda j: j.trial) is None and _mtu(pair) == before
        assert _ends(trial.pid)
        end = session.run(lambda j: j.last_trial_end)
        assert end is not None and end.how == "reverted" and end.by == "tuitune"
        assert session.originals() == {}  # the sysctl's step went back too
        # Kept: the trial is confirmed and the MTU stays; restore gives back the start.
        assert host.apply([(mtu, "1400")]) is None
        kept = session.run(lambda j: j.trial)
        assert kept is not None
        host.keep()
        assert _ends(kept.pid)
        end = session.run(lambda j: j.last_trial_end)
        assert end is not None and end.how == "confirmed" and _mtu(pair) == "1400"
        assert session.run(lambda j: j.trial) is None
        # Two link resets in one candidate: refused before anything is written.
        why = host.apply([(mtu, "1300"), (Key.field(pair.dev, "ring", "rx"), "512")])
        assert why is not None and "2 changes that can cut the link" in why
        assert _mtu(pair) == "1400"
    finally:
        left = host.revert_all()
        session.close()
    assert not left and _mtu(pair) == before
