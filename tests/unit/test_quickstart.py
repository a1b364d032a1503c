"""The README's quick start (the developer's, after the user's Install section) is two
commands, and they really exist.

A newcomer to the code copies its first code block to get the lab and the second to run the
tests; CI must run the second word for word, or the README and CI drift apart.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _code_blocks() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    text = text[text.index("\n## Quick start") :]
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, flags=re.S)]


def test_the_quick_start_leads_with_one_command_for_the_lab_and_one_for_the_tests() -> None:
    assert _code_blocks()[:2] == ["scripts/dev lab", "scripts/dev test"]


def test_ci_runs_the_readme_test_command() -> None:
    lines = [
        ln.strip()
        for ln in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    assert any(re.fullmatch(r"(exec )?scripts/dev test( .*)?", ln) for ln in lines)


def test_the_lab_verb_sets_up_and_reaches_tuitune_lab() -> None:
    # --help stops before anything is built, so this proves the verb reaches `tuitune lab`
    # with its arguments after the setup step, without creating namespaces.
    out = subprocess.run(
        ["scripts/dev", "lab", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("usage: tuitune lab")
