"""The host's side of the VM bench: boots the guest once (scripts/vm run) and reports each test
that ran inside it, so a failure in the guest reads like any other test failure here.

In CI (CI=true) a bench that cannot run fails with the reason; on a developer's machine
without root it is skipped, and `-m "not vmbench"` leaves it out (it takes minutes).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import REPO, in_vm_guest

pytestmark = pytest.mark.vmbench


def _junit_failures(path: Path) -> tuple[int, list[str]]:
    root = ET.parse(path).getroot()
    ran, failed = 0, []
    for case in root.iter("testcase"):
        ran += 1
        for bad in ("failure", "error"):
            node = case.find(bad)
            if node is not None:
                name = f"{case.get('classname')}::{case.get('name')}"
                failed.append(f"{name}: {bad}: {(node.get('message') or '')[:300]}")
    return ran, failed


def test_the_vm_suite_passes_in_the_guest() -> None:
    if in_vm_guest():
        pytest.skip("already in the guest")
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("the VM bench needs root in CI")
        pytest.skip("the VM bench needs root (scripts/vm run)")
    run = subprocess.run(
        [str(REPO / "scripts" / "vm"), "run"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=2700,
    )
    sys.stdout.write(run.stdout[-20000:])
    sys.stderr.write(run.stderr[-5000:])
    m = re.search(r"results in (\S+)", run.stderr)
    assert m, f"scripts/vm run exited {run.returncode} before booting:\n{run.stderr[-3000:]}"
    junit = Path(m.group(1)) / "junit.xml"
    assert junit.is_file(), (
        f"the guest produced no test results (exit {run.returncode}):\n{run.stderr[-3000:]}"
        f"\n--- console tail ---\n{run.stdout[-3000:]}"
    )
    ran, failed = _junit_failures(junit)
    assert not failed, "failed in the guest:\n" + "\n".join(failed)
    assert ran > 0, "the guest ran no test"
    assert run.returncode == 0, f"scripts/vm run exited {run.returncode}:\n{run.stderr[-3000:]}"
