"""T's candidates (tui/controllers/autotune.py `_candidates`): the advisor's, then the
recommended profile's values scaled to the host (as `autotune --profile auto`), a setting
tried once; with the lab's far end, what both ends share is set at both (as `--lab`). A
recorded host with fakes at the port: no benchmark runs, nothing is written."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.advise import peer as peer_mod
from tuitune.core.autotune.host import AtPeer
from tuitune.core.autotune.search import Candidate
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Key, Session
from tuitune.tui.controllers.autotune import _candidates, _Job

DEV = "eno49"


class _Reader:
    def __init__(self, root: HostRoot) -> None:
        self.root = root

    def call(self, f: Any, *args: Any) -> Any:
        return f(*args)

    def nic_state(self, ifname: str, with_stats: bool) -> Any:
        return SimpleNamespace(rings=None, channels=None)  # no ethtool maxima recorded

    def snapshot(self, ifname: str) -> Any:
        return SimpleNamespace(nic=None, host=None)  # one NUMA node: no IRQ placement read


def _job(tmp_path: Path, far: str | None, in_ns: bool) -> tuple[_Job, Session, list[str]]:
    root = HostRoot.fixture(build_host(tmp_path / "host"))

    def access() -> HostAccess:
        return HostAccess(root, ethtool=lambda name: FakeDevice(name))

    session = Session(root, journal_dir=tmp_path / "journal", access=access)
    said: list[str] = []
    ends = [SimpleNamespace(ifname=DEV, session=session)]
    if far is not None:
        far_root = SimpleNamespace(netns="far")  # the lab's peer namespace
        ends.append(SimpleNamespace(ifname=far, session=SimpleNamespace(root=far_root)))
    runner = SimpleNamespace(say=said.append, session=session, ends=ends)
    bench: Any = SimpleNamespace(runner=runner)
    reader: Any = _Reader(root)
    job = _Job(bench, reader, DEV, "192.0.2.1", "autotune-1", tmp_path / "nb.jsonl", in_ns)
    return job, session, said


@pytest.fixture(autouse=True)
def no_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    def unanswered(*_: object) -> object:
        raise peer_mod.BadPeer("no reply")

    monkeypatch.setattr(peer_mod, "probe_peer", unanswered)


FAR_DOC = Path(__file__).resolve().parents[2] / "fixtures" / "autotune" / "far-advise-veth.json"
far_doc: dict[str, Any] = {"schema": "tuitune.advise", "version": 1, "findings": []}


@pytest.fixture(autouse=True)
def far_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    """The far end's advisor: a recorded document (no subprocess, no namespace)."""
    from tuitune.core.autotune import far

    monkeypatch.setattr(far, "judge_far_end", lambda *_: far_doc)


SACK = Key.sysctl("net.ipv4.tcp_sack")


def test_the_recommended_profile_adds_its_values_after_the_advisors(tmp_path: Path) -> None:
    job, session, said = _job(tmp_path, None, in_ns=False)
    advised = [Candidate("sack-off", "advisor", ((SACK, "0"),))]
    skipped: list[str] = []
    try:
        cands = _candidates(job, advised, skipped)
    finally:
        session.close()
    ids = [c.id for c in cands]
    assert ids[0] == "sack-off"
    assert any(i.startswith("profile:") for i in ids[1:])
    # CERN's sack pick is the advisor's key: tried once, as the advisor's
    assert sum(1 for c in cands for k, _ in c.changes if k == SACK) == 1
    # this machine's own link: the MTU is tried, on trial (core/autotune/host.py JournalHost)
    assert "profile:mtu" in ids and not any(s.startswith("profile:mtu") for s in skipped)
    assert any("lan-10g" in line for line in said)  # recommend's pick, said
    assert not session.pending


def test_with_the_labs_far_end_the_mtu_is_set_at_both_ends(tmp_path: Path) -> None:
    job, session, _ = _job(tmp_path, "veth1", in_ns=True)
    try:
        cands = _candidates(job, [], [])
    finally:
        session.close()
    mtu = next(c for c in cands if c.id == "profile:mtu")
    assert (AtPeer(Key.mtu("veth1")), "9000") in mtu.changes
    assert (Key.mtu(DEV), "9000") in mtu.changes


def test_from_a_namespace_no_host_wide_sysctl_is_a_candidate(tmp_path: Path) -> None:
    """Found in tmux: the screen's session may write host-wide sysctls (it asks first), so
    from the lab's namespace T listed CERN's net.core.rmem_max: the whole machine's."""
    job, session, _ = _job(tmp_path, None, in_ns=True)
    job = replace(job, bench=SimpleNamespace(runner=SimpleNamespace(
        say=job.bench.runner.say, session=SimpleNamespace(root=SimpleNamespace(netns="lab"),
        access=session.access), ends=job.bench.runner.ends)))  # fmt: skip
    skipped: list[str] = []
    try:
        cands = _candidates(job, [], skipped)
    finally:
        session.close()
    keys = [k for c in cands for k, _ in c.changes]
    assert keys and not any(k.kind == "sysctl" and k.name.startswith("net.core.") for k in keys)
    assert any("net.core.rmem_max is host-wide" in s for s in skipped)


def test_the_far_ends_own_findings_are_candidates_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A far end with tso, gso and sg off (recorded: `tuitune advise --json --netns` on a veth
    in a namespace, tests/fixtures/autotune/SOURCES): its offload fix is tried at the far end,
    after this end's candidates; the MTU stays one candidate at both ends."""
    import json

    monkeypatch.setitem(globals(), "far_doc", json.loads(FAR_DOC.read_text()))
    job, session, said = _job(tmp_path, "i36cb", in_ns=True)
    try:
        cands = _candidates(job, [], [])
    finally:
        session.close()
    ids = [c.id for c in cands]
    assert ids[-1] == "peer:offload-disabled"
    far = cands[-1]
    assert (AtPeer(Key.feature("i36cb", "tx-tcp-segmentation")), "on") in far.changes
    assert all(isinstance(k, AtPeer) for k, _ in far.changes)  # nothing at this end
    mtu = next(c for c in cands if c.id == "profile:mtu")
    assert (AtPeer(Key.mtu("i36cb")), "9000") in mtu.changes
    assert any("far end" in line for line in said)
    assert not session.pending


@pytest.mark.parametrize("profile", ["lan-40g", None])
def test_the_forms_profile_is_the_one_tried(tmp_path: Path, profile: str | None) -> None:
    """The form's profile field, as `--profile NAME`: a named one's values (NASA's MTU for
    lan-40g, not CERN's lan-10g that `auto` picks here); `none`, the advisor's
    only."""
    job, session, said = _job(tmp_path, None, in_ns=True)
    job = replace(job, profile=profile)
    advised = [Candidate("sack-off", "advisor", ((SACK, "0"),))]
    try:
        cands = _candidates(job, advised, [])
    finally:
        session.close()
    titles = " ".join(c.title for c in cands)
    if profile is None:
        assert [c.id for c in cands] == ["sack-off"]
        assert not any(line.startswith("profile:") for line in said)
    else:
        assert "lan-40g's mtu = 9000 (nasa-40g, LAN)" in titles, titles
        assert "lan-10g" not in titles and "lan-10g" not in " ".join(said)
    assert not session.pending
