"""`export --ansible --peer-json FILE` reads a file another user may have written or
swapped: whatever it is or holds, the export stops with one line naming the file and why,
and nothing is written (the output directory is not even made)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.command import tuitune
from tests.unit.core.export.test_export_peer_json import export_pair, the_far_host, tuned
from tests.unit.core.export.test_export_verify import DEV
from tuitune.core.export.context import ExportContext
from tuitune.core.export.device import DeviceMatch, MatchKind
from tuitune.core.export.peer_json import PeerFileError, far_end

__all__ = ["tuned"]  # the fixture, shared with the unit tests

Tuned = tuple[Path, Path, dict[str, Any]]


def refused(code: int, stdout: str, stderr: str, out: Path, said: str) -> None:
    lines = [ln for ln in stderr.splitlines() if "--peer-json" in ln]
    assert code == 1, stderr
    assert len(lines) == 1 and said in lines[0] and "nothing was written" in lines[0], stderr
    assert not out.exists() and "wrote" not in stdout


def edit(doc: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    far = the_far_host(doc)
    change(far)
    return far


def _sysctl(doc: dict[str, Any], key: str, value: object) -> None:
    for s in doc["sysctls"]:
        if s["key"] == key:
            s["value"] = value


def _queue(doc: dict[str, Any], name: str, cpus: object) -> None:
    for q in doc["interface"]["queues"]:
        if q["name"] == name:
            q["cpus"] = cpus


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = doc
        for p in parents:
            node = node[p]
        node[last] = value

    return change


HOSTILE: list[tuple[str, Callable[[dict[str, Any]], None], tuple[str, ...], str]] = [
    ("schema", _set("schema", "tuitune.sweep"), (), "no schema tuitune.report.show"),
    ("version", _set("version", 2), (), "version 2"),
    ("hostname", _set("host.hostname", "x\n- hosts: all"), (), "host.hostname"),
    ("hostname-space", _set("host.hostname", "a b"), (), "is not a host name"),
    ("ifname", _set("interface.link.ifname", "eth0;reboot"), (), "interface name"),
    ("mtu-text", _set("interface.link.mtu", "9000\n"), (), "is not a whole number"),
    ("netns", _set("host.netns", "../../etc"), (), "network namespace"),
    ("cpus", _set("host.cpus", [{"cpu": 10**9}]), (), "host.cpus"),
    ("sysctl", lambda d: _sysctl(d, "net.core.somaxconn", "1 $(reboot)"), (), "somaxconn"),
    ("rps", lambda d: _queue(d, "rx-0", [9000]), (), "is beyond any host"),
    ("no-interface", _set("interface", None), (), "shows no interface"),
    (
        "mac",
        lambda d: d["interface"]["link"].update(
            perm_address='00:1b:21:0a:0b:0c" RUN+="/bin/sh"', addr_assign_type=0
        ),
        ("--match", "mac"),
        "MAC address",
    ),
]


@pytest.mark.parametrize(
    ("change", "extra", "said"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE]
)
def test_a_hostile_value_refuses_the_whole_export(
    tuned: Tuned,
    tmp_path: Path,
    change: Callable[[dict[str, Any]], None],
    extra: tuple[str, ...],
    said: str,
) -> None:
    refused(*export_pair(tuned, tmp_path, edit(tuned[2], change), *extra), said)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"schema": "tuitune.report.show", "schema": "tuitune.report.show"}', "appears twice"),
        ('{"schema": "tuitune.report.show", "version": NaN}', "NaN is not a number"),
        ("[" * 100000 + "]" * 100000, "not valid JSON"),
        ("[interface]\nmtu = 9000\n", "not valid JSON"),  # a TOML profile is not a show file
        ("[]", "not a `tuitune show --json` document"),
    ],
    ids=["duplicate-key", "nan", "nested", "toml", "array"],
)
def test_a_file_that_is_not_a_show_document_is_refused(
    tuned: Tuned, tmp_path: Path, text: str, said: str
) -> None:
    refused(*export_pair(tuned, tmp_path, text), said)


def test_a_file_over_the_size_limit_is_refused_unread(tuned: Tuned, tmp_path: Path) -> None:
    text = json.dumps(the_far_host(tuned[2])) + " " * (4 * 1024 * 1024)
    refused(*export_pair(tuned, tmp_path, text), "larger than 4 MiB")


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_anything_but_a_regular_file_is_refused_and_a_link_not_followed(
    tuned: Tuned, tmp_path: Path, kind: str
) -> None:
    """A link to a valid show document is refused all the same: another user's link could
    point at a file only root may read, or be swapped between the check and the read."""
    tree, journal, doc = tuned
    real = tmp_path / "real.json"
    real.write_text(json.dumps(the_far_host(doc)))
    peer = tmp_path / "peer.json"
    if kind == "symlink":
        peer.symlink_to(real)
    elif kind == "fifo":
        os.mkfifo(peer)
    else:
        peer.mkdir()
    out = tmp_path / "play"
    res = tuitune(
        "export", DEV, "--root", tree, "--journal-dir", journal, "--ansible", "--match", "name",
        "--out", out, "--peer-json", peer,
    )  # fmt: skip
    said = {"symlink": "a symbolic link", "fifo": "a FIFO", "directory": "a directory"}[kind]
    refused(res.returncode, res.stdout, res.stderr, out, said)


def test_a_hostile_peer_host_is_a_usage_error(tuned: Tuned, tmp_path: Path) -> None:
    code, _, stderr, out = export_pair(
        tuned, tmp_path, the_far_host(tuned[2]), "--peer-host", "a b"
    )
    assert code == 2 and "is not a host name" in stderr and not out.exists()


@pytest.mark.parametrize(
    ("kind", "iface", "said"),
    [
        ("driver", {"driver": {"driver": 'e1000e", RUN+="x'}}, "driver"),
        ("driver", {"driver": {"unavailable": "error", "reason": ""}}, "names no driver"),
        ("path", {"placement": {"bus": '0000:3b:00.0" RUN+="x'}}, "no PCI position"),
        ("path", {"placement": {"bus": None}}, "no PCI position"),
    ],
)
def test_the_far_nics_match_comes_only_from_checked_values(
    tuned: Tuned, tmp_path: Path, kind: MatchKind, iface: dict[str, Any], said: str
) -> None:
    """The far end is matched as this end is (--match); the recorded tree has no driver or
    bus to match this end by, so the far end's reader is asked directly."""
    doc = the_far_host(tuned[2])
    doc["interface"].update(iface)
    path = tmp_path / "peer.json"
    path.write_text(json.dumps(doc))
    near = ExportContext(ifname=DEV, match=DeviceMatch("name", DEV))
    with pytest.raises(PeerFileError) as exc:
        far_end(path, [], near, kind)
    assert said in str(exc.value) and "\n" not in str(exc.value)
