"""The license pyproject declares is the one the repository carries (issue 31 item 21)."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_declared_mit_license_is_in_the_repository() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the tuitune authors" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text
