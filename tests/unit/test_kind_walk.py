"""The feature walk, held (issue 37 step 2, docs/architecture.md): a kind with a kernel read of
its own (a handler with a `platform_read`: FEC) is named in code only by its handler's module,
the kind table and settings.py (its catalog data); its tests and the catalog's TOML are not
scanned. Comments and docstrings may use it as an example. The exceptions only shrink."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tuitune.core.session.kinds.table import HANDLERS, PLATFORM_READS

PACKAGE = Path(__file__).resolve().parents[2] / "tuitune"
ALWAYS = {"core/session/kinds/table.py", "core/session/settings.py"}
# (file, kind) -> why it still names the kind
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("tui/host_edit.py", "fec"): "the hint for a row with nothing to edit lists the editable "
    "rows in a sentence (SMT, FEC, private flags, module params)",
}


def _words(identifier: str) -> list[str]:
    """read_fec -> [read, fec]; FecMode -> [fec, mode]."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", identifier)
    return [w.lower() for w in spaced.split("_") if w]


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def names_of(source: str, kind: str) -> list[int]:
    """The lines whose code (an identifier, an attribute, an import, a string that is not a
    docstring) names `kind`."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    in_text = re.compile(rf"(?i)(?<![a-z]){re.escape(kind)}(?![a-z])")
    lines = set()
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.Name):
            words = _words(node.id)
        elif isinstance(node, ast.Attribute):
            words = _words(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            words = _words(node.name)
        elif isinstance(node, ast.alias):
            words = [w for part in node.name.split(".") for w in _words(part)]
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
            and in_text.search(node.value)
        ):
            words = [kind]
        if kind in words:
            lines.add(getattr(node, "lineno", 0))
    return sorted(lines)


def _mentions(text: str, kind: str) -> bool:
    """A quick look first: `kind` as a word or inside an identifier (read_fec, FecMode)."""
    word = re.compile(rf"(?i)(?<![a-z]){re.escape(kind)}(?![a-z])")
    return bool(word.search(text) or re.search(rf"{kind.capitalize()}(?=[A-Z])", text))


def test_a_kind_with_its_own_read_is_named_only_by_its_handler_and_catalog() -> None:
    assert PLATFORM_READS, "no kind has a read of its own: the walk has nothing to hold"
    found = []
    for read in PLATFORM_READS:
        module = type(HANDLERS[read.kind]).__module__  # type: ignore[index]
        own = module.removeprefix("tuitune.").replace(".", "/") + ".py"
        for path in sorted(PACKAGE.rglob("*.py")):
            rel = path.relative_to(PACKAGE).as_posix()
            if rel in ALWAYS or rel == own or (rel, read.kind) in EXCEPTIONS:
                continue
            text = path.read_text()
            if not _mentions(text, read.kind):  # most files: no need to parse them
                continue
            lines = names_of(text, read.kind)
            if lines:
                found.append(f"{rel}:{lines} names {read.kind!r}")
    assert found == [], "\n".join(found)


def test_the_exceptions_are_still_true() -> None:
    for (rel, kind), _why in EXCEPTIONS.items():
        assert names_of((PACKAGE / rel).read_text(), kind), f"{rel}: drop its exception"


def test_the_scan_sees_what_it_looks_for() -> None:
    src = 'import x\nfrom a.fec import FecGet\ny = read_fec(1)\nz = "--set-fec"\nq = "effect"\n'
    assert names_of(src, "fec") == [2, 3, 4]
    assert names_of('"""FEC here is a docstring."""\n# fec\n', "fec") == []
