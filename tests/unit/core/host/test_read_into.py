"""root.read_into (issue 38: the whole /proc/interrupts read into a buffer kept between ticks)
reads what read_text reads, through the same checked open and bound (one reader behind both)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tuitune.core.host.root import HostRoot, KernelFileError, read_into, read_text


@pytest.mark.parametrize("size", [0, 5, (1 << 16) - 1, 1 << 16, 200_000])
def test_a_file_read_into_a_kept_buffer_is_the_text_read_text_gives(
    tmp_path: Path, size: int
) -> None:
    path = tmp_path / "f"
    buf = bytearray(b"stale bytes from a longer read" * 10_000)
    for body in (bytes(range(48, 58)) * (size // 10 + 1))[:size], b"short\n":
        path.write_bytes(body)
        n = read_into(path, "f", buf, 1 << 20)
        assert bytes(buf[:n]) == body == read_text(path, "f", 1 << 20).encode()


def test_a_file_over_the_bound_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    with pytest.raises(KernelFileError, match="larger than 99 bytes"):
        read_into(path, "f", bytearray(), 99)
    assert read_into(path, "f", bytearray(), 100) == 100


def test_a_link_out_of_a_tree_is_not_followed(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "secret"
    (tree / "proc").mkdir(parents=True)
    outside.write_text("not the tree's\n")
    os.symlink(outside, tree / "proc" / "interrupts")
    got = HostRoot.fixture(tree).proc_into("interrupts", bytearray(), 1 << 20)
    assert not isinstance(got, int)
    assert "a link out of the host tree" in got.reason


def test_a_proc_file_past_the_bound_is_refused_by_both_readers() -> None:
    # /proc reports size 0: only the read loop's bound catches it (not the fstat shortcut).
    path = Path("/proc/self/status")
    assert os.stat(path).st_size == 0
    whole = read_text(path, "status")
    for read in (
        lambda limit: read_text(path, "status", limit),
        lambda limit: read_into(path, "status", bytearray(), limit),
    ):
        with pytest.raises(KernelFileError, match="larger than 99 bytes"):
            read(99)
        assert read(len(whole) + 4096)  # the same file within its bound is read


def test_read_text_grows_past_its_first_page_and_keeps_every_byte(tmp_path: Path) -> None:
    path = tmp_path / "f"
    body = "".join(f"line {i}\n" for i in range(3000))  # ~26 KB: several pages
    path.write_text(body)
    assert read_text(path, "f") == body


def test_read_text_does_not_follow_a_link_out_of_a_tree(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "secret"
    (tree / "proc").mkdir(parents=True)
    outside.write_text("not the tree's\n")
    os.symlink(outside, tree / "proc" / "stat")
    with pytest.raises(KernelFileError, match="a link out of the host tree"):
        read_text(tree / "proc" / "stat", "stat", jail=str(tree.resolve()))
