"""root.read_into (issue 38: the whole /proc/interrupts read into a buffer kept between ticks)
reads what read_text reads, through the same checked open and bound."""

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
