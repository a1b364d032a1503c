"""`tuitune advise` end to end on a veth in its own namespace: a finding named from the real
kernel's state, applied as one journaled step with --apply, gone on the next run, and put back
by `tuitune restore`. Only namespace-scoped settings are changed (features, txqueuelen)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tuitune.cli import main

from .conftest import VethNs

pytestmark = pytest.mark.kernel


def _advise(
    capsys: pytest.CaptureFixture[str], ns: VethNs, *extra: str
) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    rc = main(["advise", ns.a, "--netns", ns.ns, "--json", "--seconds", "1", *extra])
    return rc, json.loads(capsys.readouterr().out)


def _tso(ns: VethNs) -> str:
    out = ns.nsexec("ethtool", "-k", ns.a)
    line = next(x for x in out.splitlines() if x.startswith("tcp-segmentation-offload:"))
    return line.split(":", 1)[1].split()[0]


def _qlen(ns: VethNs) -> str:
    return ns.nsexec("cat", f"/sys/class/net/{ns.a}/tx_queue_len").strip()


def test_advise_apply_restore(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ns = veth_ns
    ns.nsexec("ethtool", "-K", ns.a, "tso", "off")
    assert _tso(ns) == "off" and _qlen(ns) == "1000"

    rc, doc = _advise(capsys, ns, "--context", "wan")
    assert doc["schema"] == "tuitune.advise" and doc["interface"] == ns.a
    found = {f["id"]: f for f in doc["findings"]}
    assert "offload-disabled" in found and "txqueuelen-wan" in found
    changed = {c["label"]: c["value"] for c in found["offload-disabled"]["change"]}
    assert changed.get(f"{ns.a} tx-tcp-segmentation") == "on"
    assert rc == (1 if doc["bottlenecks"] else 0)

    journal = ["--journal-dir", str(tmp_path)]
    args = ["advise", ns.a, "--netns", ns.ns, "--seconds", "1", "--context", "wan", *journal]
    assert main([*args, "--apply", "offload-disabled", "txqueuelen-wan"]) == 0
    out = capsys.readouterr().out
    assert "applied offload-disabled, txqueuelen-wan as one step" in out
    assert _tso(ns) == "on" and _qlen(ns) == "10000"  # what the kernel holds

    _, doc = _advise(capsys, ns, "--context", "wan")
    assert {"offload-disabled", "txqueuelen-wan"}.isdisjoint(f["id"] for f in doc["findings"])

    assert main(["restore", "--netns", ns.ns, *journal]) == 0
    assert _tso(ns) == "off" and _qlen(ns) == "1000"


def test_apply_refusals(
    veth_ns: VethNs,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ns = veth_ns
    ns.nsexec("ethtool", "-K", ns.a, "tso", "off")
    base = ["advise", ns.a, "--netns", ns.ns, "--seconds", "1", "--journal-dir", str(tmp_path)]
    # A rule that did not fire here: nothing changes, one line says so.
    capsys.readouterr()
    assert main([*base, "--apply", "irq-remote-node"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "irq-remote-node: not found" in err
    # Not root: refused before anything is opened or written.
    monkeypatch.setattr("os.geteuid", lambda: 65534)
    assert main([*base, "--apply", "offload-disabled"]) == 1
    err = capsys.readouterr().err
    assert "not root" in err and err.count("\n") == 1
    monkeypatch.undo()
    assert _tso(ns) == "off"
    assert not list(tmp_path.iterdir())  # no journal was created
