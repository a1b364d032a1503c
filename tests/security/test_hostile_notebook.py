"""A runs file another user wrote (issue 30, 3): `tuitune runs` printed a run's peer with raw
OSC/CSI sequences (plain and --markdown), and a run with wrong types or a 10^400 integer ended
it in a TypeError or OverflowError traceback. The file is `nobody`'s, in `nobody`'s directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.security.hostile_text import ALL, raw_in
from tests.support.command import ran
from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Run
from tuitune.core.bench.notebook import run_to_json

NOBODY = 65534


def _run(ident: str, peer: str) -> dict[str, object]:
    return run_to_json(
        Run(
            id=ident,
            group=ident,
            ifname="eth0",
            started="2026-12-01T10:00:00+00:00",
            spec=BenchSpec(peer=peer),
            result=BenchResult(9.4e8, 9.3e8, 12, 20.0, 30.0, error="iperf3: " + ALL),
            load=CpuLoad({0: 50.0}, {1: 20.0}, {0: 0}, 10),
            settings={"tso": "on" + ALL},
        )
    )


@pytest.fixture
def notebook(tmp_path: Path) -> Path:
    d = tmp_path / "home"
    d.mkdir()
    good = _run("r1", "10.0.0.2")
    evil = _run("r2", "peer" + ALL)
    typed = _run("r3", "10.0.0.3")
    typed["spec"] = {"peer": 5, "port": "abc"}  # wrong types
    big = json.dumps(_run("r4", "10.0.0.4")).replace('"samples": 10', '"samples": 1' + "0" * 400)
    huge_float = _run("r5", "10.0.0.5")
    huge_float["result"] = {"sent_bps": "x" * 10, "received_bps": [1]}
    lines = [json.dumps(good), json.dumps(evil), json.dumps(typed), big, json.dumps(huge_float)]
    lines += [
        '{"type": "run", "id": {"a": 1}}',
        "[1, 2",
        "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
    ]
    f = d / "runs.jsonl"
    f.write_text("\n".join(lines) + "\n")
    if os.geteuid() == 0:
        os.chown(f, NOBODY, NOBODY)
        os.chown(d, NOBODY, NOBODY)
    return f


@pytest.mark.parametrize("form", [(), ("--markdown",), ("--csv",), ("--compare", "r1", "r2")])
def test_runs_prints_no_raw_escape_and_no_traceback(notebook: Path, form: tuple[str, ...]) -> None:
    code, out, err = ran("runs", "--notebook", str(notebook), *form)
    assert code == 0, err
    assert "Traceback" not in err and raw_in(out) == [] and raw_in(err) == []
    assert "r1" in out and "r2" in out  # the readable runs are all there, escaped
    if "--compare" not in form:
        assert "6 unreadable line(s)" in err and len(err.strip().splitlines()) == 1
