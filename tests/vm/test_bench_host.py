"""The host's side of the VM bench: boots the guest (scripts/vm run: once, and a second time
for the reboot test's second half) and reports each test that ran inside either boot, so a
failure in the guest reads like any other test failure here.

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


def _junit_failures(path: Path, boot: int) -> tuple[list[str], list[str]]:
    """(names of the tests that ran, one line per failure) of one boot's junit XML."""
    root = ET.parse(path).getroot()
    ran, failed = [], []
    for case in root.iter("testcase"):
        ran.append(str(case.get("name")))
        for bad in ("failure", "error"):
            node = case.find(bad)
            if node is not None:
                name = f"boot {boot}: {case.get('classname')}::{case.get('name')}"
                failed.append(f"{name}: {bad}: {(node.get('message') or '')[:300]}")
    return ran, failed


FIRST_HALF = "test_reboot_first_half_tune_and_install"


def _bench_outputs() -> list[tuple[int, str, str]]:
    """(exit status, stdout, stderr) of each `scripts/vm run`: read from TUITUNE_VM_OUT where
    the test command (scripts/tiers.py) already ran the bench beside the host tiers, as two
    guests side by side (OUT/vm-ansible.* and OUT/vm.*), else one run now."""
    ran = os.environ.get("TUITUNE_VM_OUT")
    if ran:
        out = Path(ran)
        rcs = sorted(out.glob("vm*.rc"))
        assert rcs, f"the test command started no VM bench in {out}"
        return [
            (
                int(rc.read_text()),
                rc.with_suffix(".stdout").read_text(errors="replace"),
                rc.with_suffix(".stderr").read_text(errors="replace"),
            )
            for rc in rcs
        ]
    run = subprocess.run(
        [str(REPO / "scripts" / "vm"), "run"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=5400,  # two boots, each stopped by scripts/vm after TUITUNE_VM_TIMEOUT
    )
    return [(run.returncode, run.stdout, run.stderr)]


def test_the_vm_suite_passes_in_the_guest() -> None:
    if in_vm_guest():
        pytest.skip("already in the guest")
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("the VM bench needs root in CI")
        pytest.skip("the VM bench needs root (scripts/vm run)")
    ran: list[str] = []
    failed: list[str] = []
    for rc, stdout, stderr in _bench_outputs():
        got, bad = _one_guest(rc, stdout, stderr)
        ran, failed = ran + got, failed + bad
    assert not failed, "failed in the guest:\n" + "\n".join(failed)
    assert ran, "the guest ran no test"
    assert "test_ansible_playbook_installs_finds_a_renamed_nic_and_verifies" in ran
    assert "test_reboot_second_half_boot_applies_the_installed_files" in ran


def _one_guest(rc: int, stdout: str, stderr: str) -> tuple[list[str], list[str]]:
    """(tests that ran, failures) of one `scripts/vm run`, both its boots; a run that did not
    end well fails here with its reason."""
    sys.stdout.write(stdout[-20000:])
    sys.stderr.write(stderr[-5000:])
    m = re.search(r"results in (\S+)", stderr)
    assert m, f"scripts/vm run exited {rc} before booting:\n{stderr[-3000:]}"
    out = Path(m.group(1))
    junit = out / "junit.xml"
    assert junit.is_file(), (
        f"the guest produced no test results (exit {rc}):\n{stderr[-3000:]}"
        f"\n--- console tail ---\n{stdout[-3000:]}"
    )
    ran, failed = _junit_failures(junit, 1)
    # The reboot test's first half passed in boot 1: its second half must have run in boot 2.
    if (out / "persist" / "reboot-first-half.json").is_file():
        junit2 = out / "junit-boot2.xml"
        assert junit2.is_file(), (
            f"the reboot test's second boot produced no results (exit {rc}):\n{stderr[-3000:]}"
        )
        ran2, failed2 = _junit_failures(junit2, 2)
        assert ran2, "the second boot ran no test"
        ran, failed = ran + ran2, failed + failed2
    elif FIRST_HALF in ran:
        failed.append(f"boot 1: {FIRST_HALF} ran but did not pass: no second boot")
    if not failed:
        assert rc == 0, f"scripts/vm run exited {rc}:\n{stderr[-3000:]}"
    return ran, failed
