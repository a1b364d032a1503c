"""The far end's own findings in the lab (issue 36: candidates "at both ends when the far end
is reachable"): the far end of a two-namespace lab is judged by its own advisor, the real
`tuitune advise --json --netns` run in a clean interpreter (core/autotune/far.py), and its
finding becomes a candidate at the far end only, applied through the far end's own journal
and put back exactly, this end untouched.

The far end's bad start, written down: tso, gso and sg off on the far end's veth (the iperf3
server's). The near end is as the kernel made it. No benchmark runs here: the search itself
is the CLI's (tests/kernel/test_autotune_bad_start.py runs it with the far end reachable);
what this proves is that the far end is judged for real and changed only at the far end.
About 4 s (the advisor's 2 s of samples and a Python start).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kernel.test_sweep_kernel import Pair, run
from tests.kernel.test_sweep_kernel import pair as pair  # the fixture
from tests.kernel.test_sweep_lab import _ends
from tuitune.core.autotune.far import far_end_candidates
from tuitune.core.autotune.host import AtPeer, JournalHost
from tuitune.core.host.root import HostRoot
from tuitune.core.session import Key, Session

pytestmark = pytest.mark.kernel


def _far_offloads(p: Pair) -> tuple[str, str, str]:
    k = run("ip", "netns", "exec", p.server_ns, "ethtool", "-k", p.peer)
    want = ("tcp-segmentation-offload:", "generic-segmentation-offload:", "scatter-gather:")
    pairs = (ln.split(":", 1) for ln in k.splitlines()[1:] if ":" in ln)
    got = {name.strip() + ":": rest.split()[0] for name, rest in pairs if rest.split()}
    return got[want[0]], got[want[1]], got[want[2]]


def test_the_far_ends_own_finding_is_tried_there_and_put_back(pair: Pair, tmp_path: Path) -> None:
    for off in (("tso", "off"), ("gso", "off", "sg", "off")):
        run("ip", "netns", "exec", pair.server_ns, "ethtool", "-K", pair.peer, *off)
    assert _far_offloads(pair) == ("off", "off", "off")
    before = _ends(pair)
    said: list[str] = []
    cands, skipped = far_end_candidates(pair.server_ns, pair.peer, "any", [], said.append)
    assert not any(s.startswith("the far end's findings:") for s in skipped), skipped
    far = next((c for c in cands if c.id == "peer:offload-disabled"), None)
    assert far is not None, ([c.id for c in cands], skipped)
    assert all(isinstance(k, AtPeer) for k, _ in far.changes)  # nothing at this end
    assert (AtPeer(Key.feature(pair.peer, "tx-tcp-segmentation")), "on") in far.changes
    journals = tmp_path / "journal"
    near = Session(HostRoot(netns=pair.client_ns), journal_dir=journals)
    peer = Session(HostRoot(netns=pair.server_ns), journal_dir=journals)
    host = JournalHost(near, peer)
    try:
        assert host.apply(far.changes) is None
        assert _far_offloads(pair) == ("on", "on", "on")  # the kernel holds it, there
        assert _ends(pair)[:2] == before[:2]  # this end: features and MTU as they were
        host.undo()
        assert _ends(pair) == before  # exactly: both ends' features, MTU, RPS/XPS
    finally:
        left = host.revert_all()
        for s in (near, peer):
            s.close()
    assert not left
    assert _ends(pair) == before
