"""A capture of the bench's guest, read back (issue 34): `show --json --root CAPTURE` says what
`show --json` says live on the e1000e and the virtio-net, every state field (rates, counters
and the live-only reads aside: tests/support/fidelity.py), and its one second of recording
gives `show --root` rates. One capture per NIC (~1 s here, about ten under TCG)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.fidelity import comparable

from .conftest import Nics, tuitune, wait_carrier

pytestmark = pytest.mark.vm


def _show(*args: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(tuitune("show", "--json", "--interval", "0.2", *args).stdout)
    return doc


@pytest.mark.parametrize("which", ["e1000e", "virtio"])
def test_capture_of_the_guest_reads_back_as_live(nics: Nics, which: str, tmp_path: Path) -> None:
    ifname = getattr(nics, which)
    wait_carrier(ifname)  # a link still negotiating changes between the two reads
    cap = tmp_path / f"{which}.tar.gz"
    tuitune("capture", ifname, "-o", str(cap), "--seconds", "1", "--keep-identity")
    assert cap.stat().st_mode & 0o777 == 0o600
    live = _show(ifname)
    captured = _show("--root", str(cap), ifname)
    rates = captured["rates"]  # from the capture's recording
    assert rates is not None and rates["interval"] > 0 and rates["cpus"], rates
    assert captured["interface"]["driver"]["driver"] == live["interface"]["driver"]["driver"]
    want, got = comparable(live), comparable(captured)
    assert got == want, _differences(want, got)


def _differences(want: Any, got: Any, where: str = "") -> list[str]:
    """The paths where two documents differ, each with both values (pytest's diff of two
    large dicts is truncated to nothing useful in the guest's console)."""
    if isinstance(want, dict) and isinstance(got, dict):
        out: list[str] = []
        for k in sorted(set(want) | set(got), key=str):
            out += _differences(want.get(k), got.get(k), f"{where}.{k}")
        return out
    return [] if want == got else [f"{where}: live {want!r:.200} / capture {got!r:.200}"]
