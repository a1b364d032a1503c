"""The advisor's offload fix undoes whole `ethtool -K` groups (issue 31, item 1).

After `ethtool -K IF tso off gso off sg off tx off`, applying `offload-disabled` must leave the
device as `ethtool -K IF tso on gso on sg on tx on` would: every member of each group back on
(tx-checksum-sctp, tx-scatter-gather-fraglist, tx-tcp-ecn-segmentation, ...), not only the
principal features. The veth's peer in the same namespace gets the ethtool commands and is
the reference; the runs table's settings must then name nothing as off."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuitune.cli import main
from tuitune.core.bench.settings import capture, changes
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess

from .conftest import VethNs

pytestmark = pytest.mark.kernel

GROUPS = ("tso", "gso", "sg", "tx")


def _features(ns: VethNs, ifname: str) -> dict[str, str]:
    """`ethtool -k IF` as name -> "on"/"off" (with any [fixed] / [requested ...] note)."""
    out: dict[str, str] = {}
    for line in ns.nsexec("ethtool", "-k", ifname).splitlines()[1:]:
        name, _, value = line.strip().partition(":")
        out[name] = value.strip()
    return out


def _ethtool_k(ns: VethNs, ifname: str, value: str) -> None:
    args = [x for g in GROUPS for x in (g, value)]
    ns.nsexec("ethtool", "-K", ifname, *args)


def _settings(ns: VethNs) -> dict[str, str]:
    with HostAccess(HostRoot(netns=ns.ns), call=ns.kt.call) as access:
        return {k: v for k, v in capture(access, ns.a, host_wide=False).items() if "." not in k}


def test_fix_restores_whole_groups(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ns = veth_ns
    before = _settings(ns)
    for ifname in (ns.a, ns.b):
        _ethtool_k(ns, ifname, "off")
    off = _features(ns, ns.a)
    assert off["tx-checksum-sctp"].startswith("off")  # what the old fix left behind
    named = changes(before, _settings(ns))
    assert {f"{g} off" for g in GROUPS} <= set(named), named

    _ethtool_k(ns, ns.b, "on")  # the reference: what ethtool itself restores
    journal = ["--journal-dir", str(tmp_path)]
    args = ["advise", ns.a, "--netns", ns.ns, "--seconds", "1", *journal]
    assert main([*args, "--apply", "offload-disabled"]) == 0
    capsys.readouterr()

    got, want = _features(ns, ns.a), _features(ns, ns.b)
    differ = {n: (got[n], want.get(n)) for n in got if got[n] != want.get(n)}
    assert differ == {}, differ
    # The runs table compares a run's settings with the baseline's: nothing is off any more.
    assert changes(before, _settings(ns)) == []

    # restore gives back the all-off state exactly.
    assert main(["restore", "--netns", ns.ns, *journal]) == 0
    assert _features(ns, ns.a) == off
