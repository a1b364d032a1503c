"""The NIC panel holds still while you read it (issue 31 items 15 and 19).

- The offloads at a glance keep their columns: a feature asked one way and kept the other by
  the kernel is a mark in its column (explained in the heading), not extra text that pushed a
  3-column line past the panel's edge; and the grid is packed for the width beside a scrollbar
  whether one shows or not, so it does not reflow between 3 and 2 columns.
- The glance lines never take the cursor, with or without a filter: they change nothing.
- `g` on a fixed offload row says it is fixed, not where `g` works.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.edit_host import editing
from tests.tui.conftest import Launch, Tui
from tests.tui.test_edit_refusals import FIXED
from tuitune.core.host.ethtool_types import Feature
from tuitune.tui.look.palette import DEFAULT_PALETTE
from tuitune.tui.panels.nicsummary import offload_summary
from tuitune.tui.panels.rowview import plain_text

SIZES = [(80, 24), (200, 60)]


def _features(n: int) -> tuple[Feature, ...]:
    names = [f"tx-feature-number-{i:02d}" for i in range(n)]
    return tuple(Feature(name, i, True, True, True, False) for i, name in enumerate(names))


def _glance_lines(features: tuple[Feature, ...], width: int) -> list[str]:
    from types import SimpleNamespace

    nic = SimpleNamespace(features=features)
    rows = offload_summary(nic, width, DEFAULT_PALETTE)  # type: ignore[arg-type]
    return ["".join(plain_text(c) for c in r.cells) for r in rows if not r.section]


@pytest.mark.parametrize("width", [76, 96])
def test_a_feature_the_kernel_kept_does_not_change_the_columns(width: int) -> None:
    plain = _features(9)
    kept = tuple(replace(f, active=False) if i == 1 else f for i, f in enumerate(plain))
    a, b = _glance_lines(plain, width), _glance_lines(kept, width)
    assert len(a) == len(b)  # the same lines, the same columns
    assert all(len(ln.rstrip()) <= width for ln in a + b), b  # nothing past the edge
    assert "tx-feature-number-01 off*" in " ".join(b)  # asked on, kept off: marked


def _glance(tui: Tui) -> list[str]:
    return [ln for ln in tui.rows_seen("nic") if " on " in ln or " off " in ln]


@pytest.mark.parametrize("size", SIZES)
async def test_glance_rows_never_take_the_cursor_and_fit(
    launch: Launch, size: tuple[int, int]
) -> None:
    async with launch(size=size, limit=None, interval=0.2) as tui:
        await tui.press("3")
        view = tui.view("nic")
        keys = [r.key for r in view.shown]
        assert any(k.startswith("offsum:") for k in keys)
        for _ in range(min(len(keys), 40)):
            assert not (view.cursor_key or "").startswith("offsum"), view.cursor_key
            await tui.press("down")
        # Lines of the glance fit the panel as drawn, scrollbar and all.
        width = view.scrollable_content_region.width
        for row in view.shown:
            if row.key.startswith("offsum:") and not row.section:
                text = "".join(plain_text(c) for c in row.cells).rstrip()
                assert len(text) <= width, (text, width)
        # A filter that matches the glance lines: the cursor still lands on a feature row.
        await tui.press("slash", *"gro", "enter")
        await tui.wait(lambda: view.filter == "gro", "the filter")
        await tui.press("home")
        assert (view.cursor_key or "").startswith("feature:"), view.cursor_key
        for _ in range(4):
            await tui.press("down")
            assert not (view.cursor_key or "").startswith("offsum"), view.cursor_key


@pytest.mark.parametrize("size", SIZES)
async def test_g_on_a_fixed_row_says_it_is_fixed(tmp_path: Path, size: tuple[int, int]) -> None:
    async with editing(tmp_path, size=size) as h:
        await h.tui.press("3")
        assert h.app.panels["nic"].view.move_cursor_to(f"feature:{FIXED}")
        await h.tui.press("g")
        await h.wait(lambda: "is fixed by the driver" in h.tui.header())
        said = " ".join(h.tui.header().split())
        assert (
            f"g: {FIXED} is fixed by the driver ([fixed] in ethtool -k): it cannot change" in said
        )
        assert "on an offload row with a short name" not in said
        assert h.nothing_written()
