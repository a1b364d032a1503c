"""The proc_affinity kind through HostAccess on a recorded tree and on this machine's own
processes: read, refusals in one line, and the consent question. Nothing is written here
(the kernel tests move real processes in a namespace)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.root import HostRoot
from tuitune.core.procs import discover
from tuitune.core.session import HostAccess, InvalidValue, Key, WriteRefused, needs_consent
from tuitune.core.session.proc_affinity import ProcAffinity, ProcRefused, is_gone


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _key(pid: int) -> Key:
    ident = discover.read_ident(HostRoot(), pid)
    assert ident is not None
    return Key.proc_affinity(pid, ident.start_ticks, comm=ident.comm)


def test_reads_the_process_and_each_thread(child: subprocess.Popen[bytes]) -> None:
    key = _key(child.pid)
    with HostAccess(HostRoot()) as access:
        related = access.related(key)
        assert access.read(key) == format_cpulist(os.sched_getaffinity(child.pid))
        thread = Key.proc_affinity(child.pid, int(key.name.split("@")[1]), child.pid)
        assert thread in related and related[thread] == related[key]
        assert needs_consent(key) is None  # root's own


def test_gone_and_reused_are_states_not_errors(child: subprocess.Popen[bytes]) -> None:
    key = _key(child.pid)
    pid, start = child.pid, int(key.name.split("@")[1])
    with HostAccess(HostRoot()) as access:
        reused = access.read(Key.proc_affinity(pid, start + 1))
        assert is_gone(reused) and "belongs to another process" in reused.reason
        child.kill()
        child.wait()
        gone = access.read(key)
        assert is_gone(gone) and gone.reason.endswith("gone (the process exited)")
        with pytest.raises(WriteRefused) as exc:
            access.validate(key, "0")
        assert "gone" in str(exc.value) and "\n" not in str(exc.value)


def test_a_recorded_tree_is_never_changed(tmp_path: Path) -> None:
    src, dst = Path(f"/proc/{os.getpid()}"), tmp_path / f"proc/{os.getpid()}"
    (dst / f"task/{os.getpid()}").mkdir(parents=True)
    for name in ("stat", "status"):
        (dst / name).write_bytes((src / name).read_bytes())
        (dst / f"task/{os.getpid()}/{name}").write_bytes((src / name).read_bytes())
    root = HostRoot.fixture(tmp_path)
    ident = discover.read_ident(root, os.getpid())
    assert ident is not None
    key = Key.proc_affinity(os.getpid(), ident.start_ticks)
    with HostAccess(root) as access:
        assert isinstance(access.read(key), str)
        with pytest.raises(WriteRefused) as exc:
            access.validate(key, "0")
        assert "a recorded host: processes not changed" in str(exc.value)


def test_bad_cpu_lists_are_refused_before_anything(child: subprocess.Popen[bytes]) -> None:
    key = _key(child.pid)
    with HostAccess(HostRoot()) as access:
        for text in ("", "none", "0-99999", "x", "0\n1"):
            with pytest.raises((InvalidValue, WriteRefused)) as exc:
                access.validate(key, text)
            assert "\n" not in str(exc.value)


def test_only_root_changes_another_users_process(child: subprocess.Popen[bytes]) -> None:
    """A tuitune run by nobody is refused root's process before any write, in one line."""
    if os.geteuid() != 0:
        pytest.skip("needs root to become nobody")
    key = _key(child.pid)
    procs = ProcAffinity(HostRoot())
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nobody, then the check
        os.close(read)
        try:
            os.setgid(65534)
            os.setuid(65534)
            try:
                procs.validate(key, "0", online=frozenset({0}), present=frozenset({0}), possible=1)
                said = "validated"
            except ProcRefused as exc:
                said = f"{type(exc).__name__}: {exc}"
            os.write(write, said.encode())
        finally:
            os._exit(0)
    os.close(write)
    said = os.read(read, 4096).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert said.startswith("ProcRefused: ") and "only root changes it" in said, said
    assert "belongs to root (uid 0)" in said
