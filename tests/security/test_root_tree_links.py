"""A --root tree belongs to whoever wrote it; tuitune reads it as root.

A link in the tree to a root-only file outside it (a sysctl, the hostname, a MAC address, a
directory of them) must not be followed: its content never reaches `show --json`. A FIFO or
a link to a device where a file should be must not hang tuitune or fill its memory either.
Every hostile part of the tree is owned by `nobody`, as a local user would leave it.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.command import ran
from tests.support.hosttree import build_tree, hyperv_2cpu

NOBODY = 65534
MARKER = "s3cr3t-0f-r00t"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The real 2-CPU Hyper-V captures as a host tree with interface eth0, owned by nobody."""
    spec = hyperv_2cpu(
        sysctls={"net.core.somaxconn": "4096"},
    )
    return build_tree(tmp_path / "tree", spec)


def _secret(tmp_path: Path, name: str, text: str) -> Path:
    """A root-only file outside the tree."""
    path = tmp_path / name
    path.write_text(text)
    path.chmod(0o600)
    return path


def _plant(link: Path, target: Path) -> None:
    """Replace `link` (a file or directory of the tree) with nobody's link to `target`."""
    if link.is_dir() and not link.is_symlink():
        for p in sorted(link.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        link.rmdir()
    elif os.path.lexists(link):
        link.unlink()
    link.symlink_to(target)


def _give_to_nobody(tree: Path) -> None:
    for p in [tree, *tree.rglob("*")]:
        os.lchown(p, NOBODY, NOBODY)


def _show(tree: Path, *args: str) -> tuple[int, str, str]:
    return ran("show", "--root", tree, *args)


def test_links_to_root_only_files_are_not_followed(tree: Path, tmp_path: Path) -> None:
    secret = _secret(tmp_path, "secret", MARKER + "\n")
    # The same secret behind every kind of value show prints: a sysctl, the hostname, the
    # kernel release, the MAC address, and a whole directory of sysctls.
    outside = tmp_path / "root-only-dir"
    outside.mkdir(mode=0o700)
    _secret(outside, "tcp_rmem", MARKER + "\n")
    _plant(tree / "proc/sys/net/core/somaxconn", secret)
    _plant(tree / "proc/sys/kernel/hostname", secret)
    _plant(tree / "proc/sys/kernel/osrelease", Path(os.path.relpath(secret, tree / "proc/sys")))
    _plant(tree / "sys/class/net/eth0/address", secret)
    _plant(tree / "proc/sys/net/ipv4", outside)  # a whole directory: tcp_rmem is in it
    _give_to_nobody(tree)

    rc, out, err = _show(tree, "eth0", "--json")

    assert rc == 0, err
    assert MARKER not in out and MARKER not in err
    doc = json.loads(out)
    somaxconn = next(s for s in doc["sysctls"] if s["key"] == "net.core.somaxconn")
    assert somaxconn["value"] is None
    assert "out of the host tree" in somaxconn["unavailable"]["reason"]
    rmem = next(s for s in doc["sysctls"] if s["key"] == "net.ipv4.tcp_rmem")
    assert rmem["value"] is None and "out of the host tree" in rmem["unavailable"]["reason"]
    assert doc["interface"]["link"]["address"] is None


def test_a_linked_directory_does_not_list_its_names(tree: Path, tmp_path: Path) -> None:
    """`no interface X; interfaces here: ...` lists sys/class/net: not a root-only directory's
    file names through a link."""
    outside = tmp_path / "root-only-dir"
    outside.mkdir(mode=0o700)
    _secret(outside, MARKER, "x\n")
    _plant(tree / "sys/class/net", outside)
    _give_to_nobody(tree)

    rc, out, err = _show(tree, "eth9", "--json")

    assert rc == 2 and len(err.splitlines()) == 1, err
    assert MARKER not in out and MARKER not in err


def _limited_memory() -> None:
    # A runaway read must end in a MemoryError in this child, not in the machine's OOM killer.
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_a_device_is_not_read(tree: Path, kind: str) -> None:
    """A FIFO would block the read forever; a link to /dev/zero would never end."""
    interrupts = tree / "proc/interrupts"
    interrupts.unlink()
    if kind == "fifo":
        os.mkfifo(interrupts)
    else:
        interrupts.symlink_to("/dev/zero")
    _give_to_nobody(tree)
    try:
        run = subprocess.run(
            [sys.executable, "-m", "tuitune", "show", "--root", str(tree), "eth0", "--json"],
            capture_output=True,
            text=True,
            timeout=120,  # a hang guard only: the answer comes in well under a second
            preexec_fn=_limited_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"tuitune hung on a {kind} in the tree")
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "tuitune: /proc/interrupts: " in run.stderr  # named, on its own line
    json.loads(run.stdout)


def test_apply_does_not_write_through_a_linked_directory(tmp_path: Path) -> None:
    """`apply --root TREE` changes the tree's files: a directory of the tree linked to one
    outside it (here a root-only copy; it could be the real /proc/sys) is not written to."""
    from tests.support.session_fakes import build_host

    host = build_host(tmp_path / "host")
    outside = tmp_path / "outside-core"
    shutil.copytree(host / "proc/sys/net/core", outside)
    outside.chmod(0o700)
    _plant(host / "proc/sys/net/core", outside)
    _give_to_nobody(host)
    before = {p.name: p.read_text() for p in outside.iterdir()}
    profile = tmp_path / "p.toml"
    profile.write_text('[sysctl]\n"net.core.netdev_max_backlog" = 250000\n')
    rc, out, err = ran("apply", profile, "--root", host, "--journal-dir", tmp_path / "j")
    assert {p.name: p.read_text() for p in outside.iterdir()} == before
    assert rc != 0 and "out of the host tree" in out + err
