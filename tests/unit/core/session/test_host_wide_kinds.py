"""Which settings are the whole host's (KindHandler.host_wide, the one place that says it):
the platform's and the host-scoped sysctls, not an interface's, its queues' or its IRQs'.
From a namespace session HostAccess refuses them unless the user agreed (`host_writes`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.session_fakes import build_host
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Key, WriteRefused
from tuitune.core.session.kinds.table import handler

WIDE = [
    Key.sysctl("net.core.netdev_max_backlog"),
    Key.cpu_governor(0),
    Key.cpu_epp(0),
    Key.cstate_disable(0, 3),
    Key.cpu_boost(),
    Key.smt(),
    Key.module_param("igb", "InterruptThrottleRate"),
]
OWN = [
    Key.sysctl("net.ipv4.tcp_rmem"),  # a namespace's own
    Key.sysctl("net.not.in.the.catalog"),  # never written (validation refuses it)
    Key.mtu("eno49"),
    Key.feature("eno49", "tx-tcp-segmentation"),
    Key.rps_cpus("eno49", "rx-0"),
    Key.irq(102, "eno49-TxRx-1", "eno49"),  # the interface's IRQ: moved for its sake
]


@pytest.mark.parametrize("key", WIDE, ids=lambda k: k.kind)
def test_the_platform_and_host_sysctls_say_they_are_the_hosts(key: Key) -> None:
    said = handler(key.kind).host_wide(key)
    assert said is not None and "per namespace" in said and "every namespace" in said, said


@pytest.mark.parametrize("key", OWN, ids=lambda k: f"{k.kind}:{k.name}")
def test_an_interfaces_and_a_namespaces_own_are_not(key: Key) -> None:
    assert handler(key.kind).host_wide(key) is None


def test_a_namespace_session_refuses_smt_and_a_module_parameter_unagreed(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    smt = tree / "sys/devices/system/cpu/smt/control"
    smt.parent.mkdir(parents=True, exist_ok=True)
    smt.write_text("on\n")
    root = replace(HostRoot.fixture(tree), netns="lab")
    with HostAccess(root) as acc:
        with pytest.raises(WriteRefused) as refused:
            acc.validate(Key.smt(), "off")
        assert "host-wide: not changed from inside network namespace 'lab'" in str(
            refused.value.state.reason
        )
        with pytest.raises(WriteRefused):
            acc.write(Key.module_param("igb", "InterruptThrottleRate"), "3")
    assert smt.read_text() == "on\n"
    with HostAccess(root, host_writes=True) as acc:  # agreed: validated as anywhere
        assert acc.validate(Key.smt(), "off") == "off"
