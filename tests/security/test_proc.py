"""Every program tuitune starts (tuitune.core.proc): only a binary root alone can change, found
in the system directories (never through $PATH), with a clean environment, in /.

As found: iperf3, udevadm and the lab's tools were found through the user's $PATH and every
child inherited the whole environment and the current directory. Each planted program here
appends to a marker when it runs; the marker must never appear.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tuitune.core import proc
from tuitune.core.bench.iperf import find_iperf3
from tuitune.core.bench.model import BenchSpec
from tuitune.core.bench.runner import BenchEvent, BenchRunner

NOBODY = 65534
HOSTILE_ENV = {
    "PYTHONPATH": "/tmp",
    "PYTHONSTARTUP": "/tmp/x.py",
    "LD_LIBRARY_PATH": "/tmp",
    "BASH_ENV": "/tmp/x.sh",
    "IFS": "/",
    "TUITUNE_PROBE": "inherited",
}

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (chown to nobody)")


def plant(directory: Path, name: str, marker: Path, owner: int = 0) -> Path:
    """A program that leaves a trace when it runs."""
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / name
    exe.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    exe.chmod(0o755)
    os.chown(exe, owner, owner)
    return exe


def refused(argv: list[str]) -> str:
    with pytest.raises(proc.ProgramRefused) as info:
        proc.run(argv, timeout=30)
    return str(info.value)


def test_a_program_in_a_directory_others_can_write_to_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    shared = tmp_path / "shared"
    exe = plant(shared, "tool", marker)
    shared.chmod(0o777)
    assert refused([str(exe)]) == f"{exe}: {shared} is a directory others can write to"
    # Reached through a link from a safe place, the same: every hop is checked.
    safe = tmp_path / "safe"
    safe.mkdir()
    (safe / "tool").symlink_to(exe)
    assert "others can write to" in refused([str(safe / "tool")])
    # The sticky bit (as on /tmp) stops others from swapping what root put there.
    shared.chmod(0o1777)
    assert proc.run([str(exe)], timeout=30).returncode == 0
    assert marker.read_text() == "ran\n"


def test_a_program_another_user_owns_or_can_write_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    theirs = plant(tmp_path / "a", "tool", marker, owner=NOBODY)
    assert refused([str(theirs)]) == f"{theirs}: {theirs} is owned by uid {NOBODY}, not root"
    writable = plant(tmp_path / "b", "tool", marker)
    writable.chmod(0o757)
    assert refused([str(writable)]) == f"{writable}: {writable} is writable by others"
    assert not marker.exists()
    # A plain user's tuitune also trusts that user's own files (it runs with their rights).
    assert proc.check_program(str(theirs), owners=frozenset({0, NOBODY})) == str(theirs)


def test_names_are_looked_up_in_the_system_directories_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "marker"
    bindir = tmp_path / "bin"
    plant(bindir, "tuitune-probe", marker)
    plant(bindir, "iperf3", marker)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ.get('PATH', '')}")
    assert refused(["tuitune-probe"]) == (
        "tuitune-probe: not found in /usr/sbin, /usr/bin, /sbin, /bin"
    )
    assert refused(["./tuitune-probe"]) == "./tuitune-probe: a relative path is never run"
    assert refused([]) == "'': an empty command"
    # The benchmark's iperf3, found the way a run finds it: never the one on the user's PATH.
    assert find_iperf3() in (None, "/usr/bin/iperf3", "/usr/sbin/iperf3", "/bin/iperf3")
    events: list[BenchEvent] = []
    runner = BenchRunner(BenchSpec("127.0.0.1", port=9, duration=1), events.append)
    runner.start()
    runner.wait(60)
    assert not marker.exists()


def test_ip_netns_exec_gets_the_checked_path(tmp_path: Path) -> None:
    """`ip netns exec NS PROG` would look PROG up through PATH inside: it gets an absolute,
    checked path instead, and a relative one is refused before anything runs."""
    exe, argv = proc.prepare(["ip", "netns", "exec", "lab", "sh", "-c", "true"])
    assert exe in ("/usr/sbin/ip", "/usr/bin/ip", "/sbin/ip", "/bin/ip")
    assert argv[:4] == ["ip", "netns", "exec", "lab"]
    assert argv[4] in ("/usr/bin/sh", "/bin/sh") and argv[5:] == ["-c", "true"]
    with pytest.raises(proc.ProgramRefused, match="relative path"):
        proc.prepare(["ip", "netns", "exec", "lab", "bin/sh"])


def test_children_get_a_clean_environment_in_slash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in HOSTILE_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    done = proc.run(["env"], timeout=30)
    assert done.stdout.splitlines() == ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C.UTF-8"]
    assert proc.run(["pwd"], timeout=30).stdout == "/\n"
    assert proc.run(["env"], timeout=30, env={"IRQBALANCE_ONESHOT": "1"}).stdout.endswith(
        "IRQBALANCE_ONESHOT=1\n"
    )
    for bad in ("LD_PRELOAD", "PYTHONPATH", "A=B"):
        with pytest.raises(ValueError, match="never passed"):
            proc.clean_env({bad: "x"})
    # The same through a call site: the benchmark runner's child.
    out = tmp_path / "seen"
    events: list[BenchEvent] = []
    runner = BenchRunner(
        BenchSpec("127.0.0.1"), events.append, command=["sh", "-c", f"env > {out}; pwd >> {out}"]
    )
    runner.start()
    runner.wait(60)
    seen = out.read_text().splitlines()
    assert seen[-1] == "/"
    assert not [line for line in seen if line.split("=")[0] in HOSTILE_ENV]
    assert "PATH=/usr/sbin:/usr/bin:/sbin:/bin" in seen


def test_a_program_missing_from_an_absolute_path(tmp_path: Path) -> None:
    gone = tmp_path / "nowhere" / "iperf3"
    with pytest.raises(proc.ProgramMissing, match="No such file"):
        proc.resolve(str(gone))
    assert proc.find(str(gone)) is None
