"""What every benchmark report starts with: the machine and the code it ran on."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Processor", "cpu model")):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return "unknown"


def machine_lines() -> list[str]:
    commit = _git("rev-parse", "--short", "HEAD")
    if commit and _git("status", "--porcelain", "--untracked-files=no", "--", "tuitune"):
        commit += " (tuitune/ has uncommitted changes)"
    return [
        f"- CPUs: {os.cpu_count()} ({cpu_model()})",
        f"- kernel (uname -r): {platform.release()}",
        f"- python: {platform.python_version()}, textual {metadata.version('textual')}",
        f"- tuitune commit: {commit or 'unknown'}",
    ]


def emit_json(doc: object, out: Path | None) -> None:
    """A benchmark's JSON result: to `out` when given (benchmarks/run.py reads it), else stdout."""
    text = json.dumps(doc, indent=1)
    if out:
        out.write_text(text + "\n")
    else:
        print(text)
