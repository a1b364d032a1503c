"""`tuitune sweep --svg FILE`: the pivot as an SVG chart, one bar a cell with its whisker,
well-formed whatever a spec's labels or source say (they are someone else's text)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.core.sweep.test_sweep_pivot import NUMBERS, SPEC, _runs
from tuitune.cli.sweep import _write_svg
from tuitune.core.sweep import pivot
from tuitune.core.sweep.svg import to_svg

NS = "{http://www.w3.org/2000/svg}"


def test_one_bar_and_one_whisker_a_measured_cell() -> None:
    table = pivot.build(SPEC, "t-x-1", _runs(NUMBERS))
    doc = ET.fromstring(to_svg(table))
    bars = [r for r in doc.iter(f"{NS}rect") if r.find(f"{NS}title") is not None]
    assert len(bars) == len(NUMBERS)  # five measured cells; "sg off, mtu 9000" was not
    texts = [t.text or "" for t in doc.iter(f"{NS}text")]
    assert "not measured" in texts
    assert any(t.startswith("15100 Mb/s (15000..15400)") for t in texts)
    assert any(t.startswith("12900 Mb/s (12600..13000) -15%") for t in texts)
    # Lengths on one scale: the 19100 bar is longer than the 10300 one.
    width = {b.find(f"{NS}title").text: float(b.get("width", "0")) for b in bars}  # type: ignore[union-attr]
    assert width["baseline, mtu 9000"] > width["sg off, mtu 1500"] > 0
    whiskers = [ln for ln in doc.iter(f"{NS}line") if ln.get("y1") == ln.get("y2")]
    assert len(whiskers) == len(NUMBERS)


def test_a_hostile_source_stays_text() -> None:
    spec = replace(SPEC, source='</text><script>alert("x")</script><text>')
    text = to_svg(pivot.build(spec, "t-x-1", _runs(NUMBERS)))
    doc = ET.fromstring(text)
    assert not [e for e in doc.iter() if e.tag.endswith("script")]
    assert any("<script>" in (t.text or "") for t in doc.iter(f"{NS}text"))


def test_the_file_is_written_or_one_line_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = pivot.build(SPEC, "t-x-1", _runs(NUMBERS))
    assert _write_svg(tmp_path / "t2.svg", table)
    ET.parse(tmp_path / "t2.svg")
    (tmp_path / "dir.svg").mkdir()
    assert not _write_svg(tmp_path / "dir.svg", table)
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("tuitune: chart not written: ") and "dir.svg" in lines[-1]
