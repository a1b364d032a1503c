"""Hole 4: `--journal-dir` took over a directory and trusted its files.

It chmod'ed any existing directory to 0700 (a 1777 directory lost its sticky world-writable
mode) and read journal files another user wrote: a journal `nobody` planted with a service
record made root start a program. Each test plants what a local user could (owned by nobody,
uid 65534) and asserts what root did: nothing ran, no mode changed, nothing was read."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.support.session_fakes import build_host
from tuitune.cli import main

NOBODY = 65534
PROFILE = '[sysctl]\n"net.core.netdev_max_backlog" = 250000\n'
BACKLOG = "proc/sys/net/core/netdev_max_backlog"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="plants files owned by nobody")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def planted_journal(path: Path, program: Path) -> None:
    """What a local user writes: main's wire format, an original that "restarts irqbalance"
    as `program`. Owned by nobody, as if they had written it."""
    root = {"proc": "/proc", "sys": "/sys", "netns": None, "live": True}
    records = [
        {"t": "head", "v": 1, "host": "host", "root": root, "pid": 1, "time": 0.0},
        {"t": "orig", "k": ["service", None, "irqbalance", None], "v": f"running: {program}"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    os.chown(path, NOBODY, NOBODY)


def marker_program(base: Path) -> tuple[Path, Path]:
    """A nobody-owned program named irqbalance that leaves a marker when it runs."""
    bindir = base / "bin"
    bindir.mkdir(parents=True)
    marker = base / "ran-as-root"
    program = bindir / "irqbalance"
    program.write_text(f"#!/bin/sh\nid -u > {marker}\n")
    program.chmod(0o755)
    os.chown(program, NOBODY, NOBODY)
    os.chown(bindir, NOBODY, NOBODY)
    base.chmod(0o755)
    return program, marker


def test_a_world_writable_journal_dir_keeps_its_mode_and_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = build_host(tmp_path / "host")
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp

    code, out, err = run(
        capsys, "apply", str(profile), "--root", str(tree), "--journal-dir", str(shared)
    )

    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and "writable by others (mode 1777)" in err
    assert list(shared.iterdir()) == []
    assert (tree / BACKLOG).read_text().strip() == "1000"  # nothing written


@pytest.mark.parametrize("where", ["world-writable dir", "nobody's file in root's dir"])
def test_a_journal_written_by_nobody_runs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    program, marker = marker_program(tmp_path / "x")
    jdir = tmp_path / "journal"
    jdir.mkdir(mode=0o700)
    if where == "world-writable dir":
        jdir.chmod(0o1777)
    planted_journal(jdir / "host.journal", program)

    # --force: on main the planted original was put back over whatever runs now.
    code, out, err = run(capsys, "restore", "--journal-dir", str(jdir), "--force")

    assert not marker.exists(), "a program named by another user's journal ran as root"
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1
    expected = "writable by others" if where == "world-writable dir" else "belongs to uid 65534"
    assert expected in err and "nothing was restored" in err
    if where == "world-writable dir":
        assert stat.S_IMODE(jdir.stat().st_mode) == 0o1777


def test_a_journal_dir_owned_by_nobody_is_neither_listed_nor_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program, marker = marker_program(tmp_path / "x")
    jdir = tmp_path / "journal"
    jdir.mkdir(mode=0o700)
    planted_journal(jdir / "host.journal", program)
    os.chown(jdir, NOBODY, NOBODY)

    code, out, err = run(capsys, "restore", "--list", "--journal-dir", str(jdir))
    assert (code, out) == (1, "")
    assert "belongs to uid 65534" in err and "irqbalance" not in err

    code, out, err = run(capsys, "restore", "--journal-dir", str(jdir), "--force")
    assert (code, out) == (1, "") and "belongs to uid 65534" in err
    assert not marker.exists()


def test_a_symlinked_journal_file_is_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program, marker = marker_program(tmp_path / "x")
    elsewhere = tmp_path / "x" / "planted.journal"
    planted_journal(elsewhere, program)
    jdir = tmp_path / "journal"
    jdir.mkdir(mode=0o700)
    (jdir / "host.journal").symlink_to(elsewhere)

    code, out, err = run(capsys, "restore", "--list", "--journal-dir", str(jdir))
    assert "host: cannot be read" in out and "symbolic link" in out
    assert "irqbalance" not in out and code == 1

    code, out, err = run(capsys, "restore", "--journal-dir", str(jdir), "--force")
    assert (code, out) == (1, "") and "symbolic link" in err
    assert not marker.exists()

    # Nor is one written through: the link's target keeps what it held.
    before = elsewhere.read_bytes()
    tree = build_host(tmp_path / "host")
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    (jdir / "host.journal").unlink()
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session import host_id

    (jdir / f"{host_id(HostRoot.fixture(tree))}.journal").symlink_to(elsewhere)
    code, out, err = run(
        capsys, "apply", str(profile), "--root", str(tree), "--journal-dir", str(jdir)
    )
    assert code == 1 and len(err.splitlines()) == 1 and "symbolic link" in err
    assert elsewhere.read_bytes() == before
    assert (tree / BACKLOG).read_text().strip() == "1000"


@pytest.mark.parametrize("command", ["apply", "restore"])
def test_proc_sys_as_the_journal_dir_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    tree = build_host(tmp_path / "host")
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    args = [str(profile)] if command == "apply" else []
    code, out, err = run(capsys, command, *args, "--root", str(tree), "--journal-dir", "/proc/sys")
    if command == "restore":  # nothing there to restore, and nothing created
        assert code == 0 and out.startswith("nothing to restore") and err == ""
    else:
        assert code == 1 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith("tuitune: ") and "/proc/sys" in err
    assert (tree / BACKLOG).read_text().strip() == "1000"
