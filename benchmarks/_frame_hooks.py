"""`tuitune ARGS` with timers around the parts of a frame, for bench_frame.py only: the product
is not changed, the hooks live in this process. SIGUSR1 opens a window (counters reset),
SIGUSR2 closes it and writes the window's figures as JSON to $TUITUNE_FRAME_OUT (renamed
into place, so the reader never sees half a file).

Parts, all CPU time of the main thread (time.thread_time):
* presenters: TuituneApp.on_tuitune_app_sample_ready, our code building the rows;
* compositor: Screen._on_timer_update (and _refresh_layout, _compositor_refresh,
  Compositor.update_widgets when called on their own), Textual's layout, finding what
  changed and repainting the widgets under the changed regions (Widget.render_lines, per
  widget below), without the terminal write nested in it;
* terminal write: App._display, the frame turned into escape sequences and queued to the
  output thread;
* other: the rest of the main thread (the message loop, timers, input).
"""

from __future__ import annotations

import collections
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

ON = [False]
PHASES: dict[str, float] = collections.defaultdict(float)
CALLS: collections.Counter[str] = collections.Counter()
WIDGETS: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0])  # calls, s, lines
CHANGED: list[int] = []  # widgets handed to each update_widgets (their content changed)
START: dict[str, float] = {}


DEPTH: collections.Counter[str] = collections.Counter()  # open calls per part


def _timed(cls: Any, name: str, key: str) -> None:
    """Time `cls.name` under `key`; a call nested in another of the same key (Textual's
    layout pass calls its repaint) counts once, with the outer one."""
    orig: Callable[..., Any] = getattr(cls, name)

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not ON[0] or DEPTH[key]:
            return orig(self, *args, **kwargs)
        DEPTH[key] += 1
        t0 = time.thread_time()
        try:
            return orig(self, *args, **kwargs)
        finally:
            DEPTH[key] -= 1
            PHASES[key] += time.thread_time() - t0
            CALLS[key] += 1

    setattr(cls, name, wrapper)


def install() -> None:
    from textual._compositor import Compositor
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

    from tuitune.tui.app import TuituneApp

    orig_lines = Widget.render_lines

    def render_lines(self: Widget, crop: Any) -> Any:
        if not ON[0]:
            return orig_lines(self, crop)
        t0 = time.thread_time()
        lines = orig_lines(self, crop)
        w = WIDGETS[f"{type(self).__name__}#{self.id or '-'}"]
        w[0] += 1
        w[1] += time.thread_time() - t0
        w[2] += len(lines)
        return lines

    Widget.render_lines = render_lines  # type: ignore[method-assign]

    orig_update = Compositor.update_widgets

    def update_widgets(self: Compositor, widgets: set[Widget]) -> None:
        if ON[0]:
            CHANGED.append(len(self.visible_widgets.keys() & widgets))
        orig_update(self, widgets)

    Compositor.update_widgets = update_widgets  # type: ignore[method-assign]
    for name in ("_on_timer_update", "_refresh_layout", "_compositor_refresh"):
        _timed(Screen, name, "compositor")
    _timed(Compositor, "update_widgets", "compositor")
    _timed(App, "_display", "display")
    _timed(TuituneApp, "on_tuitune_app_sample_ready", "presenters")


def start(signum: int, frame: FrameType | None) -> None:
    PHASES.clear()
    CALLS.clear()
    WIDGETS.clear()
    CHANGED.clear()
    START["cpu"], START["wall"] = time.thread_time(), time.monotonic()
    ON[0] = True


def stop(signum: int, frame: FrameType | None) -> None:
    ON[0] = False
    doc = {
        "main_cpu_s": time.thread_time() - START["cpu"],
        "wall_s": time.monotonic() - START["wall"],
        "ticks": CALLS["presenters"],
        "phases_s": dict(PHASES),
        "calls": dict(CALLS),
        "changed": list(CHANGED),
        "widgets": {k: {"calls": v[0], "cpu_s": v[1], "lines": v[2]} for k, v in WIDGETS.items()},
    }
    out = Path(os.environ["TUITUNE_FRAME_OUT"])
    tmp = out.with_suffix(".part")
    tmp.write_text(json.dumps(doc))
    tmp.rename(out)


if __name__ == "__main__":
    install()
    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    from tuitune.cli import main

    sys.argv[0] = "tuitune"
    raise SystemExit(main())
