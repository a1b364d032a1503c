"""RFS edited as the kernel documentation pairs it (core/rfs.py): the host's flow table and
each rx queue's rps_flow_cnt through the journal as one change set, a value the kernel would
round refused, put back exactly, and exported together (sysctl.d and the udev rule) on the
recorded host with a fake NIC (tests/unit/core/export/test_export_files.py's way)."""

from __future__ import annotations

from pathlib import Path

from tests.support.session_fakes import FakeDevice, build_host
from tests.unit.core.export.test_export_files import DEV, WHEN, _fixed
from tuitune.core.export import FORMATS, build_plan, from_originals, gather_context
from tuitune.core.host.root import HostRoot
from tuitune.core.rfs import ENTRIES_KEY
from tuitune.core.session import HostAccess, Journal, Key


def test_the_pair_is_applied_refused_when_rounded_restored_and_exported(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    entries = tree / "proc/sys/net/core/rps_sock_flow_entries"
    entries.write_text("0\n")
    queue = tree / f"sys/class/net/{DEV}/queues/rx-0/rps_flow_cnt"
    assert queue.read_text().strip() == "0"
    access = HostAccess(HostRoot.fixture(tree), ethtool=lambda name: FakeDevice(DEV))
    try:
        with Journal.open(access, tmp_path / "journal") as journal:
            (bad,) = journal.apply_all([(Key.sysctl(ENTRIES_KEY), "30000")])
            assert not bad.ok and "not a power of two (the kernel would make it 32768)" in (
                bad.reason or ""
            )
            assert entries.read_text().strip() == "0"  # nothing written
            pair = [(Key.sysctl(ENTRIES_KEY), "32768"), (Key.rps_flow_cnt(DEV, "rx-0"), "16384")]
            outs = journal.apply_all(pair)
            assert all(o.ok for o in outs), [o.reason for o in outs]
            assert entries.read_text().strip() == "32768"
            assert queue.read_text().strip() == "16384"
            originals = journal.originals()
            changes, problems = from_originals(
                access, originals, DEV, dict.fromkeys(originals, WHEN)
            )
            assert problems == []
            ctx = _fixed(gather_context(access, DEV))
            plan = build_plan(changes, ctx, FORMATS, read_installed=False)
            text = {f.path.name: f.text for f in plan.files}
            sysctl = next(t for n, t in text.items() if n.endswith(".conf") and ENTRIES_KEY in t)
            assert f"{ENTRIES_KEY} = 32768" in sysctl
            udev = next(t for n, t in text.items() if n.endswith(".rules"))
            assert "rx-0/rps_flow_cnt" in udev and "16384" in udev
            journal.revert_all()
        assert entries.read_text().strip() == "0"
        assert queue.read_text().strip() == "0"
    finally:
        access.close()
