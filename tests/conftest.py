from __future__ import annotations

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
