"""`tuitune export IFACE --ansible --peer-json FILE`: the far end's role from the other host's
`tuitune show --json` file. A recorded host tree is tuned through the journal (this end) and
its `show --json` document, edited as another host's would differ, is the far end."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.command import tuitune
from tests.support.session_fakes import build_host
from tests.unit.core.export.test_export_ansible import ansible_env, ansible_playbook
from tests.unit.core.export.test_export_verify import DEV, PROFILE

FAR = "roles/tuitune_nic_peer"


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """(tree, journal, the tuned tree's show --json document)."""
    tmp = tmp_path_factory.mktemp("peer-json")
    tree = build_host(tmp / "host")
    profile = tmp / "tuned.toml"
    profile.write_text(PROFILE)
    journal = tmp / "journal"
    assert tuitune("apply", profile, DEV, "--root", tree, "--journal-dir", journal).returncode == 0
    res = tuitune("show", "--json", "--root", tree, DEV)
    assert res.returncode == 0, res.stderr
    return tree, journal, json.loads(res.stdout)


def export_pair(
    tuned: tuple[Path, Path, dict[str, Any]], tmp: Path, doc: object, *extra: str
) -> tuple[int, str, str, Path]:
    tree, journal, _ = tuned
    peer = tmp / "peer.json"
    peer.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    out = tmp / "play"
    res = tuitune(
        "export", DEV, "--root", tree, "--journal-dir", journal, "--ansible", "--match", "name",
        "--out", out, "--peer-json", peer, *extra,
    )  # fmt: skip
    return res.returncode, res.stdout, res.stderr, out


def far_text(out: Path) -> str:
    return "".join(p.read_text() for p in sorted((out / FAR).rglob("*")) if p.is_file())


def the_far_host(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as the far host's would differ: its own name, MTU and a sysctl value."""
    far = json.loads(json.dumps(doc))
    far["host"]["hostname"] = "far-01.example.org"
    far["interface"]["link"]["mtu"] = 4000
    for s in far["sysctls"]:
        if s["key"] == "net.core.somaxconn":
            s["value"] = "2048"
    return far


def test_far_role_carries_this_ends_settings_with_the_files_values(
    tuned: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    code, stdout, stderr, out = export_pair(tuned, tmp_path, the_far_host(tuned[2]))
    assert code == 0, stderr
    assert f"the far end: {DEV} on far-01.example.org" in stdout
    text = far_text(out)
    # The far end's values, not this end's...
    assert "ATTR{{ '{' }}mtu}=\"4000\"" in text and "net.core.somaxconn = 2048" in text
    assert "net.core.somaxconn = 8192" not in text
    # ...of the settings this end's export names, and no other (the file shows dozens).
    assert 'tx_queue_len}="5000"' in text and "netdev_max_backlog = 5000" in text
    assert "rmem_max" not in text and "tcp_rmem" not in text
    assert "as the far end's show --json file shows it" in text  # no invented "was" value
    # Where the two ends differ is said, one line each.
    assert "somaxconn: 8192 here, 2048 at the far end" in stderr
    inventory = (out / "inventory.yml").read_text()
    assert 'tuitune_peer:\n  hosts:\n    "far-01.example.org":' in inventory
    # The far host's files go to its /etc, whatever --root this end was read from.
    assert str(tuned[0]) not in text


def test_peer_host_names_the_far_end_and_a_setting_the_file_lacks_is_left_out(
    tuned: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    far = the_far_host(tuned[2])
    far["sysctls"] = [s for s in far["sysctls"] if s["key"] != "net.core.netdev_max_backlog"]
    code, stdout, stderr, out = export_pair(tuned, tmp_path, far, "--peer-host", "dtn-b")
    assert code == 0, stderr
    assert "the far end: eno49 on dtn-b" in stdout
    lines = [ln for ln in stderr.splitlines() if "netdev_max_backlog" in ln]
    assert lines == [
        "tuitune: left out at the far end: net.core.netdev_max_backlog: not in the far "
        "end's file, left out there"
    ]
    assert "netdev_max_backlog" not in far_text(out)
    assert '"dtn-b":' in (out / "inventory.yml").read_text()


def test_one_host_name_for_both_ends_writes_no_inventory_yml(
    tuned: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    """The same host in both groups would have one tuitune_iface for both plays."""
    code, _, stderr, out = export_pair(tuned, tmp_path, tuned[2])  # the same hostname
    assert code == 0, stderr
    assert "inventory.yml not written" in stderr
    assert not (out / "inventory.yml").exists() and (out / "inventory.example.yml").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--peer-host", "far"), "--peer-host names the host of --peer-json FILE"),
        (("--peer-json", "x.json", "--peer-netns", "ns", "--peer-iface", "veth"), "give one"),
        (("--peer-json", "x.json"), "--peer-json writes one playbook for both ends"),
    ],
)
def test_options_that_do_not_fit_together_are_a_usage_error(
    tuned: tuple[Path, Path, dict[str, Any]], args: tuple[str, ...], said: str
) -> None:
    tree, journal, _ = tuned
    res = tuitune("export", DEV, "--root", tree, "--journal-dir", journal, *args)
    assert res.returncode == 2 and said in res.stderr


def test_ansible_reads_the_inventory_of_both_ends_and_the_playbook(
    tuned: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    """inventory.yml as Ansible itself reads it: a group per end, each host its interface."""
    code, _, stderr, out = export_pair(tuned, tmp_path, the_far_host(tuned[2]))
    assert code == 0, stderr
    env = ansible_env(tmp_path)
    inventory = str(out / "inventory.yml")
    tool = Path(ansible_playbook()).with_name("ansible-inventory")
    res = subprocess.run(
        [str(tool), "-i", inventory, "--list"], capture_output=True, text=True, env=env
    )
    assert res.returncode == 0, res.stderr
    seen = json.loads(res.stdout)
    assert seen["tuitune_peer"]["hosts"] == ["far-01.example.org"]
    assert seen["tuitune_fleet"]["hosts"] == [tuned[2]["host"]["hostname"]]
    assert seen["_meta"]["hostvars"]["far-01.example.org"]["tuitune_iface"] == DEV
    res = subprocess.run(
        [ansible_playbook(), "-i", inventory, "--syntax-check", str(out / "playbook.yml")],
        capture_output=True,
        text=True,
        env=env,
        cwd=out,
    )
    assert res.returncode == 0, res.stdout + res.stderr
