"""`tuitune lab --down --state-dir DIR` as root, with a lab.json another user wrote.

The state file names the namespaces `--down` deletes (and their journals) and the iperf3 pid it
kills. Before this, any readable lab.json was believed: a `nobody`-written one naming another
namespace made root delete it. Now the file is believed only when it is ours, in a directory
nobody else can write, and names a lab's own namespaces.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core import lab as labmod

NOBODY = 65534


@pytest.fixture
def victim_ns() -> Iterator[str]:
    """A namespace that is not a lab's: what the attacker wants root to delete."""
    if os.geteuid() != 0:
        pytest.skip("needs root (creates a network namespace)")
    name = f"tt-victim-{uuid.uuid4().hex[:6]}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)


def _ns_exists(name: str) -> bool:
    return (Path("/run/netns") / name).exists()


def _state(tag: str, netns: str, peer: str) -> dict[str, object]:
    return {
        "schema": labmod.SCHEMA,
        "version": labmod.VERSION,
        "name": tag,
        "netns": netns,
        "peer_netns": peer,
        "ifname": "veth-lab",
        "peer_ifname": "veth-peer",
        "local_addr": "198.18.0.1",
        "peer_addr": "198.18.0.2",
        "server_pid": None,
        "owner_pid": None,
        "port": 5201,
    }


def test_a_state_file_in_another_users_directory_is_not_believed(
    tmp_path: Path, victim_ns: str
) -> None:
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    (hostile / "lab.json").write_text(json.dumps(_state("abcdef", victim_ns, victim_ns)))
    os.chown(hostile, NOBODY, NOBODY)
    os.chown(hostile / "lab.json", NOBODY, NOBODY)

    found = labmod.read_state(hostile)
    assert isinstance(found, labmod.Unreadable), found
    assert "others can write" in found.reason or "uid" in found.reason or "chown" in found.reason
    with pytest.raises(OSError):  # nothing of the user's directory is deleted either
        labmod.down(None, hostile)
    assert _ns_exists(victim_ns)
    assert (hostile / "lab.json").exists()

    # The command says why in one line and exits non-zero.
    done = subprocess.run(
        [sys.executable, "-m", "tuitune", "lab", "--down", "--state-dir", str(hostile)],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert done.returncode == 1, done
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "owned by nobody" in done.stderr, done.stderr
    assert _ns_exists(victim_ns)
    assert (hostile / "lab.json").exists()


def test_a_state_file_naming_other_namespaces_is_not_believed(
    tmp_path: Path, victim_ns: str
) -> None:
    # Even root's own file (say, copied from elsewhere) names only a lab's namespaces.
    own = tmp_path / "own"
    own.mkdir(mode=0o700)
    (own / "lab.json").write_text(json.dumps(_state("abcdef", victim_ns, victim_ns)))

    found = labmod.read_state(own)
    assert isinstance(found, labmod.Unreadable)
    assert "not a tuitune lab's" in found.reason
    labmod.down(None, own)
    assert _ns_exists(victim_ns)
