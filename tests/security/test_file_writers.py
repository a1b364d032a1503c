"""Hole 3 of issue 14, beyond export: every other file tuitune writes as root (the bench
notebook, the runs screen's Markdown/CSV, the settings file, the lab's state file and lock)
is created without following a link another user planted, and a path that is not a file is a
one-line error. As root, with the hostile parts owned by `nobody`; each test asserts on the
file system first, then on the message."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.unit.core.bench.test_bench_notebook import BASE, filled, result, run
from tuitune import cli
from tuitune.core import lab as labmod
from tuitune.core.bench.notebook import Notebook, write_beside
from tuitune.core.config import Config, save_config

NOBODY = 65534
PRECIOUS = "root:x:0:0:root:/root:/bin/bash\n"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the attacks are on root")


def nobodys(path: Path) -> Path:
    os.lchown(path, NOBODY, NOBODY)
    return path


def nobodys_dir(path: Path) -> Path:
    path.mkdir()
    return nobodys(path)


def precious(tmp_path: Path) -> Path:
    """A root file an attacker would like overwritten (think /etc/passwd)."""
    d = tmp_path / "etc"
    d.mkdir(exist_ok=True)
    f = d / "passwd"
    f.write_text(PRECIOUS)
    return f


def caught(fn: Callable[[], object]) -> str:
    """What `fn` raised (an OSError or LabError), as the user reads it; "" when nothing."""
    try:
        fn()
    except (OSError, labmod.LabError) as exc:
        return str(exc)
    return ""


def locked() -> None:
    with labmod._locked():
        pass


def one_line(text: str, *words: str) -> str:
    assert "Traceback" not in text
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# (e) the notebook --------------------------------------------------------------------------------
def test_runs_notebook_that_is_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["runs", "--notebook", str(tmp_path)]) == 2
    one_line(capsys.readouterr().err, str(tmp_path), "a directory, not a file")


def test_runs_notebook_that_is_nobodys_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`runs --baseline` appends to the notebook: through nobody's link it would append to
    any file root can write."""
    real = filled(tmp_path)
    before = real.path.read_text()
    home = nobodys_dir(tmp_path / "home")
    link = home / "runs.jsonl"
    link.symlink_to(real.path)
    nobodys(link)

    code = cli.main(["runs", "--notebook", str(link), "--baseline", "r4"])

    assert real.path.read_text() == before
    assert code == 2
    one_line(capsys.readouterr().err, str(link), "symbolic link owned by nobody", "not followed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_bench_refuses_a_directory_notebook_before_the_run(tmp_path: Path) -> None:
    """Said before iperf3 starts, not as a traceback after the run was lost."""
    where = ["--port", str(free_port()), "--notebook", str(tmp_path), "-t", "1"]
    res = tuitune("bench", "lo", "--peer", "127.0.0.1", *where, timeout=120)
    assert res.stdout == ""  # no run started
    assert res.returncode == 2
    one_line(res.stderr, str(tmp_path), "a directory, not a file")


def test_recording_into_nobodys_directory_is_refused(tmp_path: Path) -> None:
    """A run recorded as root: the notebook's directory is nobody's, who could swap in a
    link or a second name of any file between two appends."""
    home = nobodys_dir(tmp_path / "home")
    nb = Notebook(home / "runs.jsonl")
    said = caught(lambda: nb.add(run("r1", "r1", result(20000, 100, 50.0), BASE)))
    assert list(home.iterdir()) == []
    one_line(said, str(home), "owned by nobody", "not root")


# the runs screen's Markdown and CSV -------------------------------------------------------------
def test_markdown_beside_a_notebook_behind_nobodys_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    link = tmp_path / "state"
    link.symlink_to(victim)
    nobodys(link)
    said = caught(lambda: write_beside(link / "runs.jsonl", ".md", "| a |\n"))
    assert list(victim.iterdir()) == []
    one_line(said, str(link), "symbolic link owned by nobody")


# the settings file -----------------------------------------------------------------------------
def test_config_behind_nobodys_link_is_not_written(tmp_path: Path) -> None:
    """`sudo -E tuitune` keeps the user's HOME: their config.toml, a dangling link into a
    directory root owns, was followed (os.path.realpath) and the file made there by root."""
    cron_d = tmp_path / "etc" / "cron.d"
    cron_d.mkdir(parents=True)
    cfg = nobodys_dir(tmp_path / "cfg")
    link = cfg / "config.toml"
    link.symlink_to(cron_d / "tuitune")
    nobodys(link)

    msg = save_config(Config(theme="tuitune-dark"), link)

    assert list(cron_d.iterdir()) == []
    assert msg is not None
    one_line(msg, str(link), "not saved", "symbolic link owned by nobody")


# the lab ---------------------------------------------------------------------------------------
def a_lab(state_dir: Path) -> labmod.Lab:
    return labmod.Lab(
        name="abc123",
        netns="tuitune-lab-abc123",
        peer_netns="tuitune-peer-abc123",
        ifname="veth-lab",
        peer_ifname="veth-peer",
        local_addr="198.18.0.1",
        peer_addr="198.18.0.2",
        server_pid=None,
        owner_pid=None,
        state_dir=state_dir,
    )


def test_lab_state_file_never_written_through_a_planted_temporary(tmp_path: Path) -> None:
    """The temporary name was `.lab.json.PID.tmp`, opened O_TRUNC without O_NOFOLLOW: a link
    there truncated and overwrote any file as root."""
    target = precious(tmp_path)
    state = nobodys_dir(tmp_path / "state")
    tmp = state / f".lab.json.{os.getpid()}.tmp"
    tmp.symlink_to(target)
    nobodys(tmp)

    said = caught(lambda: labmod.write_state(a_lab(state)))

    assert target.read_text() == PRECIOUS
    one_line(said, str(state), "owned by nobody")


def test_lab_lock_never_created_through_a_planted_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/run/lock is world-writable and sticky: nobody's link at the lock's name made root
    create the file it points to (an empty /etc/nologin stops logins)."""
    lock_dir = tmp_path / "lock"
    lock_dir.mkdir()
    lock_dir.chmod(0o1777)
    (tmp_path / "etc").mkdir()
    nologin = tmp_path / "etc" / "nologin"
    link = lock_dir / "tuitune-lab.lock"
    link.symlink_to(nologin)
    nobodys(link)
    monkeypatch.setattr(labmod, "LOCK_PATH", link)

    said = caught(locked)

    assert not nologin.exists()
    one_line(said, "lab lock", str(link), "symbolic link")


def test_lab_lock_held_by_nobodys_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock file nobody made first is one they can hold forever: refused, with its name."""
    lock_dir = tmp_path / "lock"
    lock_dir.mkdir()
    lock_dir.chmod(0o1777)
    lock = lock_dir / "tuitune-lab.lock"
    lock.write_text("")
    nobodys(lock)
    monkeypatch.setattr(labmod, "LOCK_PATH", lock)

    one_line(caught(locked), str(lock), "owned by nobody")
