"""What the README says about the commands is what they do (issue 31 item 11)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from tuitune.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_advise_window_is_the_commands_default() -> None:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    default = sub.choices["advise"].get_default("seconds")
    said = re.search(r"`advise` samples a window \((\d+) s by default", _flat(README))
    assert said is not None and int(said.group(1)) == default


def test_the_readme_says_the_test_command_boots_vms_as_root_and_how_to_skip_them() -> None:
    text = _flat(README)
    assert "scripts/dev test" in text
    assert "installs QEMU, downloads a Debian kernel" in text
    assert "boots two throwaway VMs" in text
    assert '`scripts/dev test -m "not vmbench"`' in text


def test_the_readme_says_headless_advise_names_the_screens_context() -> None:
    assert "context lan (chosen in the screen)" in _flat(README)
