from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Real captures vendored from the team's shared fixtures (see tests/fixtures/captures/SOURCES.md),
# so a plain clone runs the suite with nothing beside it.
SHARED_FIXTURES = REPO / "tests" / "fixtures" / "captures"


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not SHARED_FIXTURES.is_dir():
        pytest.fail(f"vendored captures not found at {SHARED_FIXTURES}")
    return SHARED_FIXTURES


def in_vm_guest() -> bool:
    """True only inside the guest scripts/vm boots: its kernel command line carries
    `tuitune_vm=1`, which no process on a host can fake, and its boot script sets TUITUNE_VM."""
    if os.environ.get("TUITUNE_VM") != "1":
        return False
    try:
        return "tuitune_vm=1" in Path("/proc/cmdline").read_text().split()
    except OSError:
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Tests marked `vm` move IRQs and change global sysctls: never on a host.
    if in_vm_guest():
        return
    skip = pytest.mark.skip(reason="runs only inside the VM bench's guest (scripts/vm run)")
    for item in items:
        if item.get_closest_marker("vm") is not None:
            item.add_marker(skip)
