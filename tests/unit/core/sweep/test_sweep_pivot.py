"""The pivot of a sweep's runs: each cell the median of its repeats with their range, in the
spec's order, whatever order the cells were measured in; the same cells as Markdown, CSV and
JSON."""

from __future__ import annotations

import csv
import io
import json
import tomllib

import pytest

from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Run
from tuitune.core.sweep import pivot
from tuitune.core.sweep.plan import combinations
from tuitune.core.sweep.spec import parse

SPEC = parse(
    tomllib.loads(
        """
[sweep]
name = "t"
design = "one-at-a-time"
columns = "mtu"
repeats = 3
[[dimension]]
setting = "tso"
values = ["on", "off"]
[[dimension]]
setting = "sg"
values = ["on", "off"]
[[dimension]]
setting = "mtu"
values = [1500, 9000]
"""
    )
)


def _runs(numbers: dict[str, list[float]]) -> list[Run]:
    """Three repeats a cell, throughput in Mb/s as given, in the measuring order."""
    out: list[Run] = []
    for combo in combinations(SPEC):
        group = f"r{len(out) + 1}"
        for i, mb in enumerate(numbers.get(combo.label, [])):
            result = BenchResult(mb * 1e6, mb * 1e6, 10 * i, 50.0, 40.0)
            load = CpuLoad(peak_soft={0: 90.0 + i, 1: 5.0}, samples=3)
            settings = {d: v.label for d, v in combo.values}
            tags = {"sweep": "t-x-1", "cell": "\x1f".join(combo.key), "combination": combo.label}
            rid = f"r{len(out) + 1}"
            out.append(
                Run(rid, group, "eth0", "", BenchSpec("198.18.0.2"), result, load, settings, tags)
            )
    return out


NUMBERS = {
    "tso on, sg on, mtu 1500": [15000, 15100, 15400],
    "tso off, sg on, mtu 1500": [12900, 12600, 13000],
    "tso on, sg off, mtu 1500": [10300, 10300, 10300],
    "tso on, sg on, mtu 9000": [19100, 19000, 19200],
    "tso off, sg on, mtu 9000": [19000, 18800, 19100],
    # "tso on, sg off, mtu 9000" not measured (interrupted)
}


def test_cells_are_medians_with_their_range_in_the_spec_order() -> None:
    p = pivot.build(SPEC, "t-x-1", _runs(NUMBERS))
    assert p.rows == ["baseline", "tso off", "sg off"]
    assert p.columns == ["1500", "9000"]
    assert pivot.cell_text(p.cells[("baseline", "1500")]) == (
        "15100 (15000..15400), 10 retr, soft 92% cpu0"
    )
    assert pivot.cell_text(p.cells[("sg off", "1500")]).startswith("10300, ")
    assert ("sg off", "9000") not in p.cells
    text = pivot.to_text(p).splitlines()
    assert text[0] == "sweep t-x-1 (one-at-a-time, 3 repeat(s) a cell)"
    row = next(line for line in text if line.startswith("sg off"))
    assert row.rstrip().endswith("-")  # the cell never measured


def test_markdown_csv_and_json_carry_the_same_cells() -> None:
    p = pivot.build(SPEC, "t-x-1", _runs(NUMBERS))
    md = pivot.to_markdown(p).splitlines()
    assert "| setting \\ mtu | 1500 | 9000 |" in md
    assert any(line.startswith("| tso off | 12900 (12600..13000) -15%, 10 retr") for line in md)
    # The notebook's own table of the runs follows the pivot.
    assert any(line.startswith("| run | setting | value | throughput (Mb/s) |") for line in md)

    rows = list(csv.DictReader(io.StringIO(pivot.to_csv(p))))
    assert len(rows) == 6
    first = rows[0]
    assert (first["tso"], first["sg"], first["mtu"]) == ("on", "on", "1500")
    assert (first["throughput_mbps"], first["throughput_min_mbps"]) == ("15100.0", "15000.0")
    missing = next(r for r in rows if (r["sg"], r["mtu"]) == ("off", "9000"))
    assert missing["throughput_mbps"] == ""

    doc = json.loads(pivot.to_json(p))
    assert doc["schema"] == "tuitune.sweep" and doc["columns"] == "mtu"
    cell = next(c for c in doc["cells"] if (c["row"], c["column"]) == ("tso off", "9000"))
    assert cell["throughput_mbps"] == {"median": 19000.0, "min": 18800.0, "max": 19100.0}
    assert cell["peak_soft"] == {"cpu": 0, "pct": 92.0}
    assert cell["vs_first_row"] == {"pct": -0.52, "within_noise": True}
    off = next(c for c in doc["cells"] if (c["row"], c["column"]) == ("tso off", "1500"))
    assert off["vs_first_row"]["within_noise"] is False
    assert off["ci95_mbps"] == [pytest.approx(12316.2, abs=0.1), pytest.approx(13350.5, abs=0.1)]
    assert sum(not c["measured"] for c in doc["cells"]) == 1


def test_a_cell_measured_again_counts_its_newest_group() -> None:
    runs = _runs(NUMBERS)
    again = [r for r in runs if r.tags["combination"] == "tso off, sg on, mtu 1500"]
    later = [
        Run(
            f"r{100 + i}",
            "r100",
            r.ifname,
            "",
            r.spec,
            BenchResult(1e9, 1e9, 0, 1.0, 1.0),
            r.load,
            r.settings,
            r.tags,
        )
        for i, r in enumerate(again)
    ]
    p = pivot.build(SPEC, "t-x-1", runs + later)
    assert pivot.cell_text(p.cells[("tso off", "1500")]).startswith("1000, ")


def test_a_pivot_wider_than_the_terminal_is_one_line_a_cell() -> None:
    p = pivot.build(SPEC, "t-x-1", _runs(NUMBERS))
    wide = pivot.to_text(p).splitlines()
    assert max(len(line) for line in wide) > 80
    narrow = pivot.to_text(p, 80).splitlines()
    assert max(len(line) for line in narrow[4:]) <= 80
    assert "tso off   mtu 9000  19000 (18800..19100) -1% noise, 10 retr, soft 92% cpu0" in narrow
