"""The connections view (`C`): the TCP connections on the NIC's addresses, as `ss -ti` would
show them, read by the sampler at each tick while the view is open (inet_diag,
core/host/conns.py; the live advisor judges the same reading): per connection its
congestion control, cwnd, RTT, retransmits, pacing rate, and whether window scaling was
negotiated (LOFAR's check, WAN advice; a connection without it is marked, as the advisor's
connection-no-wscale rule does). Every string from outside (the
congestion control's name) is shown through `printable` as a Rich Text, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from tuitune.core.host.conns import Connection
from tuitune.core.text import printable
from tuitune.core.units import bitrate
from tuitune.core.values import Unavailable
from tuitune.tui.screens.box import BoxScreen
from tuitune.tui.shell import Shell

# The sampler's last reading (None: none yet since the view opened).
Read = Callable[[], "tuple[Connection, ...] | Unavailable | None"]
HINT = "Esc/q/C: close   (read every tick; yellow: window scaling off)"
# A --root tree's connections do not move: a capture holds those read when it was taken.
HINT_CAPTURED = "Esc/q/C: close   (from the tree, read once; yellow: wscale off)"
WIDE = 110  # below this the local end, delivery rate and MSS are left out


def _addr(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def summary(conns: tuple[Connection, ...] | Unavailable, ifname: str) -> Text:
    if isinstance(conns, Unavailable):
        return Text(f"connections: {printable(conns.reason, 200)}", style="dim italic")
    off = sum(1 for c in conns if c.wscale_off)
    line = Text(f"{len(conns)} established TCP connection(s) on {printable(ifname, 32)}")
    if off:
        line.append(
            f"; {off} without window scaling: their window stops at 64 KiB (LOFAR, WAN)",
            style="bold yellow",
        )
    return line


def table(conns: tuple[Connection, ...], width: int) -> Table:
    wide = width >= WIDE
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, expand=False)
    cols = ["remote", "cc", "cwnd", "rtt ms", "retr", "pacing", "wscale"]
    if wide:
        cols = ["local", *cols[:6], "deliv", "mss", "sack", "wscale"]
    for name in cols:
        left = name in ("local", "remote", "cc")
        # Numbers keep their heading's width; addresses and names give way (elided).
        t.add_column(
            name,
            justify="left" if left else "right",
            no_wrap=True,
            min_width=None if left else len(name),
            overflow="ellipsis",
        )
    for c in conns:
        row = [
            Text(_addr(c.remote, c.rport)),
            Text(printable(c.cc, 12) if c.cc else "-"),
            Text("-" if c.cwnd is None else str(c.cwnd)),
            Text("-" if c.rtt_ms is None else f"{c.rtt_ms:.2f}"),
            Text("-" if c.retrans is None else str(c.retrans)),
            Text("-" if c.pacing_bps is None else bitrate(c.pacing_bps / 8)),
        ]
        ws = Text("off" if c.wscale is None else f"{c.wscale[0]},{c.wscale[1]}")
        if wide:
            deliv = "-" if c.delivery_bps is None else bitrate(c.delivery_bps / 8)
            mss = "-" if c.mss is None else str(c.mss)
            sack = "-" if c.sack is None else ("on" if c.sack else "off")
            row = [Text(_addr(c.local, c.lport)), *row, Text(deliv), Text(mss), Text(sack)]
        t.add_row(*row, ws, style="yellow" if c.wscale_off else None)
    return t


class ConnsScreen(BoxScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,C", "close", "Close")]
    DEFAULT_CSS = """
    ConnsScreen > Vertical { width: 98%; max-width: 160; height: 96%; }
    ConnsScreen .summary { height: auto; max-height: 2; }
    ConnsScreen .hint { color: $text-muted; height: 1; }
    ConnsScreen VerticalScroll { height: 1fr; }
    """

    def __init__(
        self, shell: Shell, ifname: str, read: Read, interval: float, live: bool = True
    ) -> None:
        super().__init__()
        self.shell, self.ifname, self.read, self.interval = shell, ifname, read, interval
        self.live = live
        self.shown: tuple[Connection, ...] | Unavailable | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as frame:
            frame.border_title = f"Connections: {printable(self.ifname, 32)}"
            yield Static(Text("reading (inet_diag)...", style="dim"), classes="summary")
            with VerticalScroll():
                yield Static("", id="conns")
            yield Static(HINT if self.live else HINT_CAPTURED, classes="hint")

    def on_mount(self) -> None:
        self.refresh_conns()
        # A tree's or a capture's connections do not move: read once, shown when it comes.
        self.set_interval(min(max(self.interval, 0.1), 0.5), self.refresh_conns)

    def refresh_conns(self) -> None:
        """The sampler's last reading, on screen when it is new (no read here: the sampler
        made it on its thread)."""
        got = self.read()
        if got is not None and got is not self.shown:
            self.show_conns(got)

    def show_conns(self, conns: tuple[Connection, ...] | Unavailable) -> None:
        if not self.is_attached:
            return
        self.shown = conns
        self.query_one(".summary", Static).update(summary(conns, self.ifname))
        body = self.query_one("#conns", Static)
        if isinstance(conns, Unavailable) or not conns:
            body.update("")
            return
        body.update(table(conns, self.size.width))

    def action_close(self) -> None:
        self.dismiss(None)
