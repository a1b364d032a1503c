"""`show --json --root CAPTURE` says what `show --json` said live, every state field (issue 34):
a capture of a veth in its own namespace, with its identity kept, read back through --root.

What a tree cannot say is named and left out of the comparison: rates and the counters that
move between the two reads, and the three reads show makes only of a live host (RSS, TCP
connections, per-queue rates: ioctls and inet_diag, not captured yet). The qdiscs are compared:
the capture holds netlink's."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.kernel.conftest import VethNs
from tests.support.fidelity import comparable
from tuitune.cli import main

pytestmark = pytest.mark.kernel


def _show(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["show", "--json", "--interval", "0.1", *args]) == 0
    return comparable(json.loads(capsys.readouterr().out))


def test_show_root_capture_equals_show_live(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    veth_ns.ip("addr", "add", "10.78.0.1/24", "dev", veth_ns.a)
    veth_ns.ip("link", "set", veth_ns.a, "mtu", "1400")
    out = tmp_path / "cap.tar.gz"
    argv = ["capture", "--netns", veth_ns.ns, veth_ns.a, "-o", str(out), "--seconds", "0"]
    assert main([*argv, "--keep-identity"]) == 0
    assert out.stat().st_mode & 0o777 == 0o600
    before = out.read_bytes()
    assert main(argv) == 2  # the file exists: not overwritten, one line
    assert "exists: not overwritten" in capsys.readouterr().err
    assert out.read_bytes() == before
    live = _show(capsys, "--netns", veth_ns.ns, veth_ns.a)
    captured = _show(capsys, "--root", str(out), veth_ns.a)
    assert captured["interface"]["link"]["mtu"] == 1400  # read, not defaulted
    assert captured["interface"]["driver"]["driver"] == "veth"  # the ethtool JSON
    assert captured == live
    # Anonymised (the default): the veth's MAC is not in the capture.
    anon = tmp_path / "anon.tar.gz"
    assert main([*argv[:4], "-o", str(anon), "--seconds", "0"]) == 0
    mac = live["interface"]["link"]["address"].encode()
    with tarfile.open(anon) as tar:
        held = b"".join(
            f.read() for m in tar if m.isreg() and (f := tar.extractfile(m)) is not None
        )
    assert mac not in held and b"02:00:00:00:00:01" in held
