"""Outside strings on every output of `show` (issue 30, 2): a recorded tree another user
wrote names its host, driver and firmware with escape sequences; plain `show` prints none of
them raw, and `--json` keeps them exact (JSON escapes them itself)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.security.hostile_text import ALL, raw_in
from tests.support.command import ran
from tests.support.hosttree import build_tree, hyperv_2cpu

NOBODY = 65534


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    spec = hyperv_2cpu(
        hostname="host" + ALL,
    )
    root = build_tree(tmp_path / "tree", spec)
    if os.geteuid() == 0:  # as a local user would leave it
        for p in [root, *root.rglob("*")]:
            os.lchown(p, NOBODY, NOBODY)
    return root


def test_plain_show_prints_no_raw_control_character(tree: Path) -> None:
    code, out, err = ran("show", "--root", str(tree), "eth0")
    assert code == 0, err
    assert raw_in(out) == [] and raw_in(err) == []
    assert "\\x1b[2J" in out  # shown, as visible escapes, not dropped


def test_show_json_stays_exact(tree: Path) -> None:
    code, out, _ = ran("show", "--json", "--root", str(tree), "eth0")
    assert code == 0
    assert raw_in(out) == []  # JSON's own \u001b escapes
    assert json.loads(out)["host"]["hostname"] == "host" + ALL
