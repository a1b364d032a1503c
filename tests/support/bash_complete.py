"""Drives a generated bash completion script as bash itself would on Tab: `complete -p` names
the function registered for `tuitune`, COMP_WORDS/COMP_CWORD hold the line, COMPREPLY is what
bash would offer."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

DRIVER = r"""
source "$1"; shift
spec=$(complete -p tuitune) || exit 3
fn=${spec##* -F }; fn=${fn%% *}
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
"$fn" tuitune "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"""


def complete(script: Path, words: Sequence[str], prefix: Sequence[str] = ()) -> list[str]:
    """What Tab offers after `words` (the last one is the word being completed, maybe "");
    `prefix` runs bash through another command (`ip netns exec NS`)."""
    bash = shutil.which("bash")
    assert bash is not None
    out = subprocess.run(
        [*prefix, bash, "--norc", "--noprofile", "-c", DRIVER, "bash", str(script), *words],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    return [line for line in out.splitlines() if line]
