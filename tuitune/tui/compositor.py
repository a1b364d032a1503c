"""A compositor whose partial updates render only what a change touches (issue 18, goal 4).

Textual's partial update renders every visible widget whose clip overlaps the box around all
the changed regions, each over its whole height, and then sends only the lines inside the
changed regions. On the live screen the header (top) and the CPU and IRQ lists change every
tick, so that box is nearly the whole screen: the NIC and sysctl panels, the help strips, the
hint and the footer were rendered at every tick and then thrown away.

Here a widget is rendered only where its visible part overlaps a changed region, over the rows
those regions cover. The update sent is the same: `ChopsUpdate` writes only the pieces of line
that lie inside a changed region, and each of those lies in a widget that overlaps that region,
which is rendered as before (front to back, the first piece for a cut wins). A piece left
unrendered (None) is skipped by `ChopsUpdate`. A widget whose every touched part lies under
one in front of it is not rendered at all (issue 38): its pieces would all lose to the front
one's (the panels and the body behind the CPU and IRQ lists, at every tick). Only which
widgets, over which rows, is ours: the chopping into pieces and full updates (resize, a new
screen) are Textual's own. Private API: textual is pinned to the minor release this is tested
with (pyproject.toml), and tests/tui/test_compositor.py holds the screen to Textual's own
render.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip


class TouchedCompositor(Compositor):
    _changed: list[Region] | None = None  # during a partial update: the regions it covers

    def render_partial_update(self) -> ChopsUpdate | None:
        screen = self.size.region
        changed = [r.intersection(screen) for r in self._dirty_regions]
        self._dirty_regions.clear()
        changed = [r for r in changed if r]
        if not changed:
            return None
        spans = list(self._regions_to_spans(changed))
        is_rendered_line = {y for y, _, _ in spans}.__contains__
        self._changed = changed
        try:  # Textual's own chopping, over the renders _get_renders gives below
            chops = self._render_chops(Region.from_union(changed), is_rendered_line)
        finally:
            self._changed = None
        return ChopsUpdate(chops, spans, [cut_set[1:] for cut_set in self.cuts])

    def _get_renders(
        self, crop: Region | None = None
    ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if self._changed is None:  # a full update, a screenshot: Textual's own
            yield from super()._get_renders(crop)
            return
        for shown, strips in self._touched_renders(self._changed):
            # As region and clip: _render_chops places the strips from the top of the
            # intersection of the two, which is the part rendered.
            yield shown, shown, strips

    def _touched_renders(self, changed: list[Region]) -> Iterable[tuple[Region, list[Strip]]]:
        """(the part of a widget rendered, on screen; its strips), front-most widget first."""
        front: list[Region] = []  # the visible parts of the widgets rendered so far
        for widget, (region, clip) in self.visible_widgets.items():
            visible = region.intersection(clip)
            if not visible:
                continue
            hits = [h for h in (visible.intersection(r) for r in changed) if h]
            if not hits:
                continue
            if all(any(f.contains_region(h) for f in front) for h in hits):
                continue  # hidden where it was touched: each of its pieces would lose
            front.append(visible)
            top = min(h.y for h in hits)
            bottom = max(h.bottom for h in hits)
            shown = Region(visible.x, top, visible.width, bottom - top)
            crop = Region(shown.x - region.x, top - region.y, shown.width, shown.height)
            yield shown, widget.render_lines(crop)
