"""The autotune report as Markdown: what was tried, each step's runs with their spread, what
was kept or put back and why, and the final gain against the baseline with its interval."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from tuitune.core.autotune.search import Outcome
from tuitune.core.procs.model import printable


def _t(value: object) -> str:
    """Text from outside (names, kernel refusals) safe in a terminal and a Markdown table."""
    return printable(str(value), 400).replace("|", "\\|")


def _cells(values: Sequence[float]) -> str:
    if not values:
        return "- | - | -"
    runs = ", ".join(f"{v:.1f}" for v in values)
    return f"{statistics.median(values):.1f} | {min(values):.1f}..{max(values):.1f} | {runs}"


def factorial_lines(out: Outcome[Any]) -> list[str]:
    """Each interacting pair as its 2x2 table of medians, and what was made of it."""
    med = {t.candidate.id: t.values for t in out.tried}
    lines: list[str] = []
    for f in out.factorials:
        a, b = _t(f.a), _t(f.b)

        def m(vs: Sequence[float]) -> str:
            return f"{statistics.median(vs):.1f}" if vs else "-"

        lines += [
            "",
            f"Factorial {a} x {b} (medians; the two may not add):",
            "",
            f"| | {b} as found | {b} on |",
            "| --- | --- | --- |",
            f"| {a} as found | {m(out.baseline)} | {m(med.get(f.b, []))} |",
            f"| {a} on | {m(med.get(f.a, []))} | {m(f.values)} |",
            "",
            f"- {_t(f.why)}",
        ]
    return lines


def chart(out: Outcome[Any], width: int = 32, ascii_only: bool = False) -> list[str]:
    """Each measured step as a bar (its median) with its min..max as a whisker, on one scale,
    in a fenced block (Markdown keeps it as drawn; the screen shows the same lines)."""
    from tuitune.core.sweep.chart import Item, draw

    steps = [("baseline", out.baseline), *((t.candidate.id, t.values) for t in out.tried)]
    if out.final:
        steps.append(("kept set together", out.final))
    measured = [(name, vs) for name, vs in steps if vs]
    if not measured:
        return []
    base = statistics.median(out.baseline) if out.baseline else None
    items = []
    for name, vs in measured:
        mid = statistics.median(vs)
        pct = None if base is None or name == "baseline" else (mid / base - 1) * 100
        items.append(Item(printable(name, 40), mid, min(vs), max(vs), pct))
    unit = "Mb/s" if out.higher_better else "us"
    bars = draw(items, width, ascii_only, fmt=lambda v: f"{v:.1f}", unit=unit)
    pad = max(len(b.label) for b in bars)
    better = "longer" if out.higher_better else "shorter"
    return [
        f"Chart (median, min..max whisker; {better} is better):",
        "",
        "```text",
        *(f"{b.label:<{pad}}  {b.bar}  {b.value}" for b in bars),
        "```",
    ]


def to_markdown(
    out: Outcome[Any],
    ifname: str,
    peer: str,
    run_id: str,
    skipped: Sequence[str],
    ns_flag: str = "",
    chart_width: int = 32,
) -> str:
    unit = "Mb/s" if out.higher_better else "us round trip (median)"
    lines = [
        f"# autotune {run_id}: {_t(ifname)} -> {_t(peer)}",
        "",
        f"Goal: {out.goal} ({unit}, {'higher' if out.higher_better else 'lower'} is better). "
        f"{out.runs} run(s), recorded in the notebook with the tag `sweep: {run_id}` "
        "(`tuitune runs`).",
        "",
        "| step | median | min..max | runs | verdict |",
        "| --- | --- | --- | --- | --- |",
        f"| baseline | {_cells(out.baseline)} | |",
    ]
    for t in out.tried:
        lines.append(f"| {_t(t.candidate.id)} | {_cells(t.values)} | {_t(t.why)} |")
    if out.final:
        word = "kept" if out.kept else "put back"
        lines.append(f"| kept set together | {_cells(out.final)} | {word}: {_t(out.note)} |")
    lines.append("")
    for t in out.tried:
        changes = ", ".join(
            f"{k.label if hasattr(k, 'label') else k} = {v}" for k, v in t.candidate.changes
        )
        lines.append(f"- `{t.candidate.id}` ({t.candidate.title}): {changes}")
    for line in skipped:
        lines.append(f"- not tried: {line}")
    lines += factorial_lines(out)
    drawn = chart(out, chart_width)
    lines += ["", *drawn, ""] if drawn else [""]
    g = out.final_gain()
    if out.kept and g is not None:
        mid, low, high = g
        names = ", ".join(c.id for c in out.kept)
        lines.append(
            f"**Final: {mid:+.1f}% against the baseline** (interval {low:+.1f}%..{high:+.1f}%: "
            "the worst and best pairing of the two min..max ranges of the repeats). "
            f"Kept: {_t(names)} ({_t(out.note)}). The change journal holds them: "
            f"`tuitune restore{ns_flag}` {'put' if '` and `' in ns_flag else 'puts'} them "
            "back; nothing is persisted "
            "(`tuitune export` writes them for the next boot)."
        )
    else:
        lines.append(f"**Nothing kept**: {_t(out.note or 'no candidate')}.")
    return "\n".join(lines) + "\n"
