"""A capture (`--root FILE.tar.gz`) may come from anyone; root unpacks it.

Each hostile archive is refused in one line naming it, and nothing lands outside the private
directory it is unpacked into: no absolute name, no `..`, no link out, no hard link, device
or FIFO, no write through a link the archive made, no member twice, and a bomb stops at the
bound whatever its headers claim.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from tests.support.command import ran
from tests.support.hosttree import build_tree, hyperv_2cpu
from tuitune.core.capture import unpack as unpack_mod
from tuitune.core.capture.unpack import CaptureError, unpack


def _archive(path: Path, members: list[tarfile.TarInfo | tuple[tarfile.TarInfo, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for m in members:
            if isinstance(m, tuple):
                info, data = m
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(m)
    return path


def _dir(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    return info


def _file(name: str, data: bytes = b"x\n") -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def _special(name: str, kind: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    return info


HOSTILE = {
    "absolute": ([_file("/etc/evil")], "an absolute path"),
    "dotdot": ([_dir("proc"), _file("proc/../../evil")], "'..'"),
    "odd top": ([_file("home/evil")], "not a part of a capture"),
    "link out absolute": ([_dir("proc"), _link("proc/x", "/etc/shadow")], "a link out"),
    "link out relative": ([_dir("proc"), _link("proc/x", "../../etc/shadow")], "a link out"),
    "hard link": ([_dir("proc"), _link("proc/x", "proc/y", tarfile.LNKTYPE)], "hard link"),
    "device": ([_dir("proc"), _special("proc/x", tarfile.CHRTYPE)], "device"),
    "fifo": ([_dir("proc"), _special("proc/x", tarfile.FIFOTYPE)], "FIFO"),
    "twice": ([_dir("proc"), _file("proc/x"), _file("proc/x")], "twice"),
    "through a link": (
        [_dir("proc"), _link("proc/d", "."), _file("proc/d/x")],
        "not a capture",
    ),
    "orphan": ([_file("proc/x/y")], "its directory comes after it"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_member_refused_nothing_outside(tmp_path: Path, case: str) -> None:
    members, words = HOSTILE[case]
    bad = _archive(tmp_path / "bad.tar.gz", members)
    into = tmp_path / "into"
    into.mkdir()
    with pytest.raises(CaptureError) as got:
        unpack(bad, into)
    line = str(got.value)
    assert "\n" not in line and "bad.tar.gz" in line and words in line
    assert not (tmp_path / "evil").exists() and not Path("/etc/evil").exists()
    assert not any(p.is_symlink() for p in into.rglob("*"))  # links come last: none made


def test_bomb_stops_at_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(unpack_mod, "UNPACKED_MAX", 1 << 20)
    bad = _archive(tmp_path / "bomb.tar.gz", [_dir("proc"), _file("proc/x", bytes(8 << 20))])
    assert bad.stat().st_size < 64 << 10  # small on disk, 8 MiB inside
    with pytest.raises(CaptureError, match="unpacks to more than"):
        unpack(bad, tmp_path)


def test_too_many_members(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(unpack_mod, "MEMBERS_MAX", 10)
    many = [_dir("proc"), *(_file(f"proc/{i}") for i in range(20))]
    bad = _archive(tmp_path / "many.tar.gz", many)
    into = tmp_path / "into"
    into.mkdir()
    with pytest.raises(CaptureError, match="more than 10 members"):
        unpack(bad, into)


def test_not_a_tar(tmp_path: Path) -> None:
    bad = tmp_path / "junk.tar.gz"
    bad.write_bytes(gzip.compress(b"\x1b[2J not a tar"))
    with pytest.raises(CaptureError, match="not a capture"):
        unpack(bad, tmp_path)


def test_show_root_hostile_archive_one_line(tmp_path: Path) -> None:
    bad = _archive(tmp_path / "bad.tar.gz", [_dir("proc"), _link("proc/x", "/etc/shadow")])
    rc, out, err = ran("show", "--root", str(bad))
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "a link out of the tree" in err


def test_root_archive_reads_as_its_tree(tmp_path: Path) -> None:
    """The same tree, as a directory and as a tar.gz: the same show --json."""
    spec = hyperv_2cpu(
        sysctls={"net.core.somaxconn": "4096"},
    )
    tree = build_tree(tmp_path / "tree", spec)
    archive = tmp_path / "tree.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for top in ("proc", "sys"):
            tar.add(tree / top, arcname=top)
    rc1, from_dir, _ = ran("show", "--json", "--root", str(tree), "eth0")
    rc2, from_tar, _ = ran("show", "--json", "--root", str(archive), "eth0")
    assert rc1 == rc2 == 0
    assert json.loads(from_dir) == json.loads(from_tar)
    assert json.loads(from_tar)["sysctls"]  # read, not empty


def test_hostile_device_json_is_a_state(tmp_path: Path) -> None:
    """ethtool/IFACE.json of another user's making: a wrong type is a state on the row."""
    from tuitune.core.capture.device import NotCaptured, load_device

    (tmp_path / "ethtool").mkdir()
    (tmp_path / "ethtool" / "eth0.json").write_text('{"_": "DeviceCapture", "driver": 5}')
    got = load_device(tmp_path, "eth0")
    assert isinstance(got, NotCaptured) and "eth0.json" in got.why.reason
    assert isinstance(load_device(tmp_path, "../../etc/x"), NotCaptured)
