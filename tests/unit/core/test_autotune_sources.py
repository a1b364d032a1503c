"""Autotune's candidates from a sweep spec (`--spec`): each value a spec names, one at a
time, resolved on a recorded host as the sweep's runner resolves a cell; what is the host as
found, a test parameter or already so is not a candidate; a link-cutting value is refused
headless; and the report is kept beside the notebook."""

from __future__ import annotations

from pathlib import Path

from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.autotune.search import Candidate
from tuitune.core.autotune.sources import new_keys, report_path, save_report, spec_candidates
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Key, Session
from tuitune.core.sweep.spec import parse

DEV = "eno49"


def _session(tmp_path: Path) -> Session:
    root = HostRoot.fixture(build_host(tmp_path / "host"))

    def access() -> HostAccess:
        return HostAccess(root, ethtool=lambda name: FakeDevice(name))

    return Session(root, journal_dir=tmp_path / "journal", access=access)


SPEC = {
    "sweep": {"name": "mix", "design": "one-at-a-time"},
    "dimension": [
        {"setting": "tso", "values": ["on", "off"]},  # on: already so
        {"setting": "net.ipv4.tcp_sack", "values": [1, 0]},
        {"setting": "mtu", "values": [1500, 9000]},
        {"setting": "streams", "values": [1, 4]},  # a test parameter, not a host setting
    ],
}


def test_each_value_a_spec_names_is_one_candidate(tmp_path: Path) -> None:
    session = _session(tmp_path)
    try:
        cands, skipped = spec_candidates(session, parse(SPEC), DEV, allow_trial=True)
        got = {c.id: c.changes for c in cands}
        assert set(got) == {"spec:tso=off", "spec:net.ipv4.tcp_sack=0", "spec:mtu=9000"}
        assert got["spec:net.ipv4.tcp_sack=0"] == ((Key.sysctl("net.ipv4.tcp_sack"), "0"),)
        assert not skipped
        assert not session.pending  # resolving writes nothing
    finally:
        session.close()


def test_headless_on_the_own_link_the_mtu_is_tried_and_two_link_resets_are_not(
    tmp_path: Path,
) -> None:
    # One change that can cut the link goes on trial (JournalHost.trial_seconds); two in one
    # candidate cannot (one trial at a time, and they must be on together).
    from tuitune.core.autotune.host import CUTS, cuts

    session = _session(tmp_path)
    try:
        cands, skipped = spec_candidates(session, parse(SPEC), DEV, allow_trial=False)
        assert "spec:mtu=9000" in {c.id for c in cands} and not skipped
    finally:
        session.close()
    two = [Key.mtu(DEV), Key.field(DEV, "ring", "rx")]
    assert cuts(two, allow_trial=False, ssh_iface=None) == CUTS
    assert cuts(two, allow_trial=True, ssh_iface=None) is None
    assert cuts(two[:1], allow_trial=False, ssh_iface=None) is None


def test_a_setting_already_tried_is_tried_once() -> None:
    k = Key.sysctl("net.ipv4.tcp_sack")
    first = [Candidate("advice", "a", ((k, "0"),))]
    more = [
        Candidate("spec:x", "b", ((k, "0"),)),
        Candidate("spec:y", "c", ((Key.mtu("e"), "9000"),)),
    ]
    assert [c.id for c in new_keys(first, more)] == ["spec:y"]


def test_the_report_is_kept_beside_the_notebook(tmp_path: Path) -> None:
    nb = tmp_path / "runs" / "host-eno49.jsonl"
    nb.parent.mkdir()
    path = save_report(nb, "autotune-20261207093000", "# report\n")
    assert path == report_path(nb, "autotune-20261207093000")
    assert path.name == "host-eno49.autotune-20261207093000.md"
    assert path.read_text() == "# report\n"


def test_on_the_ssh_sessions_interface_nothing_of_it_is_tried(tmp_path: Path) -> None:
    """Issue 36: the SSH interface is changed only on trial, and autotune measures unattended:
    on this machine's own link, a value on that interface is not a candidate (said why); a
    namespace sysctl is one still. In a namespace (allow_trial) nothing carries the session."""
    from tuitune.core.advise.model import Change, Finding
    from tuitune.core.autotune.host import candidates_of

    session = _session(tmp_path)
    try:
        cands, skipped = spec_candidates(
            session, parse(SPEC), DEV, allow_trial=False, ssh_iface=DEV
        )
        assert {c.id for c in cands} == {"spec:net.ipv4.tcp_sack=0"}
        assert any(
            s.startswith(f"spec:tso=off: it changes {DEV}, the SSH session's interface")
            for s in skipped
        ), skipped
        tried, _ = spec_candidates(session, parse(SPEC), DEV, allow_trial=True, ssh_iface=DEV)
        assert "spec:tso=off" in {c.id for c in tried}
    finally:
        session.close()
    on = (Change(Key.feature(DEV, "rx-gro"), "on"),)
    gro = Finding("gro-off", "risk", "GRO is off", (), on, (), "any")
    got, said = candidates_of([gro], allow_trial=False, ssh_iface=DEV)
    assert not got and "SSH session's interface" in said[0]
    got, said = candidates_of([gro], allow_trial=False, ssh_iface="eth9")
    assert [c.id for c in got] == ["gro-off"] and not said
