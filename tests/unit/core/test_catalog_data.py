"""The catalog's data files (tuitune/core/catalog/data/*.toml): complete and well-formed when read
on their own, and a mistake in a copy is refused with one line naming the file and the entry."""

from __future__ import annotations

import ast
import fnmatch
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tuitune.core import catalog
from tuitune.core.catalog import device as catalog_device
from tuitune.core.catalog import entry, load_sysctls, parse_value, sources, version_tuple
from tuitune.core.catalog import sysctl as catalog_sysctl
from tuitune.core.catalog.device import load_device_help
from tuitune.core.catalog.load import DATA_DIR, CatalogDataError
from tuitune.core.catalog.sources import load_sources

REPO = Path(__file__).resolve().parents[3]
SYSCTL = DATA_DIR / "sysctl.toml"
DEVICE = DATA_DIR / "device.toml"
SOURCES = DATA_DIR / "sources.toml"

# Written out here, not taken from the loader, so the two can disagree and a test fail.
ADVICE_KEYS = ({"source", "context", "finding"}, {"value"})
SYSCTL_KEYS = (
    {"key", "kind", "scope", "summary", "help", "sources"},
    {
        "minimum",
        "maximum",
        "choices_key",
        "unit",
        "removed_in",
        "noop_since",
        "writable",
        "readable",
        "parts",
        "netns_readonly_copy",
        "scope_note",
    },
)
DEVICE_KEYS = (
    {"name", "summary", "help", "sources"},
    {"tool", "turns_off", "turns_off_reported"},
)
SOURCE_KEYS = (
    {"id", "title", "organisation", "context", "setting", "citation"},
    {"file", "authors", "year", "link", "see_also"},
)
VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)*")


def _raw(path: Path, table: str) -> list[dict[str, Any]]:
    with path.open("rb") as f:
        doc = tomllib.load(f)
    assert set(doc) == {table}, f"{path.name}: top-level tables {sorted(doc)}"
    items = doc[table]
    assert isinstance(items, list) and items
    return items


def _check_keys(where: str, item: dict[str, Any], keys: tuple[set[str], set[str]]) -> None:
    required, optional = keys
    assert required <= set(item), f"{where}: missing {sorted(required - set(item))}"
    assert set(item) <= required | optional, f"{where}: unknown {sorted(set(item) - required)}"


# --- the files as shipped ---


def test_data_files_are_the_catalog() -> None:
    """Importing reads the shipped files once; reading them again gives the same entries."""
    assert load_sysctls() == catalog.SYSCTLS
    assert catalog_sysctl.build() is catalog.SYSCTLS
    assert load_device_help() == tuple(catalog_device.DEVICE_HELP.values())
    assert load_sources() == sources.SOURCES


def test_every_sysctl_entry_is_complete_and_parses() -> None:
    items = _raw(SYSCTL, "sysctl")
    keys = [i["key"] for i in items]
    assert len(keys) == len(set(keys)), "duplicate sysctl key"
    for item in items:
        where = f"sysctl.toml {item.get('key')!r}"
        _check_keys(where, item, SYSCTL_KEYS)
        assert item["kind"] in ("int", "bool", "int_triple", "choice", "string", "trigger"), where
        assert item["scope"] in ("netns", "host"), where
        for bound in ("minimum", "maximum"):
            if bound in item:
                assert type(item[bound]) is int, where
        if "minimum" in item and "maximum" in item:
            assert item["minimum"] <= item["maximum"], where
        for v in ("removed_in", "noop_since"):
            if v in item:
                assert VERSION.fullmatch(item[v]) and version_tuple(item[v]), where
        if item["kind"] == "choice":
            assert item["choices_key"] in keys, where
        if "parts" in item:
            assert item["kind"] == "int_triple" and len(item["parts"]) == 3, where
        for flag in ("writable", "readable", "netns_readonly_copy"):
            if flag in item:
                assert type(item[flag]) is bool, where
        for n, advice in enumerate(item["sources"], 1):
            _check_keys(f"{where} sources #{n}", advice, ADVICE_KEYS)
            if "value" in advice:
                parse_value(entry(item["key"]), advice["value"])


def test_every_device_entry_is_complete() -> None:
    items = _raw(DEVICE, "device")
    names = [i["name"] for i in items]
    assert len(names) == len(set(names)), "duplicate device name"
    for item in items:
        where = f"device.toml {item.get('name')!r}"
        _check_keys(where, item, DEVICE_KEYS)
        for field in ("turns_off", "turns_off_reported"):
            assert all(isinstance(x, str) for x in item.get(field, [])), where
        for n, advice in enumerate(item["sources"], 1):
            _check_keys(f"{where} sources #{n}", advice, ADVICE_KEYS)


def test_every_source_is_complete_and_every_cited_id_exists() -> None:
    items = _raw(SOURCES, "source")
    ids = [i["id"] for i in items]
    assert len(ids) == len(set(ids)), "duplicate source id"
    for item in items:
        _check_keys(f"sources.toml {item.get('id')!r}", item, SOURCE_KEYS)
        assert "year" not in item or type(item["year"]) is int
    cited = {
        (path.name, entry_.get("key", entry_.get("name")), a["source"])
        for path, table in ((SYSCTL, "sysctl"), (DEVICE, "device"))
        for entry_ in _raw(path, table)
        for a in entry_["sources"]
    }
    unknown = {c for c in cited if c[2] not in ids}
    assert not unknown, f"advice citing a source not in sources.toml: {sorted(unknown)}"


def test_wheel_ships_every_data_file() -> None:
    """pyproject's package-data covers each file of catalog/data (a wheel without them fails)."""
    with (REPO / "pyproject.toml").open("rb") as f:
        globs = tomllib.load(f)["tool"]["setuptools"]["package-data"]["tuitune.core.catalog"]
    files = sorted(p.relative_to(DATA_DIR.parent).as_posix() for p in DATA_DIR.iterdir())
    assert files and all(any(fnmatch.fnmatch(p, g) for g in globs) for p in files), files


def test_catalog_modules_import_without_a_cycle() -> None:
    """No catalog module imports one that imports it back, at any depth, even inside a function."""
    core = DATA_DIR.parents[1]
    files = {
        "catalog": core / "catalog/__init__.py",
        "catalog.sysctl": core / "catalog/sysctl.py",
        "catalog.device": core / "catalog/device.py",
        "catalog.load": core / "catalog/load.py",
        "catalog.sources": core / "catalog/sources.py",
    }
    names = tuple(files)
    graph: dict[str, set[str]] = {}
    for name in names:
        tree = ast.parse(files[name].read_text())
        deps: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                deps.update(a.name.removeprefix("tuitune.core.") for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                module = node.module.removeprefix("tuitune.core.")
                deps.add(module)
                if node.module in ("tuitune.core", "tuitune.core.catalog"):
                    prefix = "" if node.module == "tuitune.core" else "catalog."
                    deps.update(prefix + a.name for a in node.names)
        graph[name] = deps & set(names)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            d == goal or (d not in seen and reaches(d, goal, seen | {d})) for d in graph[start]
        )

    assert [n for n in names if reaches(n, n, set())] == []


# --- a mistake in a copy of a file ---

Loader = Callable[[Path], object]
LOADERS: dict[str, Loader] = {
    "sysctl.toml": load_sysctls,
    "device.toml": load_device_help,
    "sources.toml": load_sources,
}

# file, text to change (its first occurrence), replacement, what the one-line message must say
MISTAKES: list[tuple[str, str, str, str]] = [
    (
        "sysctl.toml",
        "summary = ",
        "sumary = ",
        "sysctl 'net.ipv4.tcp_timestamps': unknown key 'sumary' (did you mean 'summary'?)",
    ),
    (
        "sysctl.toml",
        'scope = "netns"\n',
        "",
        "sysctl 'net.ipv4.tcp_timestamps': missing key 'scope'",
    ),
    (
        "sysctl.toml",
        "minimum = 0\n",
        'minimum = "0"\n',
        "'net.ipv4.tcp_timestamps': minimum: needs an int",
    ),
    ("sysctl.toml", "minimum = 0\n", "minimum = false\n", "minimum: needs an int, got False"),
    (
        "sysctl.toml",
        'kind = "int"',
        'kind = "integer"',
        "kind: must be one of int, bool, int_triple",
    ),
    ("sysctl.toml", "maximum = 2\n", "maximum = -1\n", "minimum 0 is above maximum -1"),
    (
        "sysctl.toml",
        '"4.14"',
        '"4.14-rc1"',
        "'net.ipv4.tcp_low_latency': noop_since: needs a kernel",
    ),
    ("sysctl.toml", '"4.12"', '"four"', "'net.ipv4.tcp_tw_recycle': removed_in: needs a kernel"),
    (
        "sysctl.toml",
        '"low", "pressure", "high"',
        '"low", "high"',
        "parts: needs a list of 3, got 2",
    ),
    ("sysctl.toml", "readable = false", "readable = 0", "readable: needs a bool, got 0"),
    (
        "sysctl.toml",
        'source = "nasa-40g"',
        'source = "nasa-40"',
        "'net.ipv4.tcp_timestamps': sources #1: unknown source 'nasa-40'",
    ),
    (
        "sysctl.toml",
        "finding = ",
        "fnding = ",
        "'net.ipv4.tcp_timestamps': sources #1: unknown key 'fnding' (did you mean 'finding'?)",
    ),
    ("sysctl.toml", 'context = "LAN"', 'context = "lan"', "sources #1: context: must be one of"),
    (
        "sysctl.toml",
        'key = "net.ipv4.tcp_sack"',
        'key = "net.ipv4.tcp_timestamps"',
        "sysctl 'net.ipv4.tcp_timestamps': key 'net.ipv4.tcp_timestamps' appears twice",
    ),
    ("sysctl.toml", 'key = "net.ipv4.tcp_sack"', 'key = "net/ipv4"', "not a dotted sysctl key"),
    (
        "sysctl.toml",
        'choices_key = "net.ipv4.tcp_available_congestion_control"',
        'choices_key = "net.ipv4.tcp_available_congestion"',
        "choices_key 'net.ipv4.tcp_available_congestion' is not in the file",
    ),
    (
        "sources.toml",
        "\n[[source]]\n",
        "\n[[sources]]\n",
        "unknown table 'sources' (did you mean 'source'?)",
    ),
    ("sysctl.toml", 'kind = "int"\n', 'kind = "int\n', "Illegal character '\\n' (at line "),
    ("device.toml", 'turns_off = ["tso"]', 'turns_off = "tso"', "device 'tx-checksum': turns_off"),
    ("device.toml", 'tool = "ethtool -K DEV tso on|off"', "tool = 1", "'tso': tool: needs a str"),
    (
        "device.toml",
        'source = "lofar-wan"',
        'source = "lofar"',
        "device 'tso': sources #2: unknown",
    ),
    ("sources.toml", "year = 2003", 'year = "2003"', "source 'cern-10g': year: needs an int"),
    ("sources.toml", 'id = "cern-10g"', 'id = "nasa-40g"', "'nasa-40g' appears twice"),
    ("sources.toml", "citation = ", "cite = ", "source 'nasa-40g': unknown key 'cite'"),
]


@pytest.mark.parametrize(
    ("name", "old", "new", "message"),
    MISTAKES,
    ids=[f"{m[0]}:{m[3][:40]}" for m in MISTAKES],
)
def test_a_mistake_is_refused_naming_file_and_entry(
    tmp_path: Path, name: str, old: str, new: str, message: str
) -> None:
    text = (DATA_DIR / name).read_text()
    assert old in text, "the mistake must change the file"
    copy = tmp_path / name
    copy.write_text(text.replace(old, new, 1))
    with pytest.raises(CatalogDataError) as info:
        LOADERS[name](copy)
    said = str(info.value)
    assert said.startswith(f"{copy}: ") and "\n" not in said, said
    assert message in said


def test_the_shipped_files_load_from_a_copy(tmp_path: Path) -> None:
    """The mistakes above are the only change: an unchanged copy loads."""
    for name, loader in LOADERS.items():
        copy = tmp_path / name
        copy.write_text((DATA_DIR / name).read_text())
        assert loader(copy)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(CatalogDataError, match=r"nope\.toml"):
        load_sysctls(tmp_path / "nope.toml")
