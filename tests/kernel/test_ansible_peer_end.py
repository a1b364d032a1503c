"""Issue 17's "tried as a new user would": tune the lab, export `--ansible`, apply the role to
the lab's peer end with the real ansible-playbook, and see both ends match in `tuitune show`.
The same run installs tuitune on the far end from the wheelhouse the role ships (issue 39's
`--install-tuitune`), and that installed command reads the tuned interface.

The peer end is a second host of the fleet here: the same role, its own interface name
(`tuitune_iface`) and no namespace prefix (`tuitune_netns: ''`, as ansible runs inside the
peer's namespace). Everything the play writes to /etc (and to /opt, /usr/local and /var/cache,
where it installs tuitune) lands in a tmpfs-backed overlay inside a private mount namespace,
and a systemd-udevd running there (in the peer's network namespace, reading only the rules
directory the play fills) applies the rules when the role's handler replays the device's
"add" event. Nothing reaches this machine's /etc, /usr/local, udevd or interfaces; the lab is
taken down and the udevd stopped even when the test fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.test_export_udev import UDEVD, nsenter, udevd
from tests.support.command import tuitune
from tests.support.wheelhouse import wheelhouse
from tests.unit.core.export.test_export_ansible import (
    HOST_PYTHON,
    ansible_env,
    ansible_playbook,
    recap,
)
from tuitune.core import lab as labmod

pytestmark = pytest.mark.kernel

HOST_COMMAND = "/usr/local/bin/tuitune"  # where the affinity unit runs tuitune

PROFILE = """
[sysctl]
"net.core.somaxconn" = 8192

[interface]
mtu = 9000
txqueuelen = 5000

[interface.rps_cpus]
"rx-0" = "1"
"""

# Runs inside `ip netns exec PEER unshare -m`: /etc, and where the role installs tuitune
# (/opt, /usr/local, /var/cache), become overlays whose writes go to a tmpfs, udev's rule
# directories are emptied, then udevd starts.
START = """set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs "$1"
for d in /etc /opt /usr/local /var/cache; do
  mkdir -p "$1/$d/upper" "$1/$d/work"
  mount -t overlay overlay -o "lowerdir=$d,upperdir=$1/$d/upper,workdir=$1/$d/work" "$d"
done
mount -t tmpfs tmpfs /etc/udev/rules.d
mount -t tmpfs tmpfs /usr/lib/udev/rules.d
exec {udevd}
"""


@contextlib.contextmanager
def peer_udevd(ns: str, scratch: Path) -> Iterator[int]:
    """A udevd in namespace `ns` behind an overlaid /etc (writes under `scratch`); its pid."""
    scratch.mkdir()
    with udevd(ns, scratch, START) as pid:
        yield pid


def play_in(
    pid: int, play: Path, tmp: Path, *extra: str, inventory: str = "localhost,"
) -> subprocess.CompletedProcess[str]:
    """ansible-playbook -c local inside the udevd's mount and network namespaces."""
    env = ansible_env(tmp)
    cmd = [
        "nsenter", "-t", str(pid), "-m", "-n",
        ansible_playbook(), "-i", inventory, "-c", "local",
        *(("-e", "tuitune_hosts=localhost") if inventory == "localhost," else ()),
        "-e", f"ansible_python_interpreter={sys.executable}",
        *extra, str(play / "playbook.yml"),
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp, timeout=900)


def shown(netns: str, ifname: str) -> dict[str, object]:
    """What `tuitune show --json` says of the settings the profile set."""
    res = tuitune("show", "--json", "--netns", netns, ifname)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    link = doc["interface"]["link"]
    [rx0] = [q for q in doc["interface"]["queues"] if q["name"] == "rx-0"]
    sysctls = {s["key"]: s["value"] for s in doc["sysctls"]}
    return {
        "mtu": link["mtu"],
        "txqlen": link["txqlen"],
        "rx-0 rps": rx0["cpus"],
        "somaxconn": sysctls.get("net.core.somaxconn"),
    }


def lab_or_skip(state: Path) -> labmod.Lab:
    """A lab built under `state`, or the test skipped when this machine cannot build one."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    if labmod.missing_tools() or not shutil.which("udevadm") or not Path(UDEVD).exists():
        pytest.skip("needs iproute2, iperf3 and udev")
    return labmod.build(state)


def tune_both_ends(tmp_path: Path, lab: labmod.Lab, far_profile: str) -> Path:
    """PROFILE applied at the near end and `far_profile` at the far end, through `tuitune
    apply` into one journal directory, which is returned."""
    journal = tmp_path / "journal"
    for name, text, ns, dev in (
        ("near.toml", PROFILE, lab.netns, lab.ifname),
        ("far.toml", far_profile, lab.peer_netns, lab.peer_ifname),
    ):
        (tmp_path / name).write_text(text)
        res = tuitune("apply", tmp_path / name, dev, "--netns", ns, "--journal-dir", journal)
        assert res.returncode == 0, res.stderr
    return journal


def test_role_applied_to_the_lab_peer_end_makes_both_ends_match(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    if labmod.missing_tools() or not shutil.which("udevadm") or not Path(UDEVD).exists():
        pytest.skip("needs iproute2, iperf3 and udev")
    state = tmp_path / "state"
    lab = labmod.build(state)
    try:
        near, peer = (lab.netns, lab.ifname), (lab.peer_netns, lab.peer_ifname)
        before = shown(*peer)
        profile = tmp_path / "tuned.toml"
        profile.write_text(PROFILE)
        journal = tmp_path / "journal"
        res = tuitune("apply", profile, lab.ifname, "--netns", lab.netns, "--journal-dir", journal)
        assert res.returncode == 0, res.stderr
        tuned = shown(*near)
        assert tuned == {"mtu": 9000, "txqlen": 5000, "rx-0 rps": [1], "somaxconn": "8192"}
        assert before != tuned

        # The role also installs tuitune (issue 39), from the wheelhouse it ships, at its
        # defaults: a venv in /opt/tuitune, the command linked as /usr/local/bin/tuitune.
        play = tmp_path / "play"
        res = tuitune(
            "export", lab.ifname, "--netns", lab.netns, "--journal-dir", journal,
            "--ansible", "--match", "name", "--out", play, "--install-tuitune", wheelhouse(),
        )  # fmt: skip
        assert res.returncode == 0, res.stderr

        ours = _lstat(HOST_COMMAND)
        with peer_udevd(lab.peer_netns, tmp_path / "etc-upper") as pid:
            peer_vars = (
                "-e", f"tuitune_iface={lab.peer_ifname}", "-e", "tuitune_netns=",
                "-e", f"tuitune_install_python={HOST_PYTHON}",
            )  # fmt: skip
            first = play_in(pid, play, tmp_path, *peer_vars)
            assert first.returncode == 0, first.stdout + first.stderr
            assert recap(first.stdout)["changed"] > 0
            assert shown(*peer) == tuned  # both ends match
            # The far end's own tuitune, where the unit runs it, reads the tuned interface.
            link = nsenter(pid, "readlink", HOST_COMMAND).stdout.strip()
            assert link == "/opt/tuitune/bin/tuitune"
            theirs = nsenter(pid, HOST_COMMAND, "show", "--json", lab.peer_ifname, check=False)
            assert theirs.returncode == 0, theirs.stderr
            assert json.loads(theirs.stdout)["interface"]["link"]["mtu"] == 9000
            # The tuning's idempotence; the install's is test_export_ansible.py's (its copy of
            # the wheelhouse is a task per file: a second install here would double the cost).
            again = play_in(pid, play, tmp_path, *peer_vars, "-e", "tuitune_install=false")
            assert again.returncode == 0, again.stdout + again.stderr
            assert recap(again.stdout)["changed"] == 0  # idempotent
        # The near end was not touched by the play, nor this machine's /usr/local.
        assert shown(*near) == tuned
        assert _lstat(HOST_COMMAND) == ours
    finally:
        labmod.down(lab, state)
    assert not Path(f"/run/netns/{lab.peer_netns}").exists()


def _lstat(path: str) -> tuple[int, int, float] | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mode, st.st_mtime


FAR_PROFILE = """
[interface]
mtu = 4000
txqueuelen = 3000
"""


def test_one_playbook_for_both_ends_gives_the_far_end_its_own_state(tmp_path: Path) -> None:
    """`export --ansible --peer-netns`: each end's role comes from its own journal, the play
    for the far end runs on the `tuitune_peer` group. The far end is tuned, exported, put
    back by `tuitune restore`, then the playbook's far-end play tunes it again, exactly."""
    state = tmp_path / "state"
    lab = lab_or_skip(state)
    try:
        journal = tune_both_ends(tmp_path, lab, FAR_PROFILE)
        far_tuned = shown(lab.peer_netns, lab.peer_ifname)
        assert (far_tuned["mtu"], far_tuned["txqlen"]) == (4000, 3000)

        play = tmp_path / "play"
        res = tuitune(
            "export", lab.ifname, "--netns", lab.netns, "--journal-dir", journal,
            "--ansible", "--match", "name", "--out", play,
            "--peer-netns", lab.peer_netns, "--peer-iface", lab.peer_ifname,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        book = (play / "playbook.yml").read_text()
        assert 'roles:\n    - "tuitune_nic"' in book or "- tuitune_nic\n" in book
        assert "tuitune_nic_peer" in book and "tuitune_peer" in book
        inventory = (play / "inventory.example.yml").read_text()
        assert "tuitune_fleet:" in inventory and "tuitune_peer:" in inventory
        far_rules = play / "roles/tuitune_nic_peer/templates/etc/udev/rules.d"
        [rules] = list(far_rules.iterdir())
        assert "ATTR{{ '{' }}mtu}=\"4000\"" in rules.read_text()
        assert "somaxconn" not in "".join(
            p.read_text() for p in (play / "roles/tuitune_nic_peer").rglob("*") if p.is_file()
        )

        res = tuitune("restore", "--netns", lab.peer_netns, "--journal-dir", journal)
        assert res.returncode == 0, res.stderr
        assert shown(lab.peer_netns, lab.peer_ifname)["mtu"] == 1500

        inv = tmp_path / "inventory.yml"
        inv.write_text("tuitune_peer:\n  hosts:\n    localhost:\n")
        with peer_udevd(lab.peer_netns, tmp_path / "etc-upper") as pid:
            peer_vars = ("-e", f"tuitune_iface={lab.peer_ifname}", "-e", "tuitune_netns=")
            done = play_in(pid, play, tmp_path, *peer_vars, inventory=str(inv))
            assert done.returncode == 0, done.stdout + done.stderr
            assert shown(lab.peer_netns, lab.peer_ifname) == far_tuned
        # This end kept its own state: the far end's play never ran here.
        near = shown(lab.netns, lab.ifname)
        assert (near["mtu"], near["txqlen"]) == (9000, 5000)
    finally:
        labmod.down(lab, state)
