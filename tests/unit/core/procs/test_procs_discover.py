"""The NIC's processes read from /proc: hostile names, socket tables, a recorded tree, windows.

The tree tests copy real /proc files of a child process this test starts (a capture made at
test time), so the parsers see the kernel's own text, not a hand-written imitation.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.procs import discover as d
from tuitune.core.procs.model import ProcIdent, ThreadRun, printable
from tuitune.core.session.settings import Key, proc_label, proc_target


def test_printable_escapes_what_would_move_the_cursor_or_reorder_text() -> None:
    hostile = "ok\x1b[2J\nnext\u202eevil\\x41\udcff"
    shown = printable(hostile)
    assert "\x1b" not in shown and "\n" not in shown and "\u202e" not in shown
    assert shown == "ok\\x1b[2J\\x0anext\\u202eevil\\\\x41\\xff"
    assert len(printable("a" * 5000, 60)) <= 60


def test_stat_comm_with_spaces_and_parentheses_is_read_to_the_last_paren() -> None:
    real = Path(f"/proc/{os.getpid()}/stat").read_bytes()
    _, _, tail = real.rpartition(b")")
    hostile = f"{os.getpid()} (x) 9 (y\n".encode() + b"\xff)" + tail
    got = d.parse_stat(hostile)
    assert got is not None
    assert got.comm == "x) 9 (y\n\udcff"
    assert printable(got.comm) == "x) 9 (y\\x0a\\xff"
    mine = d.parse_stat(real)
    assert mine is not None and mine.start_ticks > 0 and mine.ppid == os.getppid()
    assert d.parse_stat(b"garbage") is None
    assert d.parse_stat(b"1 (short) S 0") is None


def test_socket_table_addresses_and_inodes() -> None:
    v4 = (
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
        "timeout inode\n"
        "   0: 010012C6:15B3 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0 "
        "       0 4242 1 0000000000000000 100 0 0 10 0\n"
        "   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0 "
        "       0 77 1 0000000000000000 100 0 0 10 0\n"
    )
    rows = d.parse_socket_table(v4, v6=False)
    assert [(str(a), s, i) for a, s, i in rows] == [
        ("198.18.0.1", "0A", 4242),
        ("0.0.0.0", "0A", 77),
    ]
    # A dual-stack socket's IPv4 peer, as tcp6 prints it: ::ffff:198.18.0.1.
    v6 = (
        "  sl  local_address                         remote_address                        st\n"
        "   0: 0000000000000000FFFF0000010012C6:15B3 00000000000000000000000000000000:0000 "
        "01 00000000:00000000 00:00000000 00000000     0        0 99 1\n"
    )
    (row,) = d.parse_socket_table(v6, v6=True)
    assert str(row[0]) == "198.18.0.1" and row[2] == 99


def test_systemd_unit_from_cgroup() -> None:
    assert d.systemd_unit(b"0::/system.slice/nginx.service\n") == "nginx.service"
    assert d.systemd_unit(b"0::/system.slice/app.service/worker\n") == "app.service"
    assert d.systemd_unit(b"0::/user.slice/user-0.slice/session-3.scope\n") == "session-3.scope"
    assert d.systemd_unit(b"0::/\n") is None
    assert d.systemd_unit(b"0::/system.slice/a b;rm -rf.service\n") is None


def test_kernel_threads_are_recognised_by_flag_and_parent() -> None:
    assert d.is_kernel_thread(2, 0, 0)
    assert d.is_kernel_thread(40, 2, 0)
    assert d.is_kernel_thread(40, 1, d.PF_KTHREAD)
    assert not d.is_kernel_thread(40, 1, 0x400100)


def test_process_keys_name_pid_start_and_thread() -> None:
    key = Key.proc_affinity(812, 5550, comm="nut\x1bttcp")
    assert key.name == "812@5550" and proc_target(key.name) == (812, 5550, None)
    assert key == Key.proc_affinity(812, 5550, comm="other")  # the name is a label only
    assert key != Key.proc_affinity(812, 5551)  # a reused PID is another process
    assert key.label == "nut\\x1bttcp (pid 812) affinity"
    thread = Key.proc_affinity(812, 5550, 815)
    assert proc_target(thread.name) == (812, 5550, 815)
    assert Key.from_json(thread.to_json()) == thread and thread.scope == "host"
    for bad in ("812", "812@", "@5", "8a@5", "812@5/", "812@5/x", "1@2/3/4"):
        with pytest.raises(ValueError):
            proc_target(bad)
    assert proc_label("junk\n", None) == "process junk\\x0a affinity"


def _reading(at: float, ticks: dict[int, tuple[int, int]], start: int = 100) -> d.Reading:
    threads = tuple(
        ThreadRun(tid, "t", cpu, frozenset({0, 1}), n) for tid, (cpu, n) in ticks.items()
    )
    proc = d.ProcReading(
        ident=ProcIdent(10, start, 0, "srv"),
        ppid=1,
        flags=0,
        cmdline=("srv",),
        allowed=frozenset({0, 1}),
        threads=threads,
        sockets=2,
    )
    return d.Reading(at, {10: proc})


def test_window_puts_each_threads_ticks_on_its_cpu() -> None:
    before = _reading(0.0, {10: (0, 100), 11: (1, 50)})
    after = _reading(2.0, {10: (0, 200), 11: (1, 60), 12: (1, 30)})
    (p,) = d.window(before, after, local_cpus=frozenset({1}), caller_uid=0, hz=100)
    # 100 ticks in 2 s at 100 Hz is half a CPU; a thread born mid-window counts from its birth.
    assert p.cpu_by_cpu == {0: 50.0, 1: 5.0}
    assert p.on_nic_node is False and p.ran_on == frozenset({0, 1}) and p.owner_is_caller
    (q,) = d.window(None, after, local_cpus=None, caller_uid=1000)
    assert q.cpu_by_cpu == {} and q.on_nic_node is None and not q.owner_is_caller


def test_window_does_not_mix_a_reused_pid_with_its_old_owner() -> None:
    before = _reading(0.0, {10: (0, 100)}, start=100)
    after = _reading(1.0, {10: (0, 5000)}, start=999)
    (p,) = d.window(before, after, local_cpus=None, caller_uid=0, hz=100)
    assert p.cpu_by_cpu == {} and p.ident.start_ticks == 999


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "arg\x1b]0;x\x07"],
        stdin=subprocess.DEVNULL,
    )
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _record(pid: int, tree: Path, socket_inode: int) -> None:
    """Copy the /proc files tuitune reads of `pid` into `tree` (a capture of a real process),
    with one fd standing for a socket on the NIC."""
    src, dst = Path(f"/proc/{pid}"), tree / f"proc/{pid}"
    (dst / "fd").mkdir(parents=True)
    for name in ("stat", "status", "cmdline", "cgroup"):
        (dst / name).write_bytes((src / name).read_bytes())
    for tid in os.listdir(src / "task"):
        (dst / f"task/{tid}").mkdir(parents=True)
        for name in ("stat", "status"):
            (dst / f"task/{tid}/{name}").write_bytes((src / f"task/{tid}/{name}").read_bytes())
    os.symlink(f"socket:[{socket_inode}]", dst / "fd/3")
    os.symlink("/etc/passwd", dst / "fd/4")


def test_recorded_tree_lists_the_process_with_its_socket(
    child: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    net = tmp_path / "proc/net"
    net.mkdir(parents=True)
    (net / "tcp").write_text(
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
        "timeout inode\n"
        "   0: 010012C6:15B3 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0 "
        "       0 4242 1 0000000000000000 100 0 0 10 0\n"
    )
    (net / "route").write_text(
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        "vlab\t000012C6\t00000000\t0001\t0\t0\t0\tFCFFFFFF\t0\t0\t0\n"
    )
    (net / "fib_trie").write_text(
        "Main:\n  +-- 0.0.0.0/0 3 0 4\n     |-- 198.18.0.1\n        /32 host LOCAL\n"
    )
    _record(child.pid, tmp_path, 4242)
    root = HostRoot.fixture(tmp_path)
    assert {str(a) for a in d.interface_addresses(root, "vlab")} == {"198.18.0.1"}
    (p,) = d.nic_processes(root, "vlab", local_cpus=frozenset({0}))
    assert p.ident.pid == child.pid and p.sockets == 1 and not p.kernel_thread
    assert p.cmdline[-1] == "arg\x1b]0;x\x07"
    assert "\x1b" not in p.shown_cmdline and p.shown_cmdline.endswith("arg\\x1b]0;x\\x07")
    assert p.threads and p.allowed == os.sched_getaffinity(child.pid)
    # Another interface of the same tree has no address, so no process.
    assert d.nic_processes(root, "other", local_cpus=None) == ()


def test_a_tree_link_out_of_the_tree_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "proc").mkdir()
    os.symlink(f"/proc/{os.getpid()}", tmp_path / "proc/77")
    root = HostRoot.fixture(tmp_path)
    assert d.read_process(root, 77) is None
    assert d.socket_inodes_of(root, 77) == []


def test_a_unit_is_the_first_cgroup_below_the_slices_and_says_whose_manager() -> None:
    assert d.unit_of(b"0::/system.slice/nginx.service\n") == ("nginx.service", None)
    assert d.unit_of(b"0::/system.slice/system-getty.slice/getty@tty1.service\n") == (
        "getty@tty1.service",
        None,
    )
    # A delegated subtree's own names are never units: not the system's, not the user's.
    assert d.unit_of(b"0::/system.slice/docker-1.scope/sshd.service\n") == ("docker-1.scope", None)
    user = b"0::/user.slice/user-1000.slice/user@1000.service/app.slice/sshd.service\n"
    assert d.unit_of(user) == ("sshd.service", 1000)
    assert d.unit_of(b"0::/user.slice/user-1000.slice/user@1000.service/a/b.service\n") is None
    assert d.unit_of(b"0::/user.slice/user-1000.slice/session-3.scope\n") == (
        "session-3.scope",
        None,
    )
