"""keptroot.KeptRoot (issue 38): the live host's tick files kept open between ticks read what a
fresh open reads, also after the file's text changed; HostReader keeps them for one tick's
(interface, IRQs) and opens them afresh at a whole tick or another pair."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.core.host import root as host_root
from tuitune.core.host.keptroot import MAX_KEPT, KeptRoot, keeps_files
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_NAME = 15  # <linux/prctl.h>

# A thread's name: what /proc/thread-self/comm (a seq_file) prints, set by the test at will.
names = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=15)


def _set_name(name: str) -> None:
    assert _libc.prctl(PR_SET_NAME, name.encode(), 0, 0, 0) == 0


@pytest.fixture(scope="module")
def kept() -> Iterator[KeptRoot]:
    root = KeptRoot(HostRoot())
    yield root
    root.forget()


@settings(max_examples=60, deadline=None)
@given(seq=st.lists(names, min_size=1, max_size=6))
def test_a_kept_proc_file_reads_what_a_fresh_open_reads_as_it_changes(
    kept: KeptRoot, seq: list[str]
) -> None:
    fresh = HostRoot()
    before = Path("/proc/thread-self/comm").read_text()
    try:
        for name in seq:
            _set_name(name)
            got = kept.proc_text("thread-self/comm")
            assert got == fresh.proc_text("thread-self/comm") == name + "\n"
            for offset, size in ((0, 64), (1, 3), (len(name), 1), (len(name) + 1, 5)):
                span = kept.proc_span("thread-self/comm", offset, size)
                assert span == fresh.proc_span("thread-self/comm", offset, size)
            assert kept.kept() == 1  # one fd, read again: no new open per read
    finally:
        _set_name(before.strip())


def test_kept_sysfs_and_net_files_read_what_a_fresh_open_reads(kept: KeptRoot) -> None:
    fresh = HostRoot()
    # Files that do not move between two reads here: possible CPUs, lo's MTU, /proc/net/dev's
    # header (its counters move).
    for _ in range(2):
        assert kept.sys_text("devices/system/cpu/possible") == fresh.sys_text(
            "devices/system/cpu/possible"
        )
        assert kept.sys_text("class/net/lo/mtu") == fresh.sys_text("class/net/lo/mtu")
        dev, dev_fresh = kept.net_text("dev"), fresh.net_text("dev")
        assert isinstance(dev, str) and isinstance(dev_fresh, str)
        assert dev.splitlines()[:2] == dev_fresh.splitlines()[:2]
        assert "lo:" in dev


def test_missing_and_over_the_bound_are_the_states_a_fresh_read_gives(kept: KeptRoot) -> None:
    fresh = HostRoot()
    for rel in ("class/net/no-such-if/mtu", "devices/system/cpu/possible"):
        assert kept.sys_text(rel, 1) == fresh.sys_text(rel, 1)
    assert kept.proc_text("no/such/file") == fresh.proc_text("no/such/file")


def test_only_the_live_host_read_as_hostroot_reads_keeps_its_files(tmp_path: Path) -> None:
    assert keeps_files(HostRoot()) and keeps_files(HostRoot(netns="x"))
    assert not keeps_files(HostRoot.fixture(tmp_path))
    assert not keeps_files(HostRoot(live=False))
    with pytest.raises(ValueError):
        KeptRoot(HostRoot.fixture(tmp_path))


def test_past_max_kept_files_are_read_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tuitune.core.host.keptroot.MAX_KEPT", 1)
    root = KeptRoot(HostRoot())
    try:
        root.sys_text("devices/system/cpu/possible")
        assert root.sys_text("devices/system/cpu/online") == HostRoot().sys_text(
            "devices/system/cpu/online"
        )
        assert root.kept() == 1
    finally:
        root.forget()
    assert MAX_KEPT > 1


@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file the kernel thread opens, by path."""
    seen: list[str] = []
    real = host_root.open_in_tree

    def counting(path: Path, flags: int, jail: str | None, what: str) -> int:
        if threading.current_thread().name.startswith("tuitune-kernel"):
            seen.append(str(path))
        return real(path, flags, jail, what)

    monkeypatch.setattr(host_root, "open_in_tree", counting)
    return seen


def test_a_reader_opens_a_ticks_files_once_for_one_interface_and_irq_set(
    opens: list[str],
) -> None:
    def stat_opens() -> int:
        return sum(p == "/proc/stat" for p in opens)

    with HostReader() as reader:
        reader.counters("lo", [])
        first = len(opens)
        assert stat_opens() == 1 and first >= 4
        for _ in range(3):
            reader.counters("lo", [])
        assert len(opens) == first  # the same files, kept open
        reader.counters("lo", None)  # a whole tick: every file afresh
        assert stat_opens() == 2
        whole = len(opens)
        reader.counters("lo", [])
        # Only the CPU lists, which the whole tick does not read: the rest is kept from it.
        assert sorted(opens[whole:]) == [
            "/sys/devices/system/cpu/online",
            "/sys/devices/system/cpu/possible",
        ]
        reader.counters("lo", ["0"])  # another IRQ set: afresh
        assert stat_opens() == 3
        reader.forget("lo")  # the interface went away: afresh
        reader.counters("lo", ["0"])
        assert stat_opens() == 4
