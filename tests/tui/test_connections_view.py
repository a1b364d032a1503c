"""C opens the connections view: each TCP connection's cwnd, RTT, retransmits, pacing rate
and wscale at 80x24 (and at 160 columns its local end, delivery rate, MSS and SACK too), a
connection without window scaling marked, and the congestion control's name (outside text)
shown escaped. The reader's inet_diag read is replaced by a fixed list: a fixture host has no
sockets (tests/kernel/test_connections_kernel.py reads real ones)."""

from __future__ import annotations

from tests.support.fixture_hosts import host_32cpu
from tuitune.core.host.conns import Connection
from tuitune.tui.screens.conns import ConnsScreen

from .conftest import Launch

CONNS = (
    Connection("10.0.0.1", 5201, "10.0.0.2", 40000, "cubic", 87, 0.42, 3,
               9_400_000_000, 9_000_000_000, 1448, True, True, (7, 7)),
    Connection("10.0.0.1", 5201, "192.168.1.9", 40001, "bb\x1b[2J", 10, 25.0, 0,
               None, None, 1448, True, True, None),
)  # fmt: skip


async def test_c_shows_the_connections_at_80x24(launch: Launch) -> None:
    # Sampling goes on: the sampler reads the connections at each tick while the view is open.
    async with launch(host_32cpu, size=(80, 24), limit=None, interval=0.2) as tui:
        reads: list[str] = []

        def read(ifname: str) -> tuple[Connection, ...]:
            reads.append(ifname)
            return CONNS

        tui.reader.connections = read  # type: ignore[method-assign]
        await tui.press("C")
        await tui.wait(lambda: "established" in tui.screen_text(), "the view's first read")
        text = tui.screen_text()
        assert isinstance(tui.app.screen, ConnsScreen)
        assert "2 established TCP connection(s)" in text
        assert "1 without window scaling" in text
        for head in ("remote", "cwnd", "rtt ms", "retr", "pacing", "wscale"):
            assert head in text
        row = next(ln for ln in tui.lines() if "10.0.0.2:40000" in ln)
        assert "87" in row and "0.42" in row and "9.40 Gb/s" in row and "7,7" in row
        row = next(ln for ln in tui.lines() if "192.168.1.9:40001" in ln)
        assert "off" in row and "25.00" in row
        assert "\x1b" not in text and "\\x1b" in text  # the hostile name, escaped
        assert "from the tree, read once" in text  # a --root tree's (a capture's) do not move
        await tui.press("escape")
        assert not isinstance(tui.app.screen, ConnsScreen)
        # Closed: nobody wants them, the sampler reads them no more.
        await tui.wait(lambda: not tui.app.sampler.connections_wanted, "the view's want gone")
        n = len(reads)
        drawn = tui.app.samples_drawn
        await tui.wait(lambda: tui.app.samples_drawn >= drawn + 2, "two more samples")
        assert len(reads) <= n + 1  # at most the tick under way when the view closed


async def test_the_advisor_judges_the_views_reading(launch: Launch) -> None:
    """The findings (A) judge the connections the view's reading holds: the one without
    window scaling is named, not "connections not read"."""
    async with launch(host_32cpu, size=(160, 48), limit=None, interval=0.2) as tui:
        tui.reader.connections = lambda ifname: CONNS  # type: ignore[method-assign]
        await tui.press("C")
        await tui.wait(lambda: "established" in tui.screen_text(), "the view's first read")
        # Wide: every column the issue names (local end, delivery rate, MSS, SACK too).
        for head in ("local", "cc", "cwnd", "rtt ms", "retr", "pacing", "deliv", "mss", "sack"):
            assert head in tui.screen_text()
        row = next(ln for ln in tui.lines() if "10.0.0.2:40000" in ln)
        assert "10.0.0.1:5201" in row and "cubic" in row and "9.00 Gb/s" in row
        assert "1448" in row and " on " in row and "7,7" in row
        await tui.press("escape")
        await tui.press("A")
        await tui.wait(lambda: "Findings" in tui.screen_text(), "the findings view")
        text = tui.screen_text()
        assert "connection-no-wscale" in text and "without window scaling" in text
        assert "connections not read" not in text
        await tui.press("escape")
