"""A planted lab lock (issue 30, 4): /run/lock is world-writable, so a user who created
tuitune-lab.lock there before root's first `lab` since boot made every lab command refuse, and
`lab --status` / `lab --no-tui` ended in an uncaught LabError traceback. The lock now lives in
/run/tuitune (root's, 0700), and any lab error is one line."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import uuid
from pathlib import Path

import pytest

from tuitune.cli import main
from tuitune.core import lab as labmod

NOBODY = 65534

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the attack is on root's lab")


def test_nobody_cannot_plant_anything_beside_the_lab_lock() -> None:
    with labmod._locked():  # root's first lab: the directory exists from here on
        pass
    planted = labmod.LOCK_PATH.parent / f"planted-{uuid.uuid4().hex[:8]}"
    try:
        tried = subprocess.run(
            ["/usr/bin/python3", "-I", "-c", f"open({str(planted)!r}, 'x')"],
            user=NOBODY,
            group=NOBODY,
            extra_groups=[],
            cwd="/",
            capture_output=True,
            text=True,
        )
        assert tried.returncode != 0 and "PermissionError" in tried.stderr
        assert not planted.exists()
    finally:
        with contextlib.suppress(FileNotFoundError):
            planted.unlink()
    st = labmod.LOCK_PATH.parent.stat()
    assert st.st_uid == 0 and st.st_mode & 0o022 == 0
    assert not str(labmod.LOCK_PATH).startswith(("/run/lock", "/tmp", "/var/tmp"))
    with labmod._locked():  # and root's lab still takes it
        pass


@pytest.mark.parametrize("args", [("--status",), ("--down",), ("--no-tui",)])
def test_every_lab_error_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    def refused(*_: object, **__: object) -> None:
        raise labmod.LabError(f"cannot take the lab lock: {labmod.LOCK_PATH}: owned by nobody")

    monkeypatch.setattr(labmod, "_locked", refused)
    monkeypatch.setattr(labmod, "current_lab", refused)
    monkeypatch.setattr(labmod, "find_stale", refused)
    monkeypatch.setattr(labmod, "missing_tools", lambda: [])
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["lab", *args, "--state-dir", str(tmp_path)])
    assert code == 1
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and "lab lock" in lines[0] and "Traceback" not in err.getvalue()
