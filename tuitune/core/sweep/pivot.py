"""A sweep's runs as the reports print them: a pivot table whose rows are the settings tried
and whose columns are the `columns` dimension (MTU in NASA's Table 2), each cell the median
throughput over the repeats with its range (the noise), retransmits and the busiest CPU in
softirq. As text, Markdown, CSV and JSON. The per-cell numbers are the notebook's own results
table (runtable.build_rows), and the runs under it are that table (runformat)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass

from tuitune.core.bench import runformat
from tuitune.core.bench.model import BenchResult, Run
from tuitune.core.bench.runformat import CSV_FIELDS, csv_row, mbps_of
from tuitune.core.bench.runtable import RunRow, build_rows, spec_summary
from tuitune.core.sweep.plan import Combination, column_label, combinations, row_label
from tuitune.core.sweep.spec import SweepSpec
from tuitune.core.sweep.stats import Summary, Versus, summarize, versus


@dataclass(frozen=True, slots=True)
class Pivot:
    spec: SweepSpec
    sweep_id: str
    rows: list[str]  # row labels, in the spec's order
    columns: list[str]  # column labels ([""] without a columns dimension)
    cells: dict[tuple[str, str], RunRow]  # (row, column) -> the cell's results
    combos: dict[tuple[str, str], Combination]
    test: str  # the iperf3 test the runs share ("198.18.0.2, 10 s, 1 stream")
    table: list[RunRow]  # every cell's row of the notebook's results table
    summaries: dict[tuple[str, str], Summary]  # throughput (bits/s) of each measured cell
    seed: int | None = None  # the shuffle's seed the runs recorded (None: not shuffled)

    @property
    def order(self) -> str:
        """How the cells were measured, so the same order can be asked for again."""
        return "snake" if self.seed is None else f"shuffled, seed {self.seed}"

    def versus(self, row: str, column: str) -> Versus | None:
        """The cell against the first row of its column (the baseline, in Table 2)."""
        base = self.summaries.get((self.rows[0], column))
        cell = self.summaries.get((row, column))
        if row == self.rows[0] or base is None or cell is None:
            return None
        return versus(cell, base)


def _natural(spec: SweepSpec, combo: Combination) -> tuple[int, ...]:
    """The order a reader expects: the spec's dimension and value order (not the measuring
    order); one-at-a-time: the baseline, then each dimension's values in turn."""
    index = {d.name: d for d in spec.dimensions}
    pos = [index[d].values.index(v) for d, v in combo.values]
    if spec.design == "grid":
        return tuple(pos)
    moved = [i for i, (d, _) in enumerate(combo.values) if d != spec.columns and pos[i] > 0]
    first = moved[0] + 1 if moved else 0
    return (first, pos[moved[0]] if moved else 0)


def build(spec: SweepSpec, sweep_id: str, runs: Sequence[Run]) -> Pivot:
    """The pivot of `runs` (those of one sweep): each cell's last complete group."""
    combos = sorted(combinations(spec), key=lambda c: _natural(spec, c))
    by_cell: dict[str, list[Run]] = {}
    for run in runs:
        by_cell.setdefault(run.tags.get("cell", ""), []).append(run)
    rows: list[str] = []
    columns: list[str] = []
    chosen: list[Run] = []
    where: dict[str, tuple[str, str]] = {}
    combo_at: dict[tuple[str, str], Combination] = {}
    for combo in combos:
        r, c = row_label(spec, combo), column_label(spec, combo)
        rows += [r] if r not in rows else []
        columns += [c] if c not in columns else []
        combo_at[(r, c)] = combo
        found = by_cell.get("\x1f".join(combo.key), [])
        if found:
            last = found[-1].group  # a resumed cell run again: its newest group counts
            group = [x for x in found if x.group == last]
            chosen += group
            where[last] = (r, c)
    base = chosen[0].group if chosen else None
    table = build_rows(chosen, base)
    cells = {where[row.group]: row for row in table}
    test = spec_summary(chosen[0].spec) if chosen else ""
    summaries: dict[tuple[str, str], Summary] = {}
    for gid, at in where.items():
        done = [measure(r.result) for r in chosen if r.group == gid and r.result.complete]
        summary = summarize([v for v in done if v is not None])
        if summary is not None:
            summaries[at] = summary
    seeds = [r.tags.get("seed", "") for r in chosen]
    seed = next((int(x) for x in seeds if x.isascii() and x.isdigit() and len(x) <= 10), None)
    return Pivot(spec, sweep_id, rows, columns, cells, combo_at, test, table, summaries, seed)


def measure(result: BenchResult) -> float | None:
    """What a cell compares: throughput (bits/s), or for a latency run the median round trip
    (microseconds; lower is better)."""
    if result.throughput_bps is None:
        return result.latency_median_us
    return result.throughput_bps


# -- cells as text ---------------------------------------------------------------------------
def cell_text(row: RunRow | None, vs: Versus | None = None) -> str:
    """ "9412 (9301..9500) -12% noise, 12 retr, soft 98% cpu0" (Mb/s); "-" when not
    measured. `vs`: against the baseline, "noise" when the difference is within the noise."""
    if row is None:
        return "-"
    tp = row.throughput
    if tp.median is None and row.latency.median is not None:
        text = runformat.latency_text(row)
        if vs is not None and vs.pct is not None:
            text += f" {vs.pct:+.0f}%" + (" noise" if vs.within_noise else "")
        return text
    if tp.median is None:
        return "failed" if row.error else "-"
    text = mbps_of(tp.median)
    if tp.low is not None and tp.high is not None and tp.low != tp.high:
        text += f" ({mbps_of(tp.low)}..{mbps_of(tp.high)})"
    if vs is not None and vs.pct is not None:
        text += f" {vs.pct:+.0f}%" + (" noise" if vs.within_noise else "")
    if row.retransmits.median is not None:
        text += f", {row.retransmits.median:.0f} retr"
    if row.peak_soft is not None:
        text += f", soft {row.peak_soft[1]:.0f}% cpu{row.peak_soft[0]}"
    return text


def _header(p: Pivot, wrap: bool = True) -> list[str]:
    s = p.spec
    lines = [
        f"sweep {p.sweep_id} ({s.design}, {s.repeats} repeat(s) a cell)",
        f"test: {p.test or '-'}; order: {p.order}",
        "cells: median Mb/s (min..max of the repeats), % against the first row",
        "       (noise: the 95% intervals overlap), retransmits, busiest softirq CPU",
    ]
    if not wrap:
        lines[-2:] = [lines[-2] + " " + lines[-1].strip()]
    if s.source:
        lines.insert(1, f"source: {s.source}")
    return lines


def _grid(p: Pivot) -> list[list[str]]:
    corner = p.spec.columns or "setting"
    head = [corner if p.spec.columns is None else f"setting \\ {corner}"]
    head += [c or "result" for c in p.columns]
    body = [
        [r] + [cell_text(p.cells.get((r, c)), p.versus(r, c)) for c in p.columns] for r in p.rows
    ]
    return [head, *body]


def to_text(p: Pivot, width: int | None = None) -> str:
    """The pivot with aligned columns; wider than `width`, one line a cell instead (a
    terminal of 80 columns holds a two-column pivot of full cells only that way)."""
    grid = _grid(p)
    widths = [max(len(line[i]) for line in grid) for i in range(len(grid[0]))]
    out = [*_header(p), ""]
    if width is not None and sum(widths) + 2 * (len(widths) - 1) > width and p.spec.columns:
        label = max(len(r) for r in p.rows)
        col = max(len(c) for c in p.columns) + len(p.spec.columns) + 1
        for r in p.rows:
            for c in p.columns:
                where = f"{p.spec.columns} {c}"
                cell = cell_text(p.cells.get((r, c)), p.versus(r, c))
                out.append(f"{r.ljust(label)}  {where.ljust(col)}  {cell}".rstrip())
        return "\n".join(out) + "\n"
    for line in grid:
        out.append("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    return "\n".join(out) + "\n"


def to_markdown(p: Pivot) -> str:
    grid = _grid(p)
    out = [f"*{line}*" if i else f"**{line}**" for i, line in enumerate(_header(p, wrap=False))]
    out += ["", "| " + " | ".join(grid[0]) + " |", "|" + "---|" * len(grid[0])]
    for line in grid[1:]:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in line) + " |")
    out += ["", "Every run of the sweep (the notebook's table):", ""]
    return "\n".join(out) + "\n" + runformat.to_markdown(p.table)


def runs_text(p: Pivot) -> str:
    """The sweep's runs as `tuitune runs` prints them."""
    return runformat.to_text(p.table)


def to_csv(p: Pivot) -> str:
    """One line per cell: the sweep, each dimension's value, then the notebook's CSV columns."""
    dims = [d.name for d in p.spec.dimensions]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["sweep", *dims, *CSV_FIELDS])
    for r in p.rows:
        for c in p.columns:
            combo = p.combos[(r, c)]
            row = p.cells.get((r, c))
            values = [v.label for _, v in combo.values]
            w.writerow([p.sweep_id, *values, *(csv_row(row) if row else [""] * len(CSV_FIELDS))])
    return buf.getvalue()


def _ci(s: Summary | None) -> list[float] | None:
    return None if s is None or s.ci is None else [round(x / 1e6, 3) for x in s.ci]


def _vs(v: Versus | None) -> dict[str, object] | None:
    if v is None:
        return None
    pct = None if v.pct is None else round(v.pct, 2)
    return {"pct": pct, "within_noise": v.within_noise}


def to_json(p: Pivot) -> str:
    def num(v: float | None, scale: float = 1.0) -> float | None:
        return None if v is None else round(v / scale, 3)

    cells = []
    for r in p.rows:
        for c in p.columns:
            combo = p.combos[(r, c)]
            row = p.cells.get((r, c))
            cell: dict[str, object] = {
                "row": r,
                "column": c,
                "values": {d: v.label for d, v in combo.values},
                "measured": row is not None,
            }
            if row is not None:
                cell.update(
                    runs=list(row.ids),
                    complete=row.complete,
                    throughput_mbps={
                        "median": num(row.throughput.median, 1e6),
                        "min": num(row.throughput.low, 1e6),
                        "max": num(row.throughput.high, 1e6),
                    },
                    retransmits={
                        "median": num(row.retransmits.median),
                        "min": num(row.retransmits.low),
                        "max": num(row.retransmits.high),
                    },
                    # Both ends' CPU as iperf3 reports it (%, whole host), medians.
                    cpu_pct={"local": num(row.cpu.median), "remote": num(row.remote_cpu.median)},
                    peak_soft=None
                    if row.peak_soft is None
                    else {"cpu": row.peak_soft[0], "pct": round(row.peak_soft[1], 1)},
                    changed=dict(row.changed),
                    ci95_mbps=_ci(p.summaries.get((r, c))),
                    vs_first_row=_vs(p.versus(r, c)),
                    error=row.error,
                )
            cells.append(cell)
    doc = {
        "schema": "tuitune.sweep",
        "version": 1,
        "sweep": p.sweep_id,
        "name": p.spec.name,
        "design": p.spec.design,
        "source": p.spec.source,
        "repeats": p.spec.repeats,
        "test": p.test,
        "dimensions": {d.name: [v.label for v in d.values] for d in p.spec.dimensions},
        "columns": p.spec.columns,
        "seed": p.seed,
        "cells": cells,
    }
    return json.dumps(doc, indent=2) + "\n"


__all__ = [
    "Pivot",
    "build",
    "cell_text",
    "runs_text",
    "to_csv",
    "to_json",
    "to_markdown",
    "to_text",
]
