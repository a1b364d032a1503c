"""The lab's state file, its staleness rules and the CLI's refusals, without touching the
kernel: /run/netns and the lock are pointed at tmp_path, so no real namespace is seen."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.cli import lab as cli_lab
from tuitune.core import lab as labmod
from tuitune.core.lab import Lab


@pytest.fixture(autouse=True)
def private_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    netns = tmp_path / "netns"
    netns.mkdir()
    monkeypatch.setattr(labmod, "NETNS_DIR", netns)
    monkeypatch.setattr(labmod, "LOCK_PATH", tmp_path / "lock" / "lab.lock")
    yield


def a_lab(state_dir: Path, **kw: object) -> Lab:
    fields: dict[str, object] = {
        "name": "abc123",
        "netns": "tuitune-lab-abc123",
        "peer_netns": "tuitune-peer-abc123",
        "ifname": "veth-lab",
        "peer_ifname": "veth-peer",
        "local_addr": "198.18.0.1",
        "peer_addr": "198.18.0.2",
        "server_pid": None,
        "owner_pid": None,
    }
    fields.update(kw)
    return Lab(**fields, state_dir=state_dir)  # type: ignore[arg-type]


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_state_file_round_trip(tmp_path: Path) -> None:
    lab = a_lab(tmp_path, server_pid=1234, owner_pid=5678)
    labmod.write_state(lab)
    doc = json.loads((tmp_path / "lab.json").read_text())
    assert doc["schema"] == "tuitune.lab" and doc["peer_addr"] == "198.18.0.2"
    assert "state_dir" not in doc
    back = labmod.read_state(tmp_path)
    assert back == lab and isinstance(back, Lab) and back.state_dir == tmp_path
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed, not left
    assert (tmp_path / "lab.json").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        '{"schema": "other", "version": 1}',
        json.dumps({**a_lab(Path("/x")).to_json(), "server_pid": -3}),
        json.dumps({**a_lab(Path("/x")).to_json(), "netns": ""}),
        "[]",
    ],
)
def test_an_unreadable_state_file_is_stale_and_cleaned(tmp_path: Path, text: str) -> None:
    (tmp_path / "lab.json").write_text(text)
    assert labmod.current_lab(tmp_path) is None
    stale = labmod.find_stale(tmp_path)
    assert len(stale) == 1 and "holds no lab" in stale[0]
    assert labmod.clean_stale(tmp_path) == [f"state file {tmp_path / 'lab.json'}"]
    assert labmod.find_stale(tmp_path) == []


def test_a_lab_whose_namespaces_are_gone_is_stale(tmp_path: Path) -> None:
    labmod.write_state(a_lab(tmp_path, owner_pid=os.getpid()))
    assert labmod.current_lab(tmp_path) is None
    assert labmod.find_stale(tmp_path) == ["lab abc123 (its namespaces are gone)"]


def test_a_leftover_placeholder_in_run_netns_is_not_a_namespace(tmp_path: Path) -> None:
    # `ip netns del` unmounts, then unlinks: a crash between leaves a plain file behind.
    (labmod.NETNS_DIR / "tuitune-lab-abc123").touch()
    assert not labmod._ns_exists("tuitune-lab-abc123")


def test_down_without_namespaces_removes_the_state_file_once(tmp_path: Path) -> None:
    lab = a_lab(tmp_path)
    labmod.write_state(lab)
    lab.pidfile.write_text("999999\0")
    assert labmod.down(None, tmp_path) == [f"state file {tmp_path / 'lab.json'}"]
    assert not lab.pidfile.exists()
    assert labmod.down(None, tmp_path) == []  # idempotent
    assert labmod.down(lab, tmp_path) == []


def test_down_of_another_lab_keeps_the_recorded_one(tmp_path: Path) -> None:
    labmod.write_state(a_lab(tmp_path))
    other = a_lab(tmp_path, name="def456", netns="tuitune-lab-def456")
    assert labmod.down(other, tmp_path) == []
    assert (tmp_path / "lab.json").exists()


def test_owner_and_server_liveness(tmp_path: Path) -> None:
    me = os.getpid()
    assert labmod.owner_alive(a_lab(tmp_path, owner_pid=me))
    assert not labmod.owner_alive(a_lab(tmp_path, owner_pid=dead_pid()))
    assert not labmod.owner_alive(a_lab(tmp_path, owner_pid=None))
    # A live pid that is not the lab's iperf3 server (pid reuse) is not the server.
    assert not labmod.server_running(a_lab(tmp_path, server_pid=me))
    assert not labmod.is_server(a_lab(tmp_path), me)


def test_pidfile_as_iperf3_writes_it(tmp_path: Path) -> None:
    path = tmp_path / "x.pid"
    path.write_bytes(b"4242\0")
    assert labmod.read_pidfile(path) == 4242
    path.write_text("")
    assert labmod.read_pidfile(path) is None
    assert labmod.read_pidfile(tmp_path / "missing") is None


def args_for(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli_lab.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["lab", *argv])


def test_not_root_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert cli_lab.cmd_lab(args_for("--no-tui", "--state-dir", str(tmp_path))) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.splitlines() == [
        "tuitune: the lab needs root (it creates network namespaces): "
        "run `sudo tuitune lab --no-tui`"
    ]


def test_missing_iperf3_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    real = labmod.proc.find  # programs are found only through tuitune.core.proc
    monkeypatch.setattr(labmod.proc, "find", lambda t: None if t == "iperf3" else real(t))
    assert cli_lab.cmd_lab(args_for("--no-tui", "--state-dir", str(tmp_path))) == 2
    assert "apt install iperf3" in capsys.readouterr().err
    assert not (tmp_path / "lab.json").exists()


def test_status_without_a_lab(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert cli_lab.cmd_lab(args_for("--status", "--state-dir", str(tmp_path))) == 1
    assert "no lab" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv0", "hint"),
    [
        ("/home/me/tuitune/.venv/bin/tuitune", "sudo /home/me/tuitune/.venv/bin/tuitune lab"),
        ("/usr/local/bin/tuitune", "sudo tuitune lab"),
        ("/x/tuitune/__main__.py", "sudo tuitune lab"),
    ],
)
def test_the_root_hint_names_a_command_sudo_finds(
    monkeypatch: pytest.MonkeyPatch, argv0: str, hint: str
) -> None:
    # sudo's PATH has only the system directories: a virtualenv's tuitune needs its path.
    monkeypatch.setattr(sys, "argv", [argv0])
    assert cli_lab._as_root_hint(args_for()) == hint


def test_the_lab_opens_the_live_screen_without_rewriting_its_arguments(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`tuitune lab` hands the lab's namespace and interface to the live screen as arguments;
    it used to overwrite argparse's namespace (root, netns, iface, and a new `lab`) so that
    cli.py's cmd_tui would find them."""
    import tuitune.cli.live

    lab = a_lab(tmp_path)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(labmod, "missing_tools", lambda: [])
    monkeypatch.setattr(labmod, "find_stale", lambda state_dir: [])
    monkeypatch.setattr(labmod, "current_lab", lambda state_dir: lab)
    monkeypatch.setattr(labmod, "reuse", lambda found: found)
    opened: list[dict[str, object]] = []
    monkeypatch.setattr(tuitune.cli.live, "run_tui", lambda **kw: opened.append(kw) or 0)
    args = args_for("--state-dir", str(tmp_path), "--theme", "mono")
    before = vars(args).copy()
    assert cli_lab.cmd_lab(args) == 0
    assert opened == [
        {
            "tree": None,
            "netns": "tuitune-lab-abc123",
            "iface": "veth-lab",
            "interval": 1.0,
            "theme": "mono",
            "lab": lab,
            "trial_seconds": 30.0,  # the trial's countdown (issue 39's --trial-seconds)
        }
    ]
    assert vars(args) == before
    assert (
        "lab abc123 stays: `tuitune --netns tuitune-lab-abc123 veth-lab`" in capsys.readouterr().err
    )
