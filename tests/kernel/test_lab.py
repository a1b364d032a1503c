"""`tuitune lab`, the real command, against the real kernel: built, used, found after a crash,
and removed without a trace.

Each test has its own state dir (tmp_path), so it sees only its own lab; whatever happens, the
lab is taken down at the end. The machine's own namespace is compared before and after: a lab
never adds, removes or changes a link there.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tuitune.core import lab as labmod
from tuitune.core.lab import Lab

pytestmark = pytest.mark.kernel

TUITUNE = str(Path(sys.executable).with_name("tuitune"))


def run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=120)


def tuitune_lab(state_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(TUITUNE, "lab", "--state-dir", str(state_dir), *args, check=False)


def host_links() -> dict[str, str]:
    """`ip -o link` of the machine's own namespace, by interface name."""
    out = run("ip", "-o", "link").stdout
    return {line.split(": ")[1].split("@")[0]: line for line in out.splitlines()}


def netns_names() -> set[str]:
    return {line.split()[0] for line in run("ip", "netns", "list").stdout.splitlines() if line}


def pid_alive(pid: int) -> bool:
    """pgrep finds it running. A daemon that ended is reparented to pid 1, which on this VM
    reaps it only seconds later: until then it is a zombie (state Z), ended all the same."""
    if str(pid) not in run("pgrep", "-f", "iperf3", check=False).stdout.split():
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def recorded(state_dir: Path) -> Lab:
    lab = labmod.read_state(state_dir)
    assert isinstance(lab, Lab), (state_dir / "lab.json").read_text()
    return lab


def assert_unchanged(before: dict[str, str]) -> None:
    """Every link the host had is still there, unchanged, and none of the lab's appeared.
    (Links other tests add to the host meanwhile are not the lab's business.)"""
    after = host_links()
    assert {n: after.get(n) for n in before} == before
    new = [line for n, line in after.items() if n not in before]
    assert not [line for line in new if "veth-lab" in line or "veth-peer" in line], new


def assert_gone(lab: Lab, state_dir: Path) -> None:
    names = netns_names()
    assert lab.netns not in names and lab.peer_netns not in names
    assert lab.server_pid is not None and not pid_alive(lab.server_pid)
    assert not (state_dir / "lab.json").exists()
    assert not lab.pidfile.exists()


@pytest.fixture
def state_dir(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("the lab needs root")
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 missing")
    d = tmp_path / "state"
    yield d
    labmod.down(None, d)  # whatever the test left, even when it failed


def test_no_tui_then_down_leaves_nothing_behind(state_dir: Path) -> None:
    before = host_links()
    out = tuitune_lab(state_dir, "--no-tui")
    assert out.returncode == 0, out.stderr
    lab = recorded(state_dir)
    assert f"tuitune --netns {lab.netns} {lab.ifname}" in out.stdout
    assert f"iperf3 -c {lab.peer_addr}" in out.stdout
    # Both namespaces, the veth pair with one end in each, the addresses, the server.
    assert {lab.netns, lab.peer_netns} <= netns_names()
    local = run("ip", "-n", lab.netns, "-o", "addr", "show", "dev", lab.ifname).stdout
    assert f"inet {lab.local_addr}/30" in local
    peer = run("ip", "-n", lab.peer_netns, "-o", "link", "show", lab.peer_ifname).stdout
    assert "state UP" in peer or ",UP" in peer
    assert lab.server_pid is not None and pid_alive(lab.server_pid)
    assert lab.netns.startswith("tuitune-lab-") and lab.peer_netns.startswith("tuitune-peer-")
    assert_unchanged(before)  # while it exists, too
    status = tuitune_lab(state_dir, "--status")
    assert status.returncode == 0 and f"lab {lab.name}:" in status.stdout
    # An iperf3 client in the lab's namespace reaches the server: a 1 s run succeeds.
    client = run("ip", "netns", "exec", lab.netns, "iperf3", "-c", lab.peer_addr, "-t", "1",
                 "-J", check=False)  # fmt: skip
    assert client.returncode == 0, client.stdout[-2000:]
    assert json.loads(client.stdout)["end"]["sum_received"]["bits_per_second"] > 0
    down = tuitune_lab(state_dir, "--down")
    assert down.returncode == 0, down.stderr
    assert f"removed iperf3 server (pid {lab.server_pid})" in down.stdout
    assert f"removed netns {lab.netns}" in down.stdout
    assert_gone(lab, state_dir)
    assert_unchanged(before)
    again = tuitune_lab(state_dir, "--down")
    assert (again.returncode, again.stdout.strip()) == (0, "no lab to remove")


def test_a_second_start_reuses_the_live_lab(state_dir: Path) -> None:
    first = tuitune_lab(state_dir, "--no-tui")
    assert first.returncode == 0, first.stderr
    lab = recorded(state_dir)
    second = tuitune_lab(state_dir, "--no-tui")
    assert second.returncode == 0, second.stderr
    assert f"reusing lab {lab.name}" in second.stderr
    again = recorded(state_dir)
    assert (again.name, again.server_pid) == (lab.name, lab.server_pid)
    assert again.owner_pid != lab.owner_pid  # the newer tuitune owns it now
    # Building over a live lab would lose track of it: refused, and nothing changes.
    names = netns_names()
    with pytest.raises(labmod.LabError, match="already records a lab"):
        labmod.build(state_dir)
    assert netns_names() == names and recorded(state_dir) == again


def test_a_crashed_lab_is_found_and_cleaned_by_the_next_start(state_dir: Path) -> None:
    assert tuitune_lab(state_dir, "--no-tui").returncode == 0
    crashed = recorded(state_dir)
    assert crashed.server_pid is not None
    os.kill(crashed.server_pid, signal.SIGKILL)  # the owner (the CLI) has exited already
    wait_until(lambda: not pid_alive(crashed.server_pid or 0))
    status = tuitune_lab(state_dir, "--status")
    assert f"stale: lab {crashed.name} (owner pid {crashed.owner_pid} gone" in status.stdout
    out = tuitune_lab(state_dir, "--no-tui")
    assert out.returncode == 0, out.stderr
    assert f"removed a stale lab: lab {crashed.name}" in out.stderr
    assert f"netns {crashed.netns}" in out.stderr
    names = netns_names()
    assert crashed.netns not in names and crashed.peer_netns not in names
    fresh = recorded(state_dir)
    assert fresh.name != crashed.name and {fresh.netns, fresh.peer_netns} <= names


def test_lab_namespaces_without_a_state_file_are_listed_not_removed(state_dir: Path) -> None:
    """A lab no state file here claims may be another --state-dir's (another user's, its
    server down): `--down` names it and how to remove it, and leaves it (main removed it)."""
    tag = uuid.uuid4().hex[:6]
    orphan = [f"tuitune-lab-{tag}", f"tuitune-peer-{tag}"]
    try:
        for ns in orphan:
            run("ip", "netns", "add", ns)
        run("ip", "-n", orphan[0], "link", "add", "veth-lab", "type", "veth",
            "peer", "name", "veth-peer", "netns", orphan[1])  # fmt: skip
        status = tuitune_lab(state_dir, "--status")
        assert f"stale: lab {tag}: no state file in {state_dir} claims it" in status.stdout
        down = tuitune_lab(state_dir, "--down")
        assert (down.returncode, down.stdout) == (0, "no lab to remove\n")
        assert f"`ip netns del {orphan[0]}; ip netns del {orphan[1]}` removes it" in down.stderr
        assert set(orphan) <= netns_names()
    finally:
        for ns in orphan:
            run("ip", "netns", "del", ns, check=False)


def test_down_warns_of_a_process_holding_the_namespace(state_dir: Path) -> None:
    """`--down` says when something other than iperf3 runs in a lab namespace (the name goes,
    the namespace lives on), and the lab's hints name the state dir it was built with."""
    out = tuitune_lab(state_dir, "--no-tui")
    assert out.returncode == 0, out.stderr
    assert f"remove it:          tuitune lab --down --state-dir {state_dir}" in out.stdout
    lab = recorded(state_dir)
    status = tuitune_lab(state_dir, "--status")
    assert "stale" not in status.stdout
    holder = subprocess.Popen(["ip", "netns", "exec", lab.netns, "sleep", "60"])
    try:
        wait_until(lambda: bool(labmod._pids_in(lab.netns)))
        pid = labmod._pids_in(lab.netns)[0]
        down = tuitune_lab(state_dir, "--down")
        assert down.returncode == 0, down.stderr
        assert f"removed netns {lab.netns}" in down.stdout
        assert (
            f"tuitune: warning: pid {pid} (sleep) runs in netns {lab.netns}: the namespace "
            "lives on, nameless, until it exits"
        ) in down.stderr
    finally:
        holder.kill()
        holder.wait()


def test_without_root_one_line_says_how(state_dir: Path) -> None:
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux)")
    cmd = [
        "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
        "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search",
        sys.executable, "-m", "tuitune", "lab", "--state-dir", str(state_dir),
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "tuitune: the lab needs root (it creates network namespaces): run `sudo tuitune lab`"
    ]
    assert not state_dir.exists()


# -- the live screen in a real terminal ---------------------------------------------------------
class Tmux:
    def __init__(self, width: int, height: int) -> None:
        self.socket = f"tt-lab-{uuid.uuid4().hex[:6]}"
        self.size = (width, height)

    def run(self, *args: str) -> str:
        return run("tmux", "-L", self.socket, *args).stdout

    def start(self, command: list[str], env: dict[str, str]) -> None:
        w, h = self.size
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        line = f"env -u COLUMNS -u LINES {exports} {' '.join(command)} 2>&1; echo EXIT=$?; sleep 60"
        self.run("new-session", "-d", "-x", str(w), "-y", str(h), line)

    def screen(self) -> str:
        return self.run("capture-pane", "-p")

    def wait_for(self, ok: Callable[[str], bool], timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if ok(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"screen never got there; last screen:\n{text}")
            time.sleep(0.1)

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def wait_until(ok: Callable[[], object], timeout: float = 30.0) -> None:
    """Poll until ok(); the timeout only bounds a hang, it decides nothing."""
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.1)


def test_lab_opens_the_screen_and_quit_remove_leaves_nothing(
    state_dir: Path, tmp_path: Path
) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux missing")
    before = host_links()
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp_path)}
    command = [TUITUNE, "lab", "--state-dir", str(state_dir)]
    t = Tmux(160, 48)
    try:
        # First time: build, watch the lab's end, keep it.
        t.start(command, env)
        screen = t.wait_for(lambda s: "netns tuitune-lab-" in s and "NIC veth-lab" in s)
        lab = recorded(state_dir)
        assert f"netns {lab.netns}" in screen and "veth" in screen
        t.run("send-keys", "q")
        t.wait_for(lambda s: "Remove the lab (namespaces, veth, iperf3 server)?" in s)
        t.run("send-keys", "k")
        kept = t.wait_for(lambda s: "EXIT=0" in s)
        assert f"lab {lab.name} stays" in kept
        assert lab.server_pid is not None and pid_alive(lab.server_pid)
        t.kill()
        # Second time: the same lab again, then remove it on leaving.
        t = Tmux(160, 48)
        t.start(command, env)
        t.wait_for(lambda s: f"netns {lab.netns}" in s and "NIC veth-lab" in s)
        t.run("send-keys", "q")
        t.wait_for(lambda s: "Remove the lab" in s)
        t.run("send-keys", "r")
        done = t.wait_for(lambda s: "EXIT=0" in s)
        assert f"lab {lab.name} removed" in done
        assert_gone(lab, state_dir)
        assert_unchanged(before)
    finally:
        t.kill()
