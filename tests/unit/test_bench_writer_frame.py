"""BENCHMARKS.md says where the frame's time goes (issue 18, goal 4): the writer, fed the JSON
bench_frame.py printed in a recorded run (3 windows per rate), puts those figures in the
section's tables and its sentence naming the gap's cause. No timing here."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from benchmarks import writer
from benchmarks.bench_frame import per_tick
from benchmarks.run import collect

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "bench"


def _frame() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIX / "frame.json").read_text())
    return data


def _results(**more: object) -> dict[str, object]:
    return {"peers": json.loads((FIX / "peers_quick.json").read_text()), **more}


def _section(doc: str, interval: str) -> str:
    """The part of the document about one rate, up to the next heading."""
    start = doc.index(f"### `tuitune eth0 --interval {interval}`")
    end = min(i for i in (doc.find("\n## ", start), doc.find("\n### ", start + 4)) if i > 0)
    return doc[start:end]


def _row(text: str, first_cell: str) -> list[str]:
    line = next(ln for ln in text.splitlines() if ln.startswith(f"| {first_cell} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def _cell(xs: list[float], digits: int = 2) -> str:
    return f"{statistics.median(xs):,.{digits}f} ({min(xs):,.{digits}f}-{max(xs):,.{digits}f})"


def test_the_parts_table_and_the_cause_sentence_come_from_the_recorded_windows() -> None:
    data = _frame()
    doc = writer.render(_results(frame=data))
    assert "## Where the frame's time goes" in doc
    for run in data["runs"]:
        ws = run["windows"]
        assert len(ws) == 3
        sec = _section(doc, f"{run['interval_s']:g}")
        assert _row(sec, "main thread, all of it")[1] == _cell([w["main_ms"] for w in ws])
        assert _row(sec, "tuitune's presenters: building the rows from a sample")[1] == _cell(
            [w["presenters_ms"] for w in ws]
        )

        def med(key: str, ws: list[dict[str, Any]] = ws) -> float:
            return float(statistics.median(w[key] for w in ws))

        assert (
            f"of {med('main_ms'):.2f} ms of main-thread CPU a tick, Textual's compositor took "
            f"{med('compositor_ms'):.2f} ms repainting {med('repainted'):.1f} widgets of which "
            f"{med('changed'):.1f} had changed; tuitune's presenters "
            f"{med('presenters_ms'):.2f} ms; the terminal write {med('write_ms'):.2f} ms"
        ) in sec
        # Each widget's repaint per tick, median over the windows (0 where not repainted).
        for name in ws[0]["widgets"]:
            ms = [float(w["widgets"].get(name, {}).get("ms", 0.0)) for w in ws]
            assert _row(sec, f"`{name}`")[1] == _cell(ms)
        assert _row(sec, "1")[2] == f"{ws[0]['load_start']} / {ws[0]['load_end']}"


def test_the_textual_floor_at_the_same_rate_is_named_beside_the_cause() -> None:
    # The observer run's floor (bench_peers.floor_tool) at 4 Hz, none recorded at 1 Hz.
    results = _results(frame=_frame())
    obs = results["peers"]["observer"][1]  # type: ignore[index]
    assert obs["interval_s"] == 0.25
    for r in obs["rounds"]:
        r["tuitune_parts"]["floor_frame"] = 0.008  # CPU s/s: 2 ms per update at 4 Hz
    doc = writer.render(results)
    assert "the Textual floor (one line changed) 2.00 ms per update" in _section(doc, "0.25")
    assert "Textual floor" not in _section(doc, "1")


def test_a_missing_result_says_it_was_not_measured(tmp_path: Path) -> None:
    doc = writer.render(_results())
    assert "## Where the frame's time goes\n\nNot measured in this run.\n" in doc
    (tmp_path / "peers.json").write_text((FIX / "peers_quick.json").read_text())
    (tmp_path / "frame.error").write_text("`-m benchmarks.bench_frame`: exit 1")
    doc = writer.render(collect(tmp_path))
    assert "Not measured in this run (`-m benchmarks.bench_frame`: exit 1)." in doc
    (tmp_path / "frame.error").unlink()
    (tmp_path / "frame.json").write_text((FIX / "frame.json").read_text())
    assert collect(tmp_path)["frame"] == _frame()


def test_a_window_is_split_per_tick_with_the_terminal_write_out_of_the_compositor() -> None:
    # Textual's _display runs inside _compositor_refresh: counted once, as the write.
    raw = {
        "main_cpu_s": 0.1,
        "wall_s": 4.0,
        "ticks": 4,
        "phases_s": {"compositor": 0.06, "display": 0.01, "presenters": 0.02},
        "calls": {},
        "changed": [3, 3, 3, 3],
        "widgets": {
            "CpuList#cpu-list": {"calls": 4, "cpu_s": 0.02, "lines": 40},
            "Footer#-": {"calls": 8, "cpu_s": 0.004, "lines": 8},
        },
    }
    got = per_tick(raw)
    assert (got["main_ms"], got["compositor_ms"], got["write_ms"]) == (25.0, 12.5, 2.5)
    assert (got["presenters_ms"], got["other_ms"], got["widgets_ms"]) == (5.0, 5.0, 6.0)
    assert (got["repainted"], got["changed"]) == (3.0, 3.0)
    assert got["widgets"]["Footer#-"] == {"ms": 1.0, "calls": 2.0, "lines": 2.0}
