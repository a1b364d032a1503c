"""The headless core must import without the UI stack, so `show --json`, `apply` and `restore`
work on a box without a terminal and start fast."""

from __future__ import annotations

import subprocess
import sys

UI_MODULES = ("textual", "rich")


def test_core_imports_without_textual_or_rich() -> None:
    code = (
        "import sys, pkgutil, importlib, tuitune.core\n"
        "for m in pkgutil.walk_packages(tuitune.core.__path__, 'tuitune.core.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {UI_MODULES!r}]\n"
        "print(','.join(sorted(bad)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert out == "", f"tuitune.core pulled in UI modules: {out}"


def test_show_json_path_stays_headless() -> None:
    """`tuitune show --json` must not pay for Rich either."""
    code = (
        "import sys, tuitune.cli, tuitune.core.jsondoc\n"
        f"print(','.join(m for m in sys.modules if m.split('.')[0] in {UI_MODULES!r}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert out == ""
