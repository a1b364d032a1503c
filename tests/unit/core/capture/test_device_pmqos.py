"""A capture keeps the PM QoS request it read (/dev/cpu_dma_latency is not in a tree), so
that `show --json --root CAPTURE` says what live `show --json` said
(tests/kernel/test_capture_fidelity.py caught the difference); an older capture says what a
tree says, and a value that is not a latency is a state, never a number shown."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.core.capture.test_device_conns import _device, _load
from tuitune.core.capture.device import DIR, CapturedDevice, captured_request, request_text
from tuitune.core.host.pmqos import LatencyRequest
from tuitune.core.values import Unavailable

TREE = Unavailable("missing", "not recorded in a host tree")


@pytest.mark.parametrize("req", [37, None, 0, Unavailable("permission", "root reads it")])
def test_the_request_reads_back_equal(tmp_path: Path, req: LatencyRequest) -> None:
    got = _load(tmp_path, replace(_device(None), pm_qos_request=request_text(req)))
    assert isinstance(got, CapturedDevice)
    assert captured_request(tmp_path, "eth0", TREE) == req


def test_an_older_capture_says_what_a_tree_says(tmp_path: Path) -> None:
    _load(tmp_path, _device(None))
    assert captured_request(tmp_path, "eth0", TREE) == TREE
    assert captured_request(tmp_path, "eth9", TREE) == TREE  # no device file at all


@pytest.mark.parametrize("bad", ["-1", "37 us", "1e9", "99999999999"])
def test_a_value_that_is_not_a_latency_is_a_state(tmp_path: Path, bad: str) -> None:
    _load(tmp_path, _device(None))
    path = tmp_path / DIR / "eth0.json"
    doc = json.loads(path.read_text())
    doc["pm_qos_request"] = bad
    path.write_text(json.dumps(doc))
    got = captured_request(tmp_path, "eth0", TREE)
    assert isinstance(got, Unavailable) and "pm_qos_request: not a latency" in got.reason
