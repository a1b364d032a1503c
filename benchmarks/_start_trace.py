"""`tuitune IFACE --interval S` with the time of each start-up phase noted, for
bench_timeline.py: OUT IFACE [--interval S]. On exit it writes OUT (JSON): per phase the
wall clock (epoch seconds, comparable with the launcher's) and this process's CPU seconds.

Run by whichever Python is given (this repository's venv, or another checkout's), it imports
only the standard library and tuitune, so the same phases are taken of either tree. Nothing
in tuitune changes: the App is a subclass that notes the time in compose, in its Mount
handler (Textual calls it before the App's own) and when the first sample reaches the UI
thread.
"""

from __future__ import annotations

import time

MARKS: dict[str, tuple[float, float]] = {"python": (time.time(), time.process_time())}

import json  # noqa: E402  (after the first mark: the interpreter's start ends there)
import sys  # noqa: E402
from typing import Any  # noqa: E402


def mark(name: str) -> None:
    if name not in MARKS:
        MARKS[name] = (time.time(), time.process_time())


def imports() -> tuple[Any, Any]:
    """tuitune's reader opener and App, from this tree or an older one (open_reader moved
    from cli/live to cli/_common, and the timeline missed it for a round: its test now)."""
    try:
        from tuitune.cli._common import open_reader
    except ImportError:  # a tree from before cli/_common held it
        from tuitune.cli.live import open_reader  # type: ignore[attr-defined,no-redef]
    from tuitune.tui.app import TuituneApp

    return open_reader, TuituneApp


def main() -> int:
    out, iface = sys.argv[1], sys.argv[2]
    interval = float(sys.argv[4]) if sys.argv[3:4] == ["--interval"] else 1.0
    import textual.app  # noqa: F401

    mark("textual.app imported")
    open_reader, TuituneApp = imports()

    mark("tuitune.tui.app imported")

    class Traced(TuituneApp):
        def compose(self) -> Any:
            mark("compose")
            yield from super().compose()

        def on_mount(self) -> None:  # Textual calls the App's own on_mount after this one
            mark("mount")

        def on_tuitune_app_sample_ready(self, message: TuituneApp.SampleReady) -> None:
            mark("first sample")

    reader = open_reader(None, None, interval)
    if reader is None:
        return 2
    with reader:
        reader.check_interface(iface)
        mark("reader open")
        app = Traced(reader, iface, interval=interval)
        mark("app built")
        app.run()
    with open(out, "w") as f:
        json.dump(MARKS, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
