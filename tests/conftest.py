from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
# No timing decides a test: Hypothesis' default 200 ms deadline failed property tests of the
# parsers and rates (tests/unit/core/host/test_interrupts.py, test_rates.py) at load 13 while
# they passed on the retry. A test that wants a deadline sets one itself.
settings.register_profile("tuitune", deadline=None)
settings.load_profile("tuitune")
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


def _cpu_seconds() -> float:
    """This process's CPU (every thread) and its reaped children's."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ru.ru_utime + ru.ru_stime


# Each test's CPU seconds (setup and call) beside its wall time in the junit XML: on a shared
# 2-core machine wall time mostly measures the neighbours, CPU time measures the test.
_CPU_START = pytest.StashKey[float]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    item.stash[_CPU_START] = _cpu_seconds()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield
    start = item.stash.get(_CPU_START, None)
    if start is not None:
        item.user_properties.append(("cpu", f"{_cpu_seconds() - start:.3f}"))
