"""tuitune(1): scripts/manpage.py writes it from the parsers and the README's key table, and
man renders it as a reader sees it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tuitune.cli import SUBCOMMANDS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("man") / "tuitune.1"
    subprocess.run(
        [sys.executable, str(REPO / "scripts" / "manpage.py"), str(out)],
        check=True,
        timeout=60,
        env={**os.environ, "SOURCE_DATE_EPOCH": "1700000000"},
    )
    return out


def _rendered(page: Path) -> str:
    man = shutil.which("man")
    if man is None:
        pytest.skip("man is not installed (apt-get install man-db)")
    return subprocess.run(
        [man, "-l", str(page)],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"},
    ).stdout


def test_man_renders_every_command_and_the_keys(page: Path) -> None:
    text = _rendered(page)
    assert text.startswith("TUITUNE(1)")
    for section in ("NAME", "SYNOPSIS", "OPTIONS", "COMMANDS", "KEYS", "FILES", "SEE ALSO"):
        assert f"\n{section}\n" in text
    commands = text[text.index("\nCOMMANDS\n") : text.index("\nKEYS\n")]
    for name in SUBCOMMANDS:
        assert f"\n   {name}\n" in commands
    # An option with its metavar, from argparse.
    assert "--peer-json FILE" in " ".join(commands.split())
    # man fills and justifies lines: compare words, not spacing.
    keys = " ".join(text[text.index("\nKEYS\n") : text.index("\nFILES\n")].split())
    assert "every key, by panel" in keys and "SETTING = V1 | V2" in keys
    assert "2023-11-14" in text  # SOURCE_DATE_EPOCH, for a reproducible page


def test_groff_finds_nothing_to_warn_about(page: Path) -> None:
    groff = shutil.which("groff")
    if groff is None:
        pytest.skip("groff is not installed")
    out = subprocess.run(
        [groff, "-man", "-Tutf8", "-ww", "-z", str(page)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (out.returncode, out.stderr) == (0, "")


def test_a_line_starting_with_a_dot_stays_text() -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import manpage
    finally:
        sys.path.remove(str(REPO / "scripts"))
    assert manpage.roff(".SH x\n'y \\z") == "\\&.SH x\n\\&'y \\ez"
