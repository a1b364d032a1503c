"""A user names a cgroup in their delegated subtree "sshd.service": root must not take it for
the system's sshd.service and write /etc/systemd/system/sshd.service.d/ for it (issue 30, 1).

Played for real on cgroup v2: the test makes a user@65534.service cgroup the way systemd
does for a logged-in user (root makes it, hands it to the user), then `nobody` makes
`sshd.service` inside and moves its own process there, as a user may. The process's
/proc/PID/cgroup is then read by the live process reader and given to the export."""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core.export import build_plan
from tuitune.core.export.context import ExportContext
from tuitune.core.export.device import DeviceMatch
from tuitune.core.export.model import Change
from tuitune.core.export.procs import process_facts
from tuitune.core.host.root import HostRoot
from tuitune.core.procs import discover
from tuitune.core.session.settings import Key

NOBODY = 65534
V2 = next(
    (
        Path(p)
        for p in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")
        if Path(p, "cgroup.procs").exists()
    ),
    None,
)

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the attack is on root"),
    pytest.mark.skipif(V2 is None, reason="no cgroup v2 hierarchy mounted"),
]


def _rmtree_cgroups(top: Path) -> None:
    for d in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        with contextlib.suppress(OSError):
            d.rmdir()
    with contextlib.suppress(OSError):
        top.rmdir()


@pytest.fixture
def nobodys_sshd() -> Iterator[int]:
    """A `nobody` process that moved itself into a cgroup it named sshd.service, inside its
    own delegated user@65534.service; its pid."""
    assert V2 is not None
    top = V2 / f"tuitune-test-{secrets.token_hex(4)}.slice"
    manager = top / "user.slice" / "user-65534.slice" / "user@65534.service"
    manager.mkdir(parents=True)
    for name in ("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
        os.chown(manager / name if name else manager, NOBODY, NOBODY)
    # What nobody does inside their subtree: make "sshd.service", move itself in, and wait.
    script = (
        "import os,sys,time\n"
        "sys.stdin.readline()\n"
        f"d={str(manager / 'sshd.service')!r}\n"
        "os.mkdir(d)\n"
        "open(d+'/cgroup.procs','w').write(str(os.getpid()))\n"
        "print('in', flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen(
        ["/usr/bin/python3", "-I", "-c", script],
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        stdout=subprocess.PIPE,
        stdin=subprocess.PIPE,
        cwd="/",
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        # systemd (root) puts the user's processes in their manager's cgroup
        (manager / "cgroup.procs").write_text(str(child.pid))
        child.stdin.write(b"go\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == b"in"
        yield child.pid
    finally:
        child.kill()
        child.wait()
        deadline = time.monotonic() + 5  # an exited task leaves its cgroup asynchronously
        while (manager / "sshd.service" / "cgroup.procs").exists():
            with contextlib.suppress(OSError):
                (manager / "sshd.service").rmdir()
            if time.monotonic() > deadline:
                break
        _rmtree_cgroups(top)


def test_a_users_sshd_service_cgroup_never_gets_a_system_drop_in(nobodys_sshd: int) -> None:
    pid = nobodys_sshd
    got = discover.read_process(HostRoot(), pid)
    assert got is not None
    assert "user@65534.service/sshd.service" in Path(f"/proc/{pid}/cgroup").read_text()
    # It is a unit of nobody's own manager, said so wherever it is shown.
    assert (got.unit, got.unit_user) == ("sshd.service", NOBODY)

    key = Key.proc_affinity(pid, got.ident.start_ticks, comm=got.ident.comm)
    facts = process_facts(HostRoot(), [key])
    ctx = ExportContext(
        ifname="eth0", match=DeviceMatch("name", "eth0"), ncpus=4, processes=facts, now=0.0
    )
    plan = build_plan([Change(key, "0-3", "1")], ctx, read_installed=False)

    paths = [str(f.path) for f in plan.files]
    assert not any("/etc/systemd/system" in p for p in paths), paths
    (f,) = plan.files
    assert not f.installable
    assert "taskset -c 1" in f.text
    assert "user@65534.service" in f.text and "no /etc/systemd/system drop-in" in f.text
    assert any("user manager" in n and "never a system drop-in" in n for n in f.notes)
