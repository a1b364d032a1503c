"""Outside strings on every output of `show` (issue 30, 2): a recorded tree another user
wrote names its host, driver and firmware with escape sequences; plain `show` prints none of
them raw, and `--json` keeps them exact (JSON escapes them itself)."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest

from tests.security.hostile_text import ALL, raw_in
from tests.support.hosttree import TreeSpec, build_tree
from tuitune.cli import main

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures"
NOBODY = 65534


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    spec = TreeSpec(
        ncpus=2,
        interrupts=(CAPTURES / "interrupts/hyperv_netvsc_2cpu_no_nic_irqs.txt").read_text(),
        stat=(CAPTURES / "stat/hyperv_2cpu_rhel8-4.18.txt").read_text(),
        softirqs=(CAPTURES / "softirqs/hyperv_2cpu.txt").read_text(),
        softnet=(CAPTURES / "softnet_stat/hyperv_2cpu_11col.txt").read_text(),
        ifname="eth0",
        hostname="host" + ALL,
    )
    root = build_tree(tmp_path / "tree", spec)
    if os.geteuid() == 0:  # as a local user would leave it
        for p in [root, *root.rglob("*")]:
            os.lchown(p, NOBODY, NOBODY)
    return root


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_plain_show_prints_no_raw_control_character(tree: Path) -> None:
    code, out, err = _run("show", "--root", str(tree), "eth0")
    assert code == 0, err
    assert raw_in(out) == [] and raw_in(err) == []
    assert "\\x1b[2J" in out  # shown, as visible escapes, not dropped


def test_show_json_stays_exact(tree: Path) -> None:
    code, out, _ = _run("show", "--json", "--root", str(tree), "eth0")
    assert code == 0
    assert raw_in(out) == []  # JSON's own \u001b escapes
    assert json.loads(out)["host"]["hostname"] == "host" + ALL
