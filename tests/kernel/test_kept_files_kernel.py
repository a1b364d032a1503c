"""Tick files kept open (keptroot.py, issue 38) against the real kernel, in a test namespace:
a kept sysfs attribute follows its value, and a deleted device reads as gone, then as the new
device of the same name, exactly as fresh opens read them."""

from __future__ import annotations

import pytest

from tests.kernel.conftest import VethNs
from tuitune.core.host.keptroot import KeptRoot
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader

pytestmark = pytest.mark.kernel


def test_a_kept_attribute_of_a_deleted_device_reads_as_a_fresh_open(veth_ns: VethNs) -> None:
    kept, fresh = KeptRoot(HostRoot(netns=veth_ns.ns)), HostRoot(netns=veth_ns.ns)
    rel = f"class/net/{veth_ns.a}/ifalias"

    def both() -> tuple[str | Unavailable, str | Unavailable]:
        # On the namespace's kernel thread: its /sys and /proc/thread-self/net.
        return veth_ns.kt.call(lambda: (kept.sys_text(rel), fresh.sys_text(rel)))

    try:
        for alias in ("one", "a longer one", "two"):
            veth_ns.ip("link", "set", veth_ns.a, "alias", alias)
            assert both() == (alias + "\n", alias + "\n")
        dev = veth_ns.kt.call(kept.net_text, "dev")
        assert isinstance(dev, str) and f"{veth_ns.a}:" in dev  # the namespace's, kept
        veth_ns.ip("link", "del", veth_ns.a)
        gone, gone_fresh = both()
        assert isinstance(gone, Unavailable) and gone == gone_fresh
        assert gone.kind == "missing"
        dev = veth_ns.kt.call(kept.net_text, "dev")
        assert isinstance(dev, str) and f"{veth_ns.a}:" not in dev
        veth_ns.ip("link", "add", veth_ns.a, "type", "veth", "peer", "name", veth_ns.b)
        veth_ns.ip("link", "set", veth_ns.a, "alias", "three")
        assert both() == ("three\n", "three\n")  # the new device's file
    finally:
        veth_ns.kt.call(kept.forget)


def test_a_deleted_device_is_gone_at_the_next_tick_and_back_when_made_again(
    veth_ns: VethNs,
) -> None:
    with HostReader(HostRoot(netns=veth_ns.ns)) as reader:
        first = reader.counters(veth_ns.a, [])
        assert not first.link_gone and first.link is not None
        assert "rx_missed_errors" in first.link.values  # the kept sysfs file was read
        veth_ns.ip("link", "del", veth_ns.a)
        assert reader.counters(veth_ns.a, []).link_gone
        veth_ns.ip("link", "add", veth_ns.a, "type", "veth", "peer", "name", veth_ns.b)
        back = reader.counters(veth_ns.a, [])
        assert not back.link_gone and back.link is not None
        assert "rx_missed_errors" in back.link.values
