"""The benchmark form (B): its defaults, the checks on typed values (a bad value shows why and
runs nothing), keyboard-only and mouse use, and a good request starting a run.

Runs replay a recorded real iperf3 output (tests/fixtures/iperf3) through the real runner
with `cat` as the command; the notebook lives under tmp_path. What is asserted is what the
screen shows and what the notebook file holds.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from tests.support.fixture_hosts import host_32cpu
from tests.support.screen_app import TEST_ENV, screen_app
from tests.tui.conftest import Tui
from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Run
from tuitune.core.bench.notebook import Notebook
from tuitune.core.lab import Lab
from tuitune.tui.screens.bench_form import BenchFormScreen, DirectionChoice, FormError, parse_form
from tuitune.tui.screens.bench_view import BenchStrip

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "iperf3"
ONLINE = frozenset(range(32))


def replay(name: str) -> list[str]:
    """The command that plays a recorded iperf3 output: a real process, recorded text."""
    return ["cat", str(FIXTURES / name)]


@asynccontextmanager
async def bench_app(
    tmp_path: Path,
    *,
    command: Sequence[str] | None = None,
    lab: Lab | None = None,
    size: tuple[int, int] = (120, 40),
    limit: int | None = 3,
    samples: int = 5,
    interval: float = 0.05,
    env: dict[str, str] | None = None,
    notebook: Path | None = None,
    editable: bool | None = None,
) -> AsyncIterator[Tui]:
    """The live app on the 32-CPU fixture host, its notebook in tmp_path, runs replayed
    (`editable`: changes written to the fixture tree, as the advisor's tests apply them)."""
    reader, ifname = host_32cpu(tmp_path / "host", samples=samples)
    app = screen_app(
        reader,
        ifname,
        interval=interval,
        env=env or dict(TEST_ENV),
        limit=limit,
        journal_dir=tmp_path / "journal",
        notebook_path=notebook or tmp_path / "runs.jsonl",
        lab=lab,
        editable=editable,
    )
    app.app_bench.command = command
    try:
        async with app.run_test(size=size) as pilot:
            tui = Tui(app, pilot, reader)
            await tui.wait(lambda: app.samples_drawn >= 2, "two samples drawn")
            try:
                yield tui
            finally:
                # No explicit stop of a run: leaving the app must stop it (a test checks).
                app.sampler.stop()
                await pilot.pause()
    finally:
        reader.close()


def form(tui: Tui) -> BenchFormScreen:
    screen = tui.app.screen
    assert isinstance(screen, BenchFormScreen), f"the form is not open: {type(screen).__name__}"
    return screen


def field_text(tui: Tui, name: str) -> str:
    widget = form(tui).field(name)
    assert isinstance(widget, Input)
    return widget.value


def strip_text(tui: Tui) -> str:
    return "\n".join(tui.text_of(tui.app.query_one(BenchStrip)))


async def open_form(tui: Tui) -> BenchFormScreen:
    await tui.press("B")
    await tui.wait(lambda: isinstance(tui.app.screen, BenchFormScreen), "the form")
    return form(tui)


async def type_into(tui: Tui, name: str, text: str) -> None:
    form(tui).field(name).focus()
    await tui.press("ctrl+u", *text) if text else await tui.press("ctrl+u")


def a_run(peer: str = "192.0.2.7", **spec: Any) -> Run:
    result = BenchResult(9.4e9, 9.39e9, 12, 40.0, 30.0)
    return Run(
        "r1", "r1", "eth0", "2026-01-01T00:00:00+00:00", BenchSpec(peer, **spec), result,
        CpuLoad(), {"tso": "on"},
    )  # fmt: skip


# -- the rules, without a terminal --------------------------------------------------------------


GOOD = {"peer": "198.18.0.2", "port": "5201", "duration": "10", "streams": "4", "repeats": "3"}


def test_parse_form_builds_the_spec() -> None:
    got = parse_form(
        {**GOOD, "length": "128k", "client_cpu": "1", "server_cpu": "0"},
        "reverse",
        online=ONLINE,
        netns="lab",
    )
    assert got == BenchSpec(
        peer="198.18.0.2",
        duration=10,
        streams=4,
        direction="reverse",
        length="128K",
        client_cpu=1,
        server_cpu=0,
        repeats=3,
        netns="lab",
        processes=True,  # iperf3 before 3.16 runs -P N on one thread: a process each
    )


def test_parse_form_takes_the_engine_and_its_options() -> None:
    values = {**GOOD, "window": "4m", "mss": "1400", "congestion": "bbr", "zerocopy": "on"}
    got = parse_form(values | {"processes": "off"}, "normal", online=ONLINE)
    assert isinstance(got, BenchSpec)
    assert (got.window, got.mss, got.congestion, got.zerocopy) == ("4M", 1400, "bbr", True)
    assert not got.processes
    udp = parse_form({**GOOD, "udp_rate": "500m"}, "normal", processes_by_default=False)
    assert isinstance(udp, BenchSpec) and udp.udp_rate == "500M" and not udp.processes
    lat = parse_form({**GOOD, "streams": "1", "port": "", "engine": "sockperf"}, "normal")
    assert isinstance(lat, BenchSpec) and (lat.engine, lat.port) == ("sockperf", 11111)
    for changes, field in (
        ({"engine": "netperf"}, "engine"),
        ({"window": "2G"}, "window"),
        ({"udp_rate": "fast"}, "udp_rate"),
        ({"mss": "20"}, "mss"),
        ({"congestion": "BBR;"}, "congestion"),
        ({"zerocopy": "maybe"}, "zerocopy"),
        ({"engine": "nuttcp", "zerocopy": "on"}, "engine"),  # nuttcp 6 has no zero copy
    ):
        bad = parse_form({**GOOD, **changes}, "normal")
        assert isinstance(bad, FormError) and bad.field == field, (changes, bad)


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"peer": ""}, "peer", "iperf3 -s"),
        ({"peer": "-s"}, "peer", "not a host name"),
        ({"peer": "a b"}, "peer", "not a host name"),
        ({"port": "70000"}, "port", "out of range (1..65535)"),
        ({"duration": "ten"}, "duration", "'ten' is not a whole number"),
        ({"duration": "0"}, "duration", "out of range"),
        ({"streams": "129"}, "streams", "129 is out of range (1..128)"),
        ({"length": "12X"}, "length", "a size like 128K"),
        ({"client_cpu": "32"}, "client_cpu", "CPU 32 is not online here (online: 0-31)"),
        ({"client_cpu": "-1"}, "client_cpu", "not a whole number"),
        ({"server_cpu": "1"}, "client_cpu", "needs a client CPU too"),
        ({"repeats": "0"}, "repeats", "out of range (1..100)"),
    ],
)
def test_parse_form_says_what_is_wrong(changes: dict[str, str], field: str, words: str) -> None:
    got = parse_form({**GOOD, **changes}, "normal", online=ONLINE)
    assert isinstance(got, FormError)
    assert got.field == field
    assert words in got.text()


# -- the form on screen ------------------------------------------------------------------------


async def test_defaults_without_a_peer_show_the_hint(tmp_path: Path) -> None:
    async with bench_app(tmp_path) as tui:
        await open_form(tui)
        shown = tui.screen_text()
        assert " Benchmark " in shown
        assert field_text(tui, "peer") == ""
        assert "a host running `iperf3 -s`" in shown  # the empty field says what goes there
        assert [field_text(tui, n) for n in ("port", "duration", "streams", "repeats")] == [
            "5201",
            "10",
            "1",
            "1",
        ]
        assert field_text(tui, "length") == field_text(tui, "client_cpu") == ""
        assert form(tui).direction() == "normal"
        assert tui.focused() is form(tui).field("peer")
        # The CPU hint says where the NIC's IRQs land (all 8 queues on CPU 0 here).
        form(tui).field("client_cpu").focus()
        await tui.pilot.pause()
        assert "eth0's IRQs land on CPU 0: pin away" in tui.screen_text()


async def test_defaults_come_from_the_last_run(tmp_path: Path) -> None:
    nb = tmp_path / "runs.jsonl"
    Notebook(nb).add(a_run("192.0.2.7", duration=3, streams=4, direction="reverse"))
    async with bench_app(tmp_path, notebook=nb) as tui:
        await open_form(tui)
        assert field_text(tui, "peer") == "192.0.2.7"
        assert field_text(tui, "duration") == "3"
        assert field_text(tui, "streams") == "4"
        assert form(tui).direction() == "reverse"
        assert " reverse " in tui.screen_text()


async def test_defaults_use_the_lab_peer(tmp_path: Path) -> None:
    nb = tmp_path / "runs.jsonl"
    Notebook(nb).add(a_run("192.0.2.7"))  # the lab wins over the last peer
    lab = Lab("abc123", "tuitune-lab-abc123", "tuitune-peer-abc123", "lab0", "peer0",
              "198.18.0.1", "198.18.0.2", None, None)  # fmt: skip
    async with bench_app(tmp_path, notebook=nb, lab=lab) as tui:
        await open_form(tui)
        assert field_text(tui, "peer") == "198.18.0.2"
        assert "the lab's peer 198.18.0.2" in tui.screen_text()


@pytest.mark.parametrize(
    ("name", "typed", "message"),
    [
        ("streams", "0", "streams: 0 is out of range (1..128)"),
        ("duration", "ten", "duration s: 'ten' is not a whole number"),
        ("client_cpu", "99", "client CPU: CPU 99 is not online here (online: 0-31)"),
        ("peer", "-s", "peer: '-s' is not a host name or an address"),
    ],
)
async def test_a_bad_value_is_refused_and_nothing_runs(
    tmp_path: Path, name: str, typed: str, message: str
) -> None:
    async with bench_app(tmp_path, command=replay("normal-p1.txt")) as tui:
        await open_form(tui)
        await type_into(tui, "peer", "10.0.0.2")
        await type_into(tui, name, typed)
        await tui.press("enter")
        assert message in tui.screen_text()  # the reason, in the form
        assert tui.focused() is form(tui).field(name)  # the cursor is back in that field
        assert tui.app.app_bench.runner is None
        assert not (tmp_path / "runs.jsonl").exists()
        assert not tui.app.query_one(BenchStrip).display
        # Fixing it runs.
        await type_into(tui, name, {"peer": "10.0.0.2", "duration": "3"}.get(name, "1"))
        await tui.press("enter")
        await tui.wait(lambda: not isinstance(tui.app.screen, BenchFormScreen), "form closed")
        await tui.wait(lambda: "done" in strip_text(tui), "the run to end")


async def test_a_good_request_runs_and_lands_in_the_notebook(tmp_path: Path) -> None:
    async with bench_app(tmp_path, command=replay("normal-p1.txt")) as tui:
        await open_form(tui)
        await type_into(tui, "peer", "10.0.0.2")
        await type_into(tui, "duration", "3")
        await type_into(tui, "length", "128K")
        await tui.press("enter")
        await tui.wait(lambda: "recorded (N: runs)" in strip_text(tui), "the run recorded")
        runs = Notebook(tmp_path / "runs.jsonl").runs()
        assert [r.id for r in runs] == ["r1"]
        assert runs[0].spec == BenchSpec("10.0.0.2", duration=3, length="128K")
        assert runs[0].settings  # the settings it ran with (the fixture tree's sysctls)
        assert "Bench r1 done" in strip_text(tui)


async def test_escape_cancels_and_runs_nothing(tmp_path: Path) -> None:
    async with bench_app(tmp_path, command=replay("normal-p1.txt")) as tui:
        await open_form(tui)
        await type_into(tui, "peer", "10.0.0.2")
        await tui.press("escape")
        assert not isinstance(tui.app.screen, BenchFormScreen)
        assert tui.app.app_bench.runner is None
        assert not tui.app.query_one(BenchStrip).display
        assert not (tmp_path / "runs.jsonl").exists()


async def test_keyboard_only_tab_arrows_and_the_direction(tmp_path: Path) -> None:
    async with bench_app(tmp_path, command=replay("reverse-p1.txt")) as tui:
        screen = await open_form(tui)
        await tui.press(*"10.0.0.2")
        order = []
        for _ in range(4):
            await tui.press("tab")
            order.append(tui.focused())
        assert order == [screen.field(n) for n in ("port", "duration", "streams", "direction")]
        await tui.press("space")  # normal -> reverse
        assert screen.direction() == "reverse"
        assert "the peer sends to us (-R)" in tui.screen_text()
        await tui.press("right", "left")
        assert screen.direction() == "reverse"
        await tui.press("shift+tab", "shift+tab")
        assert tui.focused() is screen.field("duration")
        await tui.press("ctrl+u", "3", "down")  # duration 3, then arrow down to the next field
        assert tui.focused() is screen.field("streams")
        await tui.press("enter")
        await tui.wait(lambda: "recorded" in strip_text(tui), "the run recorded")
        run = Notebook(tmp_path / "runs.jsonl").runs()[0]
        assert run.spec.direction == "reverse"
        assert run.spec.duration == 3


def where(tui: Tui, text: str) -> tuple[int, int]:
    for y, line in enumerate(tui.lines()):
        x = line.find(text)
        if x >= 0:
            return x, y
    raise AssertionError(f"{text!r} is not on screen:\n{tui.screen_text()}")


async def test_mouse_picks_the_direction_and_runs(tmp_path: Path) -> None:
    async with bench_app(tmp_path, command=replay("bidir-p1.txt")) as tui:
        screen = await open_form(tui)
        await tui.press(*"10.0.0.2")
        x, y = where(tui, " bidir ")
        await tui.pilot.click(offset=(x + 2, y))
        assert screen.direction() == "bidir"
        assert isinstance(tui.focused(), DirectionChoice)
        x, y = where(tui, "Cancel")
        await tui.pilot.click(offset=(x + 2, y))
        assert not isinstance(tui.app.screen, BenchFormScreen)
        assert tui.app.app_bench.runner is None
        # Open again: the typed peer is not kept (nothing ran), the click path runs.
        screen = await open_form(tui)
        await tui.press(*"10.0.0.2")
        x, y = where(tui, " bidir ")
        await tui.pilot.click(offset=(x + 2, y))
        x, y = where(tui, "Run ")
        await tui.pilot.click(offset=(x + 1, y))
        await tui.wait(lambda: "recorded" in strip_text(tui), "the run recorded")
        run = Notebook(tmp_path / "runs.jsonl").runs()[0]
        assert run.spec.direction == "bidir"
        assert run.result.return_received_bps  # the other direction was parsed too


async def test_the_form_fits_80x24_and_draws_ascii_on_the_console(tmp_path: Path) -> None:
    env = {"TERM": "linux", "LANG": "C.UTF-8"}
    async with bench_app(tmp_path, size=(80, 24), env=env) as tui:
        await open_form(tui)
        shown = tui.screen_text()
        for label in ("peer", "port", "duration s", "streams", "direction", "length",
                      "client CPU", "server CPU", "repeats", "engine", "window -w", "UDP rate",
                      "MSS -M", "congestion", "zero copy", "processes", "Enter: run"):  # fmt: skip
            assert label in shown
        box = form(tui).query_one("Vertical")
        assert box.region.height <= 24
        assert all(ch.isascii() for ch in "\n".join(tui.region_lines(box.region)))


@pytest.mark.parametrize("term", ["linux", "xterm-256color"])
async def test_every_field_shows_its_value_on_the_console(tmp_path: Path, term: str) -> None:
    """The form's one-line fields drew as `+----+` on TERM=linux (the App's ASCII border rule for
    Inputs also hit these borderless ones): what is in them and what is typed must show."""
    env = {"TERM": term, "LANG": "C.UTF-8"}
    async with bench_app(tmp_path, size=(80, 24), env=env) as tui:
        await open_form(tui)
        await type_into(tui, "peer", "198.51.100.9")
        await type_into(tui, "streams", "7")
        for name, shown in (("peer", "198.51.100.9"), ("port", "5201"), ("streams", "7")):
            widget = form(tui).field(name)
            line = "".join(tui.region_lines(widget.region))
            assert shown in line, (name, line)
            assert "+--" not in line, (name, line)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_defaults_never_come_from_a_sweep_cell(tmp_path: Path, size: tuple[int, int]) -> None:
    """After a sweep (3 s cells), B offers the user's own last request again (10 s), or every
    later run is "(test differs)" and never compared with the baseline (issue 31, item 2)."""
    nb = tmp_path / "runs.jsonl"
    Notebook(nb).add(a_run("192.0.2.7", duration=10, streams=4))
    cell = replace(a_run("192.0.2.7", duration=3, streams=1), id="r2", group="r2")
    Notebook(nb).add(replace(cell, tags={"sweep": "lab-1a2b3c4d-1", "cell": "1"}))
    async with bench_app(tmp_path, notebook=nb, size=size) as tui:
        await open_form(tui)
        assert field_text(tui, "duration") == "10"
        assert field_text(tui, "streams") == "4"
        line = next(x for x in tui.screen_text().splitlines() if "duration s" in x)
        assert re.search(r"duration s\W+10\b", line), line
