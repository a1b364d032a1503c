"""The catalog's bounds of per-namespace sysctls, written to the kernel in a test namespace
(issue 31, item 6): the lowest and highest value the catalog lets through are both accepted
and read back by the running kernel. Host-wide ones (rmem_*, wmem_*, netdev_*) are checked
against the kernel's source in tests/unit/core/test_catalog_kernel_bounds.py: writing them
would change the machine."""

from __future__ import annotations

import subprocess

import pytest

from tuitune.core import catalog

from .conftest import VethNs

pytestmark = pytest.mark.kernel


def _entries() -> list[catalog.SysctlEntry]:
    return [
        e
        for e in catalog.load_sysctls()
        if e.kind in ("int", "int_triple") and e.scope == "netns" and e.writable
    ]


@pytest.mark.parametrize("entry", _entries(), ids=lambda e: e.key)
def test_bounds_accepted(veth_ns: VethNs, entry: catalog.SysctlEntry) -> None:
    assert entry.minimum is not None and entry.maximum is not None
    for bound in (entry.minimum, entry.maximum):
        value = " ".join([str(bound)] * 3) if entry.kind == "int_triple" else str(bound)
        try:
            veth_ns.nsexec("sysctl", "-qw", f"{entry.key}={value}")
        except subprocess.CalledProcessError as exc:
            pytest.fail(f"kernel refused {entry.key} = {value}: {exc.stderr.strip()}")
        got = veth_ns.nsexec("sysctl", "-n", entry.key).split()
        assert got == value.split(), entry.key
