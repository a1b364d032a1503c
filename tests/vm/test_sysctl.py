"""Global (host-wide) sysctls, which no host test may touch, in the bench's guest: applied with
`tuitune apply`, read back with sysctl(8), reverted through the journal and restored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

from .conftest import sysctl, tuitune, write_profile

pytestmark = pytest.mark.vm

WANTED = {
    "net.core.netdev_max_backlog": "4321",
    "net.core.rmem_max": "16777216",
    "net.core.wmem_max": "16777215",
    "net.core.netdev_budget": "555",
    "net.ipv4.tcp_mem": "12345 23456 34567",
}


def test_global_sysctls_apply_and_restore(tmp_path: Path) -> None:
    before = {k: sysctl(k) for k in WANTED}
    assert all(before[k] != v for k, v in WANTED.items()), before
    rows = "\n".join(f'"{k}" = ' + (f'"{v}"' if " " in v else v) for k, v in WANTED.items())
    prof = write_profile(tmp_path / "sysctl.toml", f"[sysctl]\n{rows}\n")
    tuitune("apply", str(prof))
    assert {k: sysctl(k) for k in WANTED} == WANTED
    assert Path("/proc/sys/net/core/netdev_max_backlog").read_text().strip() == "4321"
    tuitune("restore")
    assert {k: sysctl(k) for k in WANTED} == before


def test_global_sysctls_revert_through_the_journal(tmp_path: Path) -> None:
    before = {k: sysctl(k) for k in WANTED}
    with HostAccess(HostRoot()) as access, Journal.open(access, tmp_path / "j") as j:
        outs = j.apply_all([(Key.sysctl(k), v) for k, v in WANTED.items()])
        assert all(o.status == "changed" for o in outs), outs
        assert {k: sysctl(k) for k in WANTED} == WANTED
        assert all(o.ok for o in j.revert_all())
    assert {k: sysctl(k) for k in WANTED} == before
