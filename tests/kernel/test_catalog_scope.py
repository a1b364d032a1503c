"""The catalog's scopes match the running kernel.

A sysctl that a freshly created network namespace has its own /proc/sys file for is per-netns;
one that is missing there is host-wide. Some host-wide values (net.core.rmem_max and friends)
are shown read-only inside child namespaces by newer kernels; the catalog flags those with
`netns_readonly_copy`. Nothing is written: the test only looks.
"""

from __future__ import annotations

import os
import platform
import shutil
import stat
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core import catalog
from tuitune.core.catalog import SysctlEntry, removed_on

pytestmark = pytest.mark.kernel

RELEASE = platform.release()


def _nsexec(ns: str, *cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ip", "netns", "exec", ns, *cmd], check=False, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def fresh_ns() -> Iterator[str]:
    if os.geteuid() != 0:
        pytest.skip("kernel tests need root (they create network namespaces)")
    if shutil.which("ip") is None:
        pytest.skip("iproute2 missing")
    ns = f"tt-cat-{uuid.uuid4().hex[:8]}"
    subprocess.run(["ip", "netns", "add", ns], check=True, capture_output=True)
    try:
        yield ns
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def _in_ns(ns: str, e: SysctlEntry) -> bool:
    return _nsexec(ns, "test", "-e", f"/proc/sys/{e.path}").returncode == 0


@pytest.mark.parametrize("e", catalog.SYSCTLS, ids=lambda e: e.key)
def test_scope_matches_kernel(fresh_ns: str, e: SysctlEntry) -> None:
    host_path = Path("/proc/sys") / e.path
    if removed_on(e, RELEASE):
        assert not host_path.exists(), f"{e.key} is marked removed in {e.removed_in}"
        assert not _in_ns(fresh_ns, e)
        return
    assert host_path.exists(), f"{e.key} missing on this kernel ({RELEASE})"
    inside = _in_ns(fresh_ns, e)
    if e.scope == "netns":
        assert inside, f"{e.key} is marked per-netns but a new namespace has no such file"
        if e.readable:
            r = _nsexec(fresh_ns, "cat", f"/proc/sys/{e.path}")
            assert r.returncode == 0, r.stderr
        else:
            r = _nsexec(fresh_ns, "cat", f"/proc/sys/{e.path}")
            assert r.returncode != 0, f"{e.key} is marked write-only but could be read"
    elif e.netns_readonly_copy and inside:
        # A read-only mirror of the host value, not a namespace of its own.
        mode = _nsexec(fresh_ns, "stat", "-c", "%a", f"/proc/sys/{e.path}").stdout.strip()
        assert int(mode, 8) & 0o222 == 0, f"{e.key} is writable inside the netns (mode {mode})"
        r = _nsexec(fresh_ns, "cat", f"/proc/sys/{e.path}")
        assert " ".join(r.stdout.split()) == " ".join(host_path.read_text().split())
    else:
        assert not inside, f"{e.key} is marked host-wide but a new namespace has its own file"


@pytest.mark.parametrize("e", catalog.SYSCTLS, ids=lambda e: e.key)
def test_access_flags_match_kernel(e: SysctlEntry) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to see the real modes")
    p = Path("/proc/sys") / e.path
    if removed_on(e, RELEASE):
        pytest.skip(f"removed in {e.removed_in}")
    mode = stat.S_IMODE(p.stat().st_mode)
    assert bool(mode & stat.S_IRUSR) == e.readable, f"{e.key}: mode {oct(mode)}"
    assert bool(mode & stat.S_IWUSR) == e.writable, f"{e.key}: mode {oct(mode)}"
    if e.readable:
        catalog.parse_value(e, p.read_text())  # the live value parses
