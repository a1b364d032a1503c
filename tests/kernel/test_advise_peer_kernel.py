"""`tuitune advise --peer` against the lab's far end in its namespace: the RTT measured by the
real ping feeds the bandwidth-delay product and the inferred context, and the don't-fragment
probe passes at the lab's MTU and fails once the far end's MTU is lowered below it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tuitune.cli import main
from tuitune.core import lab as labmod

pytestmark = pytest.mark.kernel


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[labmod.Lab]:
    # A context remembered for veth-lab in the user's own settings must not decide the test.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    if os.geteuid() != 0:
        pytest.skip("the lab needs root")
    for prog in ("iperf3", "ping"):
        if shutil.which(prog) is None:
            pytest.skip(f"{prog} missing (scripts/dev setup installs it)")
    state = tmp_path / "state"
    try:
        yield labmod.build(state)
    finally:
        labmod.down(None, state)


def _advise(capsys: pytest.CaptureFixture[str], lab: labmod.Lab, *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    main(["advise", lab.ifname, "--netns", lab.netns, "--seconds", "1", "--json", *extra])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_peer_rtt_feeds_the_bdp_and_the_df_probe(
    lab: labmod.Lab, capsys: pytest.CaptureFixture[str]
) -> None:
    # 10,000 Gb/s (the option's ceiling) x a veth's ~0.05 ms is some 60 MB: above any default.
    doc = _advise(capsys, lab, "--peer", lab.peer_addr, "--rate", "10000")
    peer = doc["peer"]
    assert peer["host"] == lab.peer_addr and peer["replies"] == [5, 5]
    rtt = peer["rtt_ms"]["avg"]
    assert 0 < peer["rtt_ms"]["min"] <= rtt <= peer["rtt_ms"]["max"]
    assert doc["rtt_ms"] == rtt and doc["context"] == "lan"  # under 1 ms: a LAN
    assert peer["df"] == {"mtu": 1500, "ok": True}
    found = {f["id"]: f for f in doc["findings"]}
    bdp = found["buffers-below-bdp"]
    assert bdp["evidence"][0].startswith(f"10000 Gb/s x {rtt:g} ms = ")
    assert bdp["evidence"][1].startswith(f"RTT to {lab.peer_addr}: {rtt:g} ms average")

    # The far end now takes at most 1400 bytes: a full-size packet that may not be fragmented
    # gets no reply (a veth drops what exceeds its peer's MTU).
    subprocess.run(
        ["ip", "-n", lab.peer_netns, "link", "set", lab.peer_ifname, "mtu", "1400"], check=True
    )
    doc = _advise(capsys, lab, "--peer", lab.peer_addr)
    assert doc["peer"]["df"] == {"mtu": 1500, "ok": False}
    assert doc["peer"]["replies"] == [5, 5]  # small echoes still pass

    # No route there: ping's own words, and nothing is inferred from it.
    doc = _advise(capsys, lab, "--peer", "198.19.0.1")
    assert doc["peer"]["rtt_ms"] is None and "unreachable" in doc["peer"]["problem"]
    assert doc["rtt_ms"] is None and doc["context"] == "any"
