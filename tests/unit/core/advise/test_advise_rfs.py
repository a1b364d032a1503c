"""RFS set half (core/rfs.py, rules_rfs.py) on the recorded igb host (8 rx queues, eth0): the
host's flow table or the queues' alone steers nothing; the finding proposes the kernel
documentation's pair as one step, and `show` says RFS and aRFS in one line."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.unit.advise_hosts import one, recorded
from tuitune.core.advise import Facts
from tuitune.core.host.ethtool_types import Feature
from tuitune.core.host.netdev import QueueMasks
from tuitune.core.rfs import ENTRIES_KEY, rfs_of
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import SysctlValue


@pytest.fixture(scope="module")
def pegged(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    return recorded(tmp_path_factory.mktemp("pegged"), "pegged")


def rfs(f: Facts, entries: str | None, counts: list[int]) -> Facts:
    assert f.nic is not None
    value: str | Unavailable = Unavailable("missing", "x") if entries is None else entries
    others = tuple(s for s in f.host.sysctls if s.key != ENTRIES_KEY)
    sysctls = (*others, SysctlValue(ENTRIES_KEY, value))
    queues = tuple(
        QueueMasks(q.name, q.cpus, counts[int(q.name[3:])] if q.name.startswith("rx-") else None)
        for q in f.nic.queues
    )
    return replace(f, host=replace(f.host, sysctls=sysctls), nic=replace(f.nic, queues=queues))


def test_the_host_table_without_the_queues_proposes_their_share(pegged: Facts) -> None:
    found = one(rfs(pegged, "32768", [0] * 8), "rfs-half-set")
    assert found is not None
    assert "8 of 8 rx queues of eth0 have no flow table" in found.title
    assert {c.key: c.value for c in found.change} == {
        Key.rps_flow_cnt("eth0", f"rx-{q}"): "4096"
        for q in range(8)  # 32768 / 8
    }
    assert found.sources[0].id == "kernel-doc"


def test_the_queues_without_the_host_table_propose_both(pegged: Facts) -> None:
    found = one(rfs(pegged, "0", [2048, 0, 0, 0, 0, 0, 0, 0]), "rfs-half-set")
    assert found is not None
    assert f"{ENTRIES_KEY} is 0" in found.title
    changes = {c.key: c.value for c in found.change}
    assert changes[Key.sysctl(ENTRIES_KEY)] == "32768"
    assert changes[Key.rps_flow_cnt("eth0", "rx-1")] == "4096"
    assert Key.rps_flow_cnt("eth0", "rx-0") not in changes  # already has one: left as set


def test_off_on_or_unreadable_is_no_finding(pegged: Facts) -> None:
    assert one(rfs(pegged, "0", [0] * 8), "rfs-half-set") is None  # the default
    assert one(rfs(pegged, "32768", [4096] * 8), "rfs-half-set") is None
    assert one(rfs(pegged, None, [4096] * 8), "rfs-half-set") is None  # not read


def test_a_pair_stays_in_powers_of_two() -> None:
    qs = [QueueMasks(f"rx-{i}", frozenset(), 0) for i in range(3)]
    entries, per = rfs_of(30000, qs, ()).pair()
    assert entries == 32768 and set(per.values()) == {8192}  # 32768 / 3 = 10922 -> 8192


def _feature(active: bool, fixed: bool = False) -> Feature:
    return Feature("rx-ntuple-filter", 0, not fixed, active, active, False)


def test_the_line_says_rfs_and_arfs() -> None:
    qs = [QueueMasks(f"rx-{i}", frozenset(), 4096) for i in range(2)]
    on = rfs_of(8192, qs, (_feature(True),))
    assert on.line() == (
        f"RFS on: {ENTRIES_KEY} 8192 (host), rps_flow_cnt set on 2 of 2 rx queues; "
        "aRFS: on if the driver steers flows itself (ntuple filters on, RFS on)"
    )
    assert "aRFS: off (ntuple filters off" in rfs_of(8192, qs, (_feature(False),)).line()
    assert "aRFS: no ntuple filters" in rfs_of(8192, qs, (_feature(False, fixed=True),)).line()
    assert rfs_of(0, qs, ()).state == "half"
    assert rfs_of(None, qs, ()).state == "unknown"
