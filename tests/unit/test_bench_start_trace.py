"""The start-up timeline's launcher (benchmarks/_start_trace.py) imports what it runs from
tuitune: when open_reader moved to cli/_common, the benchmark found no numbers on screen and
BENCHMARKS.md lost its start-up table for a round, silently. No timing here."""

from __future__ import annotations

from benchmarks import _start_trace
from tuitune.cli._common import open_reader
from tuitune.tui.app import TuituneApp


def test_the_trace_finds_the_reader_and_the_app_it_runs() -> None:
    assert _start_trace.imports() == (open_reader, TuituneApp)
