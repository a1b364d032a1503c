"""`tuitune advise --apply` moves another user's process only with `--other-users`, exactly as
`tuitune apply --other-users`: without it, the one-line refusal names the owner and the flag
and nothing changes; with it, the process is moved, and `tuitune restore` puts it back.

The process is real: `nobody` sends UDP from the lab's end to its peer, pinned by itself to
the last CPU, so the advisor's `app-on-irq-cpu` sees it beside (or on) the CPU where the
lab's receive work (NET_RX) lands and proposes another CPU for it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.cli import main
from tuitune.core import lab as labmod

pytestmark = pytest.mark.kernel

CPUS = frozenset(os.sched_getaffinity(0))
LAST = max(CPUS)

SENDER = """
import os, socket, sys
os.sched_setaffinity(0, {int(sys.argv[3])})
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 0))
print("ready", flush=True)
data = b"x" * 1200
while True:
    try:
        s.sendto(data, (sys.argv[2], 9))
    except OSError:
        pass
"""


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[labmod.Lab]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    if os.geteuid() != 0:
        pytest.skip("the lab needs root")
    if len(CPUS) < 2:
        pytest.skip("moving a process needs two CPUs")
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 missing (scripts/dev setup installs it)")
    state = tmp_path / "state"
    try:
        yield labmod.build(state)
    finally:
        labmod.down(None, state)


@pytest.fixture
def sender(lab: labmod.Lab) -> Iterator[subprocess.Popen[str]]:
    cmd = ["ip", "netns", "exec", lab.netns]
    cmd += ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    cmd += ["/usr/bin/python3", "-c", SENDER, lab.local_addr, lab.peer_addr, str(LAST)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        yield proc
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()


def test_advise_apply_needs_other_users_for_another_users_process(
    lab: labmod.Lab,
    sender: subprocess.Popen[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pid = sender.pid  # `ip netns exec` and setpriv exec python3: the same pid
    assert os.sched_getaffinity(pid) == {LAST}
    base = ["advise", lab.ifname, "--netns", lab.netns, "--seconds", "1"]
    base += ["--journal-dir", str(tmp_path / "j"), "--apply", "app-on-irq-cpu"]

    capsys.readouterr()
    assert main(base) == 1
    got = capsys.readouterr()
    assert "belongs to nobody (uid 65534)" in got.err, got.out + got.err
    assert "(--other-users allows it)" in got.err and "nothing was changed" in got.err
    assert os.sched_getaffinity(pid) == {LAST}

    assert main([*base, "--other-users"]) == 0
    got = capsys.readouterr()
    assert f"(pid {pid}) affinity: {LAST} -> " in got.out, got.out + got.err
    moved = os.sched_getaffinity(pid)
    assert moved and LAST not in moved

    assert main(["restore", "--netns", lab.netns, "--journal-dir", str(tmp_path / "j")]) == 0
    assert os.sched_getaffinity(pid) == {LAST}
