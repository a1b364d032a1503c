"""The package's own import graph, read from the source with `ast` (nothing is imported), for
the architecture tests: which modules import which, split into module-level imports
(TYPE_CHECKING blocks included: a circle in the types is still a circle) and deferred ones
(an import inside a function body), the circles of each graph, and private names (`_x`) that
one module takes from another.

An edge goes to the most specific module an import names, as import-linter's graph does:
`from a.b import c` is an edge to a.b.c when that is a module, else to a.b.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    deferred: bool  # inside a function body: runs when called, not when imported


@dataclass(frozen=True)
class PrivateUse:
    """`source` takes `name`, private to `owner`, at `line`."""

    source: str
    owner: str
    name: str
    line: int


def module_files(package_dir: Path) -> dict[str, Path]:
    """Every module of the package under `package_dir`, by dotted name."""
    base = package_dir.parent
    found: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


_FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_WANTED = (ast.Import, ast.ImportFrom, ast.Attribute)


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """The imports and attribute reads under `tree`, each with whether it sits inside a
    function body (an explicit stack: a generator per level costs twice the parse)."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, in_function = stack.pop()
        inner = in_function or isinstance(node, _FUNCTION)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _WANTED):
                yield child, inner
            stack.append((child, inner))


def _base(module: str, is_package: bool, level: int, named: str | None) -> str:
    """The absolute module a (possibly relative) `from ... import` names."""
    if level == 0:
        return named or ""
    parts = module.split(".")
    if not is_package:
        parts.pop()
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, named] if named else parts)


@dataclass
class ImportGraph:
    modules: Mapping[str, Path]
    edges: list[Edge]
    private: list[PrivateUse]

    def adjacency(self, *, deferred: bool) -> dict[str, set[str]]:
        """Module -> the package's modules it imports: module-level imports only, or with
        the deferred ones as well."""
        adj: dict[str, set[str]] = {m: set() for m in self.modules}
        for e in self.edges:
            if (deferred or not e.deferred) and e.source != e.target:
                adj[e.source].add(e.target)
        return adj

    def circles(self, *, deferred: bool) -> list[frozenset[str]]:
        """The import circles: strongly connected components of more than one module."""
        return [c for c in strongly_connected(self.adjacency(deferred=deferred)) if len(c) > 1]

    def edges_within(self, circle: frozenset[str], *, deferred: bool) -> list[Edge]:
        return [
            e
            for e in self.edges
            if e.source in circle and e.target in circle and (deferred or not e.deferred)
        ]


def build_graph(package_dir: Path) -> ImportGraph:
    modules = module_files(package_dir)
    root = package_dir.name
    edges: list[Edge] = []
    private: list[PrivateUse] = []
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), str(path))
        # Names bound to a module of the package, for `alias._private` attribute reads.
        module_names: dict[str, str] = {}
        reads: list[ast.Attribute] = []
        for node, deferred in _walk(tree):
            if isinstance(node, ast.Attribute):
                reads.append(node)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        edges.append(Edge(name, alias.name, node.lineno, deferred))
                        if alias.asname:
                            module_names[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                base = _base(name, is_package, node.level, node.module)
                if base.split(".")[0] != root:
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in modules:
                        edges.append(Edge(name, sub, node.lineno, deferred))
                        module_names[alias.asname or alias.name] = sub
                    elif base in modules:
                        edges.append(Edge(name, base, node.lineno, deferred))
                    if _private(alias.name) and not _own_submodule(name, is_package, sub, modules):
                        private.append(PrivateUse(name, base, alias.name, node.lineno))
        for node in reads:
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in module_names
                and _private(node.attr)
                and module_names[node.value.id] != name
            ):
                private.append(
                    PrivateUse(name, module_names[node.value.id], node.attr, node.lineno)
                )
    return ImportGraph(modules, list(dict.fromkeys(edges)), private)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _own_submodule(importer: str, is_package: bool, sub: str, modules: Mapping[str, Path]) -> bool:
    """A package's private module (cli/_common.py) is the package's own: its siblings may
    import it."""
    package = importer if is_package else importer.rpartition(".")[0]
    return sub in modules and sub.rpartition(".")[0] == package


def strongly_connected(adj: Mapping[str, set[str]]) -> list[frozenset[str]]:
    """Tarjan's algorithm, iterative (the package is deeper than Python's recursion likes)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[frozenset[str]] = []
    counter = 0
    for start in sorted(adj):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(adj[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            step = next(it, None)
            if step is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    comp: set[str] = set()
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.add(top)
                        if top == node:
                            break
                    out.append(frozenset(comp))
            elif step not in index:
                index[step] = low[step] = counter
                counter += 1
                stack.append(step)
                on_stack.add(step)
                work.append((step, iter(sorted(adj[step]))))
            elif step in on_stack:
                low[node] = min(low[node], index[step])
    return out
