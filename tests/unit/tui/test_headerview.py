"""The header at a tick that changes only its rates line: no new Content for the whole text,
a repaint from that row down, and what Textual still asks of the Static (its visual, for a
text selection and `height: auto`) is the text shown (issue 18, goal 4)."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.content import Content
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widgets import Static

from tests.support.recording import recorded
from tuitune.tui.panels.headerview import HeaderView, draw_line


class _Header(App[None]):
    def compose(self) -> ComposeResult:
        yield HeaderView()


def _screen(app: App[None]) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return ["".join(seg.text for seg in strip).rstrip() for strip in strips]


async def test_a_new_rates_line_is_drawn_without_setting_the_whole_text() -> None:
    app = _Header()
    async with app.run_test(size=(40, 8)) as pilot:
        header = app.query_one(HeaderView)
        updates = recorded(header, "update")
        header.show(Text("tuitune host1\neth2 ixgbe\nrx 1 Gb/s"))
        await pilot.pause()
        assert len(updates) == 1 and _screen(app)[:3] == [
            "tuitune host1",
            "eth2 ixgbe",
            "rx 1 Gb/s",
        ]
        repaints = recorded(header, "refresh")  # the first region of each repaint asked for
        header.show(Text("tuitune host1\neth2 ixgbe\nrx 2 Gb/s"))
        await pilot.pause()
        assert len(updates) == 1  # no new Content for the whole text
        assert [r.y for r in repaints] == [2]  # from the rates row
        assert _screen(app)[:3] == ["tuitune host1", "eth2 ixgbe", "rx 2 Gb/s"]
        visual = header.visual
        assert isinstance(visual, Content) and visual.plain.endswith("rx 2 Gb/s")
        # Another number of lines: the whole text again, with a new layout.
        header.show(Text("tuitune host1\neth2 ixgbe\nrx 3 Gb/s\n1 finding"))
        await pilot.pause()
        assert len(updates) == 2
        assert _screen(app)[:4] == ["tuitune host1", "eth2 ixgbe", "rx 3 Gb/s", "1 finding"]


def _cells(strips: list[Strip]) -> list[list[tuple[str, str, object]]]:
    """Each segment as the terminal gets it (its text in its SGR codes) and its selection
    offset: Rich names a standard colour "red" where Content says "color(1)", the same code."""
    return [
        [
            (seg.text, seg.style.render(seg.text) if seg.style else seg.text, _meta(seg.style))
            for seg in strip
        ]
        for strip in strips
    ]


def _meta(style: Style | None) -> object:
    return style.meta if style is not None else None


async def test_a_line_drawn_by_rich_is_textuals_to_the_cell_and_style() -> None:
    # The direct path must give what Textual's Content path gives, selection offsets (the
    # style's meta) included; a line that wraps, or is not ASCII, takes Textual's own path.
    lines = [
        Text(""),
        Text("eth2  ixgbe 5.1.0-k  UP  NUMA 1  mtu 9000"),
        Text.assemble(("rx ", "bold"), "9.41 Gb/s 812k pps  ", ("drops 12/s", "bold red")),
        Text.assemble(("tuitune ", "bold cyan"), "lab-host  ", ("read-only", "italic")),
        Text("x" * 80),  # wraps at 40
        Text("naïve ◆ non-ASCII"),
    ]
    app = _Header()
    async with app.run_test(size=(42, 8)):
        header = app.query_one(HeaderView)
        width, style = header.size.width, header.visual_style
        for line in lines:
            textual = Visual.to_strips(
                header, visualize(header, line, markup=False), width, None, style
            )
            assert _cells(draw_line(header, line, width, style)) == _cells(textual), line.plain


class _Both(App[None]):
    """The header beside a plain Static, each at the same width: the Static draws each text
    whole, as the header did before it kept its lines."""

    CSS = "HeaderView, Static { width: 40; height: auto; }"

    def compose(self) -> ComposeResult:
        yield HeaderView()
        yield Static("", id="whole")


_LINE = st.lists(
    st.tuples(st.sampled_from(["rx ", "1 Gb/s ", "eth2", "x" * 30, "é"]), st.booleans()),
    max_size=3,
)


def _text(lines: list[list[tuple[str, bool]]]) -> Text:
    return Text("\n").join(
        Text.assemble(*((t, "bold red") if bold else t for t, bold in line)) for line in lines
    )


def _rows(app: App[None], widget: Static, height: int) -> list[list[tuple[str, object]]]:
    y = widget.region.y
    strips = app.screen._compositor.render_strips()[y : y + height]
    return [[(seg.text, seg.style.color if seg.style else None) for seg in s] for s in strips]


def _chars(rows: list[list[tuple[str, object]]]) -> list[list[tuple[str, object]]]:
    return [[(ch, color) for text, color in row for ch in text] for row in rows]


@settings(deadline=None, max_examples=15)  # a loaded machine is slow, not wrong
@given(st.lists(st.lists(_LINE, min_size=1, max_size=4), min_size=1, max_size=6))
def test_each_header_shown_in_turn_is_drawn_as_the_whole_text_is(
    texts: list[list[list[tuple[str, bool]]]],
) -> None:
    # The kept lines and the repaint from the first changed row (HeaderView.show) hold the
    # screen equal to the same text drawn whole, after every text of a sequence.
    async def run() -> None:
        app = _Both()
        async with app.run_test(size=(60, 30)) as pilot:
            header, whole = app.query_one(HeaderView), app.query_one("#whole", Static)
            for lines in texts:
                header.show(_text(lines))
                whole.update(_text(lines))
                await pilot.pause()
                height = whole.region.height
                assert header.region.height >= height  # it never shrinks at one width
                assert _chars(_rows(app, header, height)) == _chars(_rows(app, whole, height))

    asyncio.run(run())
