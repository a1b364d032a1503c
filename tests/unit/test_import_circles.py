"""Seams, not size (issue 37): no import circle inside tuitune/ and no private name (`_x`) taken
from another module, except the ones listed below, each with why it is still there.

The lists only shrink: a circle or a private import not listed fails, and so does a listed one
that is gone (delete its line, so the list keeps telling the truth). Two graphs are checked:
module-level imports (TYPE_CHECKING blocks included), and the same with the imports deferred
into function bodies, which hide a circle from the interpreter but not from the reader.
The graph is read from the source (tests/support/imports.py), so this runs in milliseconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.imports import ImportGraph, build_graph

PACKAGE = Path(__file__).resolve().parents[2] / "tuitune"


def _names(*short: str) -> frozenset[str]:
    return frozenset(f"tuitune.{s}" for s in short)


# circle -> why it is still there (none: the kinds table's circle went with issue 37 step 1,
# the handlers' narrow port, kinds/port.py)
MODULE_LEVEL: dict[frozenset[str], str] = {}

# Circles of the graph with deferred imports too (the module-level ones appear here as well).
# None: cli.live <-> cli.record went when the reader's opening moved to cli/_common.py and
# `replay` (the live screen on a recording) to cli/live.py; cli <-> cli.completion when cli/
# began handing completion the parser it completes.
WITH_DEFERRED: dict[frozenset[str], str] = {**MODULE_LEVEL}

# (importer, owner, name) -> why
PRIVATE: dict[tuple[str, str, str], str] = {}
_PRIVATE_GROUPS: list[tuple[str, str, tuple[str, ...], str]] = [
    (
        "core.host.tickreads",
        "core.host.procfs",
        ("_counts", "_digits", "_header_cpus"),
        "the procfs parsers' pieces, reused by the tick reader",
    ),
]
for _importer, _owner, _privates, _why in _PRIVATE_GROUPS:
    for _name in _privates:
        PRIVATE[(f"tuitune.{_importer}", f"tuitune.{_owner}", _name)] = _why


@pytest.fixture(scope="module")
def graph() -> ImportGraph:
    found = build_graph(PACKAGE)
    assert len(found.modules) > 200 and len(found.edges) > 1000  # the walk found the package
    return found


def _describe(graph: ImportGraph, circle: frozenset[str], deferred: bool) -> str:
    lines = [f"  {sorted(circle)}"]
    for e in graph.edges_within(circle, deferred=deferred):
        where = " (in a function)" if e.deferred else ""
        lines.append(f"    {e.source}:{e.line} -> {e.target}{where}")
    return "\n".join(lines)


@pytest.mark.parametrize("deferred", [False, True], ids=["module-level", "with-deferred"])
def test_no_import_circle_beyond_the_list(graph: ImportGraph, deferred: bool) -> None:
    allowed = WITH_DEFERRED if deferred else MODULE_LEVEL
    circles = graph.circles(deferred=deferred)
    new = [c for c in circles if not any(c <= a for a in allowed)]
    assert not new, "import circles not in the list:\n" + "\n".join(
        _describe(graph, c, deferred) for c in new
    )
    in_circles = frozenset().union(*circles)
    gone = sorted({m for a in allowed for m in a} - in_circles)
    assert not gone, f"no longer in a circle: take them out of the list: {gone}"


def test_no_private_name_taken_across_modules_beyond_the_list(graph: ImportGraph) -> None:
    used = {(p.source, p.owner, p.name): p.line for p in graph.private}
    new = sorted(
        f"{s}:{line} takes {n} from {o}"
        for (s, o, n), line in used.items()
        if (s, o, n) not in PRIVATE
    )
    assert not new, (
        "private names taken from another module (make them public, or move the code):\n"
        + "\n".join(new)
    )
    gone = sorted(k for k in PRIVATE if k not in used)
    assert not gone, f"no longer taken: take them out of the list: {gone}"


def test_the_reader_sees_a_circle_and_a_private_import(tmp_path: Path) -> None:
    """The graph reader itself: a two-module circle through a deferred import, one at module
    level, and a private name, in a made-up package."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import _hidden\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n_hidden = 1\n")
    (pkg / "c.py").write_text("from . import d\n")
    (pkg / "d.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.c\n"
    )
    g = build_graph(pkg)
    assert g.circles(deferred=False) == [frozenset({"pkg.c", "pkg.d"})]
    assert sorted(map(sorted, g.circles(deferred=True))) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"]]
    assert [(p.source, p.owner, p.name) for p in g.private] == [("pkg.a", "pkg.b", "_hidden")]
