"""%nice as mpstat shows it, and %guest where a CPU has some (issue 31, item 4): niced work
is not folded into %usr, so a row adds up (usr 25, nice 55, guest 10, sys 7, soft 3, idle 0).
On the live grid at 80x24 and 200x60 (the grid still fits), in `show`, in `show --json` and
in the advisor's evidence of a busy CPU."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from rich.console import Console

from tests.support.fixture_hosts import Load, host_32cpu
from tests.tui.conftest import Launch
from tuitune.core.advise.window import other_load
from tuitune.core.jsondoc import show_document
from tuitune.core.watch.rates import compute_rates
from tuitune.report.show import print_show

# cpu1: 35 % user of which 10 % is a guest's, 55 % nice, 7 % sys, 3 % soft, never idle.
NICED = {1: Load(35, 7, 3, 0, nice=55, guest=10)}
niced_host = partial(host_32cpu, busy=NICED)


def _cells(line: str) -> list[str]:
    """A grid line's cells (the panel's border and any neighbouring panel cut off)."""
    inner = line.split("│")[1] if line.count("│") >= 2 else line
    return inner.replace("|", " ").split()


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_grid_shows_nice_and_guest(launch: Launch, size: tuple[int, int]) -> None:
    async with launch(niced_host, size=size) as tui:
        await tui.press("1")
        text = tui.screen_text()
        lines = text.splitlines()
        head = next((x for x in lines if "%usr" in x), text)
        cols = _cells(head)
        assert "%nice" in cols, head
        row = next((x for x in lines if "│" in x and _cells(x)[:1] in (["1"], ["1◆"])), text)
        got = dict(zip(cols[1:], _cells(row)[1:], strict=False))
        assert got["%usr"] == "25.0" and got["%nice"] == "55.0", (head, row)
        if "%gst" in cols:  # dropped first when the width is short, never %nice
            assert got["%gst"] == "10.0", (head, row)
        assert size[0] < 150 or "%gst" in cols
        assert all(len(x) <= size[0] for x in lines)


def _one_second(tmp_path: Path):  # type: ignore[no-untyped-def]
    reader, ifname = niced_host(tmp_path)
    try:
        first = reader.counters(ifname)
        snap = reader.snapshot(ifname)
    finally:
        reader.close()
    return snap, compute_rates(first, snap.counters)


def test_show_table_and_json(tmp_path: Path) -> None:
    snap, rates = _one_second(tmp_path)
    con = Console(width=120, record=True, color_system=None, force_terminal=False)
    print_show(snap, rates, console=con)
    out = con.export_text()
    head = next(x for x in out.splitlines() if " usr " in f" {x} ")
    cols = head.split()
    assert cols[cols.index("usr") + 1] == "nice" and "guest" in cols, head
    row = next(x for x in out.splitlines() if x.split()[:1] in (["1*"], ["1"]))
    got = dict(zip(cols, row.split(), strict=False))
    assert (got["usr"], got["nice"], got["guest"]) == ("25.0", "55.0", "10.0"), row
    doc = show_document(snap, rates)
    cpu1 = doc["rates"]["cpus"]["1"]
    assert (cpu1["usr"], cpu1["nice"], cpu1["guest"]) == (25.0, 55.0, 10.0)
    total = sum(cpu1[k] for k in ("usr", "nice", "sys", "iowait", "irq", "soft", "steal"))
    assert round(total + cpu1["guest"] + cpu1["gnice"] + cpu1["idle"]) == 100
    # The advisor's evidence of a busy CPU names the rest of its time too.
    assert other_load(rates.cpus[1]) == "; also 25 % usr, 55 % nice, 10 % guest"
