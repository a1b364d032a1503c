"""The benchmark form (key B): what to run against which peer, checked before anything runs.

`parse_form` is a pure function from the typed text to a BenchSpec or the first field that is
wrong and why, so the rules are tested without a terminal; `BenchFormScreen` is the modal that
shows the fields, the reason a value was refused, and hands back the spec on Enter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import DescendantFocus
from textual.widgets import Button, Input, Static

from tuitune.core.bench.engines import NAMES as ENGINE_NAMES
from tuitune.core.bench.engines import get as get_engine
from tuitune.core.bench.limits import (
    MAX_CPU,
    MAX_DURATION,
    MAX_REPEATS,
    MAX_STREAMS,
    BadLength,
    congestion_problem,
    mss_problem,
    parse_length,
    parse_rate,
    parse_window,
)
from tuitune.core.bench.model import DIRECTIONS, BenchSpec, Direction
from tuitune.core.cpulist import format_cpulist
from tuitune.tui.screens.box import BoxScreen
from tuitune.tui.screens.word_choice import WordChoice

# A host name, an IPv4 or IPv6 address (with a %zone): nothing a shell or iperf3 would read
# as an option or a second word.
_PEER = re.compile(r"[A-Za-z0-9_.:%\[\]-]+")

FIELDS: tuple[tuple[str, str], ...] = (
    ("peer", "peer"),
    ("port", "port"),
    ("duration", "duration s"),
    ("streams", "streams"),
    ("direction", "direction"),
    ("length", "length"),
    ("client_cpu", "client CPU"),
    ("server_cpu", "server CPU"),
    ("repeats", "repeats"),
    ("engine", "engine"),
    ("window", "window -w"),
    ("udp_rate", "UDP rate"),
    ("mss", "MSS -M"),
    ("congestion", "congestion"),
    ("zerocopy", "zero copy"),
    ("processes", "processes"),
)
LABELS = dict(FIELDS)
# Fields drawn on the row of the field before them, so the form keeps within 80x24.
SAME_ROW = {"server_cpu": "client_cpu", "udp_rate": "window", "congestion": "mss"}
SAME_ROW |= {"processes": "zerocopy"}
ON = ("on", "yes", "y", "1")
OFF = ("off", "no", "n", "0")
DIRECTION_WORDS = {
    "normal": "we send to the peer",
    "reverse": "the peer sends to us (-R)",
    "bidir": "both ways at once (--bidir)",
}


@dataclass(frozen=True, slots=True)
class FormError:
    field: str  # a FIELDS name
    reason: str

    def text(self) -> str:
        return f"{LABELS[self.field]}: {self.reason}"


def _int(
    values: Mapping[str, str], name: str, low: int, high: int, empty: int | None = None
) -> int | FormError | None:
    text = values.get(name, "").strip()
    if not text:
        if empty is not None:
            return empty
        return None
    if not (text.isascii() and text.isdigit()):  # "²".isdigit() holds, and int() refuses it
        shown = text if len(text) <= 20 else text[:20] + "..."
        return FormError(name, f"{shown!r} is not a whole number")
    if len(text.lstrip("0")) > len(str(high)):  # and int() never sees 5,000 digits
        return FormError(name, f"{text[:12]}... is out of range ({low}..{high})")
    n = int(text)
    if not low <= n <= high:
        return FormError(name, f"{n} is out of range ({low}..{high})")
    return n


def _cpu(values: Mapping[str, str], name: str, online: frozenset[int] | None) -> int | FormError:
    """-1 for empty (not pinned), the CPU, or why not."""
    got = _int(values, name, 0, MAX_CPU)
    if got is None:
        return -1
    if isinstance(got, FormError):
        return got
    if online and got not in online:
        return FormError(name, f"CPU {got} is not online here (online: {format_cpulist(online)})")
    return got


def _switch(values: Mapping[str, str], name: str) -> bool | FormError | None:
    """on / off / empty (None: tuitune decides)."""
    text = values.get(name, "").strip().lower()
    if not text:
        return None
    if text in ON:
        return True
    if text in OFF:
        return False
    return FormError(name, f"{text[:12]!r}: on or off (empty: {HINTS[name]})")


def _options(values: Mapping[str, str]) -> dict[str, object] | FormError:
    """The options of issue 35, each checked like the command line checks it."""
    engine = values.get("engine", "").strip() or "iperf3"
    if engine not in ENGINE_NAMES:
        return FormError("engine", f"{engine[:12]!r}: one of {', '.join(ENGINE_NAMES)}")
    out: dict[str, object] = {"engine": engine}
    for name, parse in (("window", parse_window), ("udp_rate", parse_rate)):
        text = values.get(name, "").strip()
        try:
            out[name] = parse(text) if text else None
        except BadLength as exc:
            return FormError(name, str(exc))
    mss = _int(values, "mss", 1, 65535)
    if isinstance(mss, FormError):
        return mss
    if mss is not None and (why := mss_problem(mss)):
        return FormError("mss", why)
    out["mss"] = mss
    cc = values.get("congestion", "").strip() or None
    if cc is not None and (why := congestion_problem(cc)):
        return FormError("congestion", why)
    out["congestion"] = cc
    for name in ("zerocopy", "processes"):
        got = _switch(values, name)
        if isinstance(got, FormError):
            return got
        out[name] = got
    return out


def parse_form(
    values: Mapping[str, str],
    direction: Direction,
    *,
    online: frozenset[int] | None = None,
    server_online: frozenset[int] | None = None,
    netns: str | None = None,
    processes_by_default: bool = True,
) -> BenchSpec | FormError:
    """The spec the typed fields describe, or the first field that is wrong and why.

    `online`: this host's CPUs (the client runs here); `server_online`: the peer's when known
    (the lab's peer is this machine too), else any CPU number is taken.
    """
    peer = values.get("peer", "").strip()
    if not peer:
        return FormError("peer", "give the address of a host running `iperf3 -s`")
    if peer.startswith("-") or not _PEER.fullmatch(peer):
        return FormError("peer", f"{peer!r} is not a host name or an address")
    port = _int(values, "port", 1, 65535, empty=5201)
    if isinstance(port, FormError) or port is None:
        return port or FormError("port", "missing")
    duration = _int(values, "duration", 1, MAX_DURATION, empty=10)
    if isinstance(duration, FormError) or duration is None:
        return duration or FormError("duration", "missing")
    streams = _int(values, "streams", 1, MAX_STREAMS, empty=1)
    if isinstance(streams, FormError) or streams is None:
        return streams or FormError("streams", "missing")
    if direction not in DIRECTIONS:
        return FormError("direction", f"one of {', '.join(DIRECTIONS)}")
    length: str | None = values.get("length", "").strip() or None
    if length is not None:
        try:
            length = parse_length(length)
        except BadLength as exc:
            return FormError("length", str(exc))
    client = _cpu(values, "client_cpu", online)
    if isinstance(client, FormError):
        return client
    server = _cpu(values, "server_cpu", server_online)
    if isinstance(server, FormError):
        return server
    if server >= 0 and client < 0:
        return FormError("client_cpu", "pinning the server needs a client CPU too (iperf3 -A n,m)")
    repeats = _int(values, "repeats", 1, MAX_REPEATS, empty=1)
    if isinstance(repeats, FormError) or repeats is None:
        return repeats or FormError("repeats", "missing")
    opts = _options(values)
    if isinstance(opts, FormError):
        return opts
    engine = str(opts["engine"])
    if engine != "iperf3" and not values.get("port", "").strip():
        port = get_engine(engine).default_port
    chosen = opts.pop("processes")
    auto = processes_by_default and engine == "iperf3"
    processes = streams > 1 and (auto if chosen is None else bool(chosen))
    spec = BenchSpec(
        peer=peer,
        port=port,
        duration=duration,
        streams=streams,
        direction=direction,
        length=length,
        client_cpu=client if client >= 0 else None,
        server_cpu=server if server >= 0 else None,
        repeats=repeats,
        netns=netns,
        engine=engine,
        window=opts["window"],  # type: ignore[arg-type]
        zerocopy=bool(opts["zerocopy"]),
        udp_rate=opts["udp_rate"],  # type: ignore[arg-type]
        mss=opts["mss"],  # type: ignore[arg-type]
        congestion=opts["congestion"],  # type: ignore[arg-type]
        processes=processes,
    )
    why = get_engine(engine).unsupported(spec)
    return FormError("engine", why) if why else spec


def form_values(spec: BenchSpec) -> dict[str, str]:
    """The fields' text for a spec (to fill the form from the last run)."""

    def opt(n: int | None) -> str:
        return "" if n is None else str(n)

    return {
        "peer": spec.peer,
        "port": str(spec.port),
        "duration": str(spec.duration),
        "streams": str(spec.streams),
        "length": spec.length or "",
        "client_cpu": opt(spec.client_cpu),
        "server_cpu": opt(spec.server_cpu),
        "repeats": str(spec.repeats),
        "engine": spec.engine,
        "window": spec.window or "",
        "udp_rate": spec.udp_rate or "",
        "mss": opt(spec.mss),
        "congestion": spec.congestion or "",
        "zerocopy": "on" if spec.zerocopy else "",
        "processes": "on" if spec.processes else "",
    }


@dataclass(frozen=True, slots=True)
class FormDefaults:
    """What the form starts with, and the hints that depend on the host."""

    spec: BenchSpec  # peer may be "" (nothing known yet)
    peer_hint: str = "a host running `iperf3 -s`"
    cpu_hint: str = "iperf3 -A: pin client/server away from the CPU taking the NIC's IRQs"
    online: frozenset[int] | None = None
    server_online: frozenset[int] | None = None
    netns: str | None = None
    note: str = ""  # one line above the fields (e.g. what the run measures)
    # -P N as processes unless the form says otherwise: iperf3 before 3.16 (Debian 12: 3.12)
    # runs every stream on one thread.
    processes_by_default: bool = True


HINTS = {
    "peer": "",  # from FormDefaults.peer_hint
    "port": "the server's port (iperf3 -p; its default is 5201)",
    "duration": "seconds per run (iperf3 -t)",
    "streams": f"parallel TCP streams (iperf3 -P, 1..{MAX_STREAMS})",
    "direction": "space or left/right: normal (we send), reverse (-R), bidir; or click one",
    "length": "bytes per write, like 128K (iperf3 -l); empty: iperf3's default",
    "client_cpu": "",  # from FormDefaults.cpu_hint
    "server_cpu": "",
    "repeats": "runs of the same request: the notebook keeps the median and spread",
    "engine": "iperf3, nuttcp (ESnet's tool) or sockperf (latency: ping-pong round trips)",
    "window": "socket window, like 4M (-w); empty: the kernel autotunes",
    "udp_rate": "UDP at this rate in bits/s, like 1G (loss and jitter kept); empty: TCP",
    "mss": "TCP maximum segment size (-M); empty: the route's",
    "congestion": "TCP congestion control for this run (-C), like bbr; empty: the host's",
    "zerocopy": "on: sendfile instead of write (-Z); empty: off",
    "processes": "on: one pinned process per stream; empty: so where iperf3 < 3.16",
}


class DirectionChoice(WordChoice):
    """normal / reverse / bidir (screens/word_choice.py)."""

    def __init__(self, value: Direction, *, id: str | None = None) -> None:
        super().__init__(DIRECTIONS, DIRECTION_WORDS, value, id=id)


class BenchFormScreen(BoxScreen[BenchSpec | None]):
    """The form: Enter (in any field) or the Run button checks every field and, when all are
    good, closes with the spec; a bad value keeps the form open with the reason under it and
    the cursor in that field. Esc or Cancel closes with None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "submit", "Run", show=False),
        Binding("down", "move(1)", "Next field", show=False),
        Binding("up", "move(-1)", "Previous field", show=False),
    ]
    DEFAULT_CSS = """
    BenchFormScreen > Vertical { width: 90%; max-width: 100; height: auto; max-height: 100%; }
    BenchFormScreen .row { height: 1; }
    BenchFormScreen .label { width: 13; }
    BenchFormScreen .second { width: 12; padding-left: 2; }
    BenchFormScreen .short { width: 12; }
    BenchFormScreen #bench-peer { width: 1fr; }
    BenchFormScreen #bench-length { width: 12; }
    BenchFormScreen .side { width: 1fr; color: $text-muted; padding: 0 1; }
    BenchFormScreen .hint, BenchFormScreen .note { color: $text-muted; }
    BenchFormScreen #bench-error { color: $error; text-style: bold; }
    BenchFormScreen .buttons { height: 1; margin-top: 1; }
    BenchFormScreen Button { margin-right: 2; min-width: 10; }
    """

    def __init__(self, defaults: FormDefaults) -> None:
        super().__init__()
        self.defaults = defaults
        self.error: FormError | None = None

    def compose(self) -> ComposeResult:
        d = self.defaults
        values = form_values(d.spec)
        side = {
            "port": "default 5201",
            "duration": "seconds",
            "streams": "-P",
            "engine": "iperf3, nuttcp, sockperf",
            "length": "like 128K; empty: default",
            "client_cpu": "empty: not pinned",
            "server_cpu": "empty: not pinned",
            "repeats": "same request again",
        }
        with Vertical() as box:
            box.border_title = "Benchmark"
            if d.note:
                yield Static(d.note, classes="note", markup=False)
            for name, label in FIELDS:
                if name in SAME_ROW:
                    continue
                with Horizontal(classes="row"):
                    yield Static(label, classes="label", markup=False)
                    if name == "direction":
                        yield DirectionChoice(d.spec.direction, id="bench-direction")
                        continue
                    yield self._input(name, values)
                    second = next((n for n, first in SAME_ROW.items() if first == name), None)
                    if second is not None:
                        yield Static(LABELS[second], classes="label second", markup=False)
                        yield self._input(second, values)
                    elif name in side:
                        yield Static(side[name], classes="side", markup=False)
            yield Static("", id="bench-hint", classes="hint", markup=False)
            yield Static("", id="bench-error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Run", id="bench-run", variant="primary", compact=True)
                yield Button("Cancel", id="bench-cancel", compact=True)
            yield Static(
                "Enter: run   Esc: cancel   Tab / arrows: next field", classes="hint", markup=False
            )

    def _input(self, name: str, values: Mapping[str, str]) -> Input:
        return Input(
            value=values[name],
            placeholder=self.defaults.peer_hint if name == "peer" else "",
            id=f"bench-{name.replace('_', '-')}",
            classes="" if name == "peer" else "short",
            compact=True,
            select_on_focus=False,
        )

    def on_mount(self) -> None:
        first = "#bench-peer" if not self.defaults.spec.peer else "#bench-duration"
        self.query_one(first, Input).focus()

    # -- reading the fields --------------------------------------------------------------------
    def field(self, name: str) -> Input | DirectionChoice:
        wid = f"#bench-{name.replace('_', '-')}"
        if name == "direction":
            return self.query_one(wid, DirectionChoice)
        return self.query_one(wid, Input)

    def values(self) -> dict[str, str]:
        return {
            name: w.value
            for name, _ in FIELDS
            if name != "direction" and isinstance(w := self.field(name), Input)
        }

    def direction(self) -> Direction:
        got = self.query_one(DirectionChoice).value
        return next(d for d in DIRECTIONS if d == got)  # one of them: the widget cycles them

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        name = self._name_of(event.widget.id or "")
        if name:
            hint = HINTS[name] or (
                self.defaults.peer_hint if name == "peer" else self.defaults.cpu_hint
            )
            self.query_one("#bench-hint", Static).update(f"{LABELS[name]}: {hint}")

    @staticmethod
    def _name_of(widget_id: str) -> str:
        if not widget_id.startswith("bench-"):
            return ""
        name = widget_id.removeprefix("bench-").replace("-", "_")
        return name if name in LABELS else ""

    # -- actions -------------------------------------------------------------------------------
    def action_submit(self) -> None:
        d = self.defaults
        got = parse_form(
            self.values(),
            self.direction(),
            online=d.online,
            server_online=d.server_online,
            netns=d.netns,
            processes_by_default=d.processes_by_default,
        )
        if isinstance(got, FormError):
            self.error = got
            self.query_one("#bench-error", Static).update(got.text())
            self.field(got.field).focus()
            return
        self.dismiss(got)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "bench-run":
            self.action_submit()
        else:
            self.action_cancel()

    def action_move(self, step: int) -> None:
        self.focus_next() if step > 0 else self.focus_previous()

    def action_cancel(self) -> None:
        self.dismiss(None)
