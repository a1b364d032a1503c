"""The presenters' Scene (tui/scene.py, issue 37 item 5) holds what they read and the methods
their output goes through, nothing else: no widget (the panels, the header, the body, the
heat map), no controller, no sampler, recording or change session to drive, none of a
widget's own methods (`has_class`, `call_after_refresh`). The import-linter contract
`presenters-see-no-widgets` keeps the modules out; this keeps the types out of its members."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterator

from textual.dom import DOMNode

from tuitune.core.record.live import LiveRecording
from tuitune.core.session import Session
from tuitune.core.watch.sampler import Sampler
from tuitune.tui import scene

# What a presenter would drive, not read: a widget, the sampler, the recording, the session
# that writes to the kernel.
DRIVEN = (DOMNode, Sampler, LiveRecording, Session)


def _members(protocol: type) -> dict[str, object]:
    """Each member's type: an attribute's annotation, a property's or a method's signature."""
    out: dict[str, object] = dict(typing.get_type_hints(protocol))
    for name, value in vars(protocol).items():
        if isinstance(value, property) and value.fget is not None:
            out[name] = typing.get_type_hints(value.fget).get("return")
        elif inspect.isfunction(value) and not name.startswith("_"):
            out[name] = tuple(typing.get_type_hints(value).values())
    return out


def _classes(t: object) -> Iterator[type]:
    if isinstance(t, tuple):
        for x in t:
            yield from _classes(x)
        return
    if isinstance(t, type):
        yield t
    for arg in typing.get_args(t):
        yield from _classes(arg)
    origin = typing.get_origin(t)
    if isinstance(origin, type):
        yield origin


def test_the_scene_holds_no_widget_controller_or_sampler() -> None:
    found = {
        name: cls.__qualname__
        for protocol in (scene.Scene, scene.PanelShown)
        for name, t in _members(protocol).items()
        for cls in _classes(t)
        if issubclass(cls, DRIVEN) or cls.__module__.startswith("tuitune.tui.controllers")
    }
    assert found == {}
    assert "panel" in _members(scene.Scene) and "editor" in _members(scene.Scene)  # found any


def test_the_scene_has_no_widget_methods() -> None:
    own = {n for n in vars(scene.Scene) if not n.startswith("_")}
    widget = {n for n in dir(DOMNode) if not n.startswith("_")}
    assert own & widget == set()


def test_what_the_presenters_read_of_the_controllers_only_reads() -> None:
    """The editor's and the advisor's faces (and a panel's) have no method a presenter could
    drive them with: each gives a value. The advisor is fed each sample by the App, not by the
    presenter (view.py did, through a `feed` here)."""
    for protocol in (scene.EditsShown, scene.FindingsShown, scene.PanelShown):
        for name, value in vars(protocol).items():
            if inspect.isfunction(value) and not name.startswith("_"):
                returns = typing.get_type_hints(value).get("return")
                assert returns not in (None, type(None)), f"{protocol.__name__}.{name}"
