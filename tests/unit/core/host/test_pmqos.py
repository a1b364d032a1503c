"""The PM QoS latency request: the device's answer parsed, the device refused when it is not
the kernel's (a file, a link, a FIFO planted at the path), and the limit each CPU's idle
governor applies (the global request against a CPU's own resume latency)."""

from __future__ import annotations

import os
import struct
from pathlib import Path

from tuitune.core.host.pmqos import (
    DMA_LATENCY,
    NO_REQUEST,
    holders,
    limit_for,
    parse_request,
    read_request,
    resume_limit,
)
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable


def test_the_devices_answer() -> None:
    assert parse_request(struct.pack("=i", NO_REQUEST)) is None  # nobody asked for a limit
    assert parse_request(struct.pack("=i", 20)) == 20
    assert parse_request(struct.pack("=i", 0)) == 0
    short = parse_request(b"\x14\x00\x00")
    assert isinstance(short, Unavailable) and "3 bytes" in short.reason


def test_a_tree_and_a_planted_path_are_states(tmp_path: Path) -> None:
    tree = read_request(live=False)
    assert isinstance(tree, Unavailable) and "host tree" in tree.reason
    plain = tmp_path / "cpu_dma_latency"
    plain.write_bytes(struct.pack("=i", 5))
    got = read_request(True, str(plain))
    assert isinstance(got, Unavailable) and "not the kernel's device" in got.reason
    link = tmp_path / "link"
    link.symlink_to(plain)
    assert isinstance(read_request(True, str(link)), Unavailable)  # not followed
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert isinstance(read_request(True, str(fifo)), Unavailable)  # returns, never waits
    gone = read_request(True, str(tmp_path / "absent"))
    assert isinstance(gone, Unavailable) and gone.kind == "unsupported"


def test_resume_latency_words() -> None:
    # drivers/base/power/sysfs.c: "0" shows no constraint, "n/a" a zero limit.
    assert resume_limit("0") is None
    assert resume_limit("n/a") == 0
    assert resume_limit("50") == 50
    assert resume_limit("junk") is None


def test_the_smaller_limit_wins() -> None:
    resume = ((frozenset({0}), "10"), (frozenset({1, 2}), "0"))
    assert limit_for(0, 100, resume) == 10
    assert limit_for(1, 100, resume) == 100
    assert limit_for(1, None, resume) is None
    assert limit_for(0, Unavailable("permission", "root"), resume) == 10


def _proc(tmp: Path, procs: dict[int, tuple[str, list[str]]]) -> Path:
    """A /proc of processes, each with its comm and its descriptors' link texts."""
    for pid, (comm, links) in procs.items():
        (tmp / f"proc/{pid}/fd").mkdir(parents=True)
        (tmp / f"proc/{pid}/comm").write_text(comm + "\n")
        for fd, target in enumerate(links):
            (tmp / f"proc/{pid}/fd/{fd}").symlink_to(target)  # dangling: never followed
    (tmp / "sys").mkdir()
    return tmp


def test_the_holders_are_named_and_the_search_is_bounded(tmp_path: Path) -> None:
    tree = _proc(
        tmp_path,
        {
            12: ("tuned", ["/dev/null", DMA_LATENCY]),
            13: ("bash", ["/dev/pts/0", "/dev/pts/0"]),
            14: ("dpdk-app\x1b[2J", [DMA_LATENCY]),  # another user's name: kept as read
        },
    )
    root = HostRoot.fixture(tree)
    assert holders(root) == (((12, "tuned"), (14, "dpdk-app\x1b[2J")), True)
    assert holders(root, budget=3) == (((12, "tuned"),), False)  # 13's two used the rest
