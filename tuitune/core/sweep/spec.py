"""A sweep spec (docs/sweep.md): which settings to vary, over which values, and how to measure
each combination. Parsing only reads the file and checks its shape and names; whether a value
suits this host is checked by the runner (through the journal's own validation) before the
first write.

The file is someone else's: every name is checked against the shape its kind has, every list
and text is bounded, and every problem is one line naming the field (`[[dimension]] 2 values`).
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuitune.core.bench.engines import NAMES as ENGINE_NAMES
from tuitune.core.bench.limits import (
    MAX_DURATION,
    MAX_REPEATS,
    MAX_STREAMS,
    BadLength,
    parse_length,
)
from tuitune.core.bench.model import DIRECTIONS, Direction
from tuitune.core.docfile import DocumentError, read_document
from tuitune.core.docfile import shown as shown_path
from tuitune.core.session.profile_model import (
    COALESCE_NAMES,
    ProfileError,
    Request,
    check_name,
    is_text,
    one_line,
    plain,
    shown,
)
from tuitune.core.session.settings import CHANNEL_FIELDS, PAUSE_FIELDS, RING_FIELDS, Kind
from tuitune.core.sweep.spec_cpus import CPU_SET_KINDS, IRQ_PLAN, cpu_text, pin_text, queue_setting
from tuitune.core.sweep.spec_cpus import Setting as Setting
from tuitune.core.sweep.spec_cpus import SpecError as SpecError

MAX_SPEC_BYTES = 1 << 18  # a spec is a few lines; a huge file is not one
MAX_DIMENSIONS = 8  # NASA Table 2: six offloads and the MTU
MAX_VALUES = 32  # values of one dimension
MAX_SET_SETTINGS = 64  # settings in one named set
MAX_COMBINATIONS = 512  # cells of a sweep: at 10 s x 3 repeats, already four hours
MAX_LABEL = 40
MAX_NAME = 64

DESIGNS = ("grid", "one-at-a-time")
# The measuring order: "shuffle" (the default) draws it from a recorded seed, so that a drift
# of the machine (another job, a warming CPU) does not line up with one dimension; "snake"
# walks the grid with neighbours one value apart (plan.py).
ORDERS = ("shuffle", "snake")
MAX_SEED = (1 << 32) - 1
# Test dimensions: iperf3's own parameters, varied like a setting (CERN: 1 vs 12 streams;
# NASA's Table 4: the client and server CPU, iperf3 -A).
TEST_SETTINGS = ("streams", "direction", "pin")
# Grouped settings by the words the notebook uses for them ("rings rx", "coalesce rx-usecs").
_GROUPS: dict[str, tuple[Kind, tuple[str, ...] | frozenset[str]]] = {
    "rings": ("ring", RING_FIELDS),
    "coalesce": ("coalesce", COALESCE_NAMES),
    "channels": ("channels", CHANNEL_FIELDS),
    "pause": ("pause", PAUSE_FIELDS),
}


@dataclass(frozen=True, slots=True)
class Value:
    """One value of a dimension: a label for the table and what it sets."""

    label: str  # "off", "9000", "improved"
    settings: tuple[tuple[Setting, str], ...]  # (setting, value as text); () = as found


@dataclass(frozen=True, slots=True)
class Dimension:
    name: str  # the table's word for it: the setting's name, or the set's name
    values: tuple[Value, ...]
    # Also set at the peer's end when the sweep can reach it (the lab): MTU must match at
    # both ends, and the reports tuned both hosts. Default: on for the MTU only.
    both: bool = False


@dataclass(frozen=True, slots=True)
class BenchParams:
    seconds: int = 10
    streams: int = 1
    direction: Direction = "normal"
    length: str | None = None
    engine: str = "iperf3"  # "sockperf": a latency sweep (the pivot shows round trips)
    processes: bool = False  # -P N as N stream processes (tuitune bench --processes)


@dataclass(frozen=True, slots=True)
class SweepSpec:
    name: str
    design: str  # "grid" or "one-at-a-time"
    dimensions: tuple[Dimension, ...]
    columns: str | None  # the dimension spread across the table's columns (crossed in full)
    repeats: int
    bench: BenchParams
    source: str = ""  # the file's own note of where its values come from
    warmup: bool = True  # one run before the first cell, not counted (caches, ARP, slow start)
    order: str = "shuffle"  # ORDERS; not part of identity(): the same cells, measured
    seed: int | None = None  # the shuffle's seed; None: drawn at the start, then recorded

    def identity(self) -> str:
        """A short digest of what is measured: the same spec gives the same one, so a resumed
        sweep finds its own runs."""
        doc = {
            "design": self.design,
            "columns": self.columns,
            "repeats": self.repeats,
            "bench": [self.bench.seconds, self.bench.streams, self.bench.direction],
            "length": self.bench.length,
            # Only when set: a sweep spec written before them keeps its identity (and runs).
            **({"engine": self.bench.engine} if self.bench.engine != "iperf3" else {}),
            **({"processes": True} if self.bench.processes else {}),
            "dims": [
                [
                    d.name,
                    d.both,
                    [[v.label, [[s.name, t] for s, t in v.settings]] for v in d.values],
                ]
                for d in self.dimensions
            ],
        }
        raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
        return hashlib.sha256(raw).hexdigest()[:8]

    def cell_count(self) -> int:
        """How many cells plan.combinations builds, without building them (parse refuses a
        sweep over MAX_COMBINATIONS): every combination for a grid; for one-at-a-time the
        baseline plus each other value of each dimension alone, for each value of the
        columns' dimension."""
        if self.design == "grid":
            return math.prod(len(d.values) for d in self.dimensions)
        column = next((d for d in self.dimensions if d.name == self.columns), None)
        alone = sum(len(d.values) - 1 for d in self.dimensions if d is not column)
        return (1 + alone) * (len(column.values) if column is not None else 1)


def setting_of(name: object, where: str) -> Setting:
    """A setting by the notebook's name for it, or SpecError."""
    if not isinstance(name, str) or not name:
        raise SpecError(f"{where}: {shown(name)} is not a setting name")
    if len(name) > 300 or not is_text(name, 300):
        raise SpecError(f"{where}: {shown(name)} is not a setting name")
    try:
        if name in TEST_SETTINGS:
            return Setting(name, None, "")
        if name in ("mtu", "txqueuelen"):
            return Setting(name, "mtu" if name == "mtu" else "txqueuelen", "")
        queues = queue_setting(name, where)
        if queues is not None:
            return queues
        group, sep, field = name.partition(" ")
        if sep:
            if group not in _GROUPS:
                known = ", ".join(f"'{g} FIELD'" for g in _GROUPS)
                raise SpecError(f"{where}: {plain(name)}: unknown setting (known: {known})")
            kind, fields = _GROUPS[group]
            if field not in fields:
                listed = ", ".join(sorted(fields)[:8]) + (", ..." if len(fields) > 8 else "")
                raise SpecError(f"{where}: {plain(name)}: no such field (known: {listed})")
            return Setting(name, kind, field)
        if "." in name or "/" in name:
            check_name("sysctl", name, where)
            return Setting(name, "sysctl", name)
        check_name("feature", name, where)
        return Setting(name, "feature", name)
    except ProfileError as exc:
        raise SpecError(str(exc)) from None


def _text(setting: Setting, value: object, where: str) -> str:
    """A TOML value as the text a user would type (profiles read values the same way)."""
    if setting.kind in CPU_SET_KINDS:
        return cpu_text(setting, value, where)
    if isinstance(value, bool):
        if setting.kind == "sysctl":
            return "1" if value else "0"
        return "on" if value else "off"
    if isinstance(value, int):
        if abs(value) > 1 << 63:
            raise SpecError(f"{where}: {shown(value)} is out of range")
        return str(value)
    if isinstance(value, str):
        if not value.strip() or not is_text(value, 4096):
            raise SpecError(f"{where}: {shown(value)} is not one short line of text")
        return value
    if (
        setting.kind == "sysctl"
        and isinstance(value, list)
        and 0 < len(value) <= 16
        and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    ):
        return " ".join(str(x) for x in value)  # tcp_rmem = [4096, 87380, 16777216]
    raise SpecError(f"{where}: {shown(value)} is not a number, a switch or a name")


def _test_value(setting: Setting, value: object, where: str) -> str:
    if setting.name == "pin":
        return pin_text(value, where)
    if setting.name == "streams":
        if type(value) is not int or not 1 <= value <= MAX_STREAMS:
            raise SpecError(f"{where}: {shown(value)}: streams are 1..{MAX_STREAMS}")
        return str(value)
    if value not in DIRECTIONS:
        raise SpecError(f"{where}: {shown(value)}: a direction is {', '.join(DIRECTIONS)}")
    return str(value)


def _label(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip() or not is_text(value, MAX_LABEL):
        raise SpecError(f"{where}: {shown(value)} is not a label (one line, {MAX_LABEL} chars)")
    return value.strip()


def _only(table: Mapping[str, Any], known: Sequence[str], where: str) -> None:
    for key in table:
        if key not in known:
            raise SpecError(f"{where} {plain(key)}: unknown (known: {', '.join(known)})")


def _int(table: Mapping[str, Any], key: str, default: int, high: int, where: str) -> int:
    value = table.get(key, default)
    if type(value) is not int or not 1 <= value <= high:
        raise SpecError(f"{where} {key}: {shown(value)} is not a whole number 1..{high}")
    return value


def _dimension(raw: object, where: str) -> Dimension:
    if not isinstance(raw, Mapping):
        raise SpecError(f"{where}: not a table")
    if "sets" in raw:
        return _set_dimension(raw, where)
    _only(raw, ("setting", "values", "both"), where)
    if "setting" not in raw:
        raise SpecError(f"{where}: needs setting = NAME and values = [...] (or name and sets)")
    setting = setting_of(raw["setting"], f"{where} setting")
    values = raw.get("values")
    if not isinstance(values, list) or not 1 <= len(values) <= MAX_VALUES:
        raise SpecError(f"{where} values: a list of 1..{MAX_VALUES} values")
    out = []
    for i, v in enumerate(values, 1):
        at = f"{where} values[{i}]"
        text = _test_value(setting, v, at) if setting.kind is None else _text(setting, v, at)
        label = text[: MAX_LABEL - 3] + "..." if len(text) > MAX_LABEL else text
        out.append(Value(label, ((setting, text),)))
    _distinct([v.label for v in out], f"{where} values")
    both = _both(raw, setting.name == "mtu", where)
    if both and setting.kind is None:
        raise SpecError(f"{where} both: {setting.name} is a test parameter, not a setting")
    return Dimension(setting.name, tuple(out), both)


def _set_dimension(raw: Mapping[str, Any], where: str) -> Dimension:
    _only(raw, ("name", "sets", "both"), where)
    name = _label(raw.get("name"), f"{where} name")
    sets = raw["sets"]
    if not isinstance(sets, list) or not 1 <= len(sets) <= MAX_VALUES:
        raise SpecError(f"{where} sets: a list of 1..{MAX_VALUES} tables")
    out = []
    for i, item in enumerate(sets, 1):
        at = f"{where} sets[{i}]"
        if not isinstance(item, Mapping):
            raise SpecError(f"{at}: not a table (label = ..., settings = {{...}})")
        _only(item, ("label", "settings"), at)
        label = _label(item.get("label"), f"{at} label")
        given = item.get("settings", {})
        if not isinstance(given, Mapping) or len(given) > MAX_SET_SETTINGS:
            raise SpecError(f"{at} settings: a table of at most {MAX_SET_SETTINGS} settings")
        pairs = []
        for key, v in given.items():
            s = setting_of(key, f"{at} settings")
            if s.kind is None:
                raise SpecError(f"{at} settings {s.name}: a test parameter is its own dimension")
            pairs.append((s, _text(s, v, f"{at} settings {plain(key)}")))
        out.append(Value(label, tuple(pairs)))
    _distinct([v.label for v in out], f"{where} sets")
    mtu = any(st.kind == "mtu" for v in out for st, _ in v.settings)
    return Dimension(name, tuple(out), _both(raw, mtu, where))


def _both(raw: Mapping[str, Any], default: bool, where: str) -> bool:
    value = raw.get("both", default)
    if not isinstance(value, bool):
        raise SpecError(f"{where} both: {shown(value)} is not true or false")
    return value


def _distinct(labels: list[str], where: str) -> None:
    seen: set[str] = set()
    for label in labels:
        if label in seen:
            raise SpecError(f"{where}: {plain(label)} appears twice")
        seen.add(label)


def parse(data: Mapping[str, Any]) -> SweepSpec:
    """A SweepSpec from a TOML document, or SpecError (one line, naming the field)."""
    _only(data, ("sweep", "bench", "dimension"), "top level:")
    meta = data.get("sweep", {})
    if not isinstance(meta, Mapping):
        raise SpecError("[sweep] must be a table")
    known = ("name", "design", "columns", "repeats", "source", "warmup", "order", "seed")
    _only(meta, known, "[sweep]")
    order = meta.get("order", "shuffle")
    if order not in ORDERS:
        raise SpecError(f"[sweep] order: {shown(order)}: one of {', '.join(ORDERS)}")
    seed = meta.get("seed")
    if seed is not None and (type(seed) is not int or not 0 <= seed <= MAX_SEED):
        raise SpecError(f"[sweep] seed: {shown(seed)} is not a whole number 0..{MAX_SEED}")
    warmup = meta.get("warmup", True)
    if not isinstance(warmup, bool):
        raise SpecError(f"[sweep] warmup: {shown(warmup)} is not true or false")
    name = meta.get("name", "sweep")
    if not isinstance(name, str) or not check_name_ok(name):
        raise SpecError(f"[sweep] name: {shown(name)}: letters, digits and '_ . -', 1..64")
    design = meta.get("design", "grid")
    if design not in DESIGNS:
        raise SpecError(f"[sweep] design: {shown(design)}: one of {', '.join(DESIGNS)}")
    source = meta.get("source", "")
    if not isinstance(source, str) or not is_text(source, 400):
        raise SpecError("[sweep] source: one line of text (400 characters at most)")
    repeats = _int(meta, "repeats", 3, MAX_REPEATS, "[sweep]")
    bench = data.get("bench", {})
    if not isinstance(bench, Mapping):
        raise SpecError("[bench] must be a table")
    _only(bench, ("seconds", "streams", "direction", "length", "engine", "processes"), "[bench]")
    engine = bench.get("engine", "iperf3")
    if engine not in ENGINE_NAMES:
        raise SpecError(f"[bench] engine: {shown(engine)}: one of {', '.join(ENGINE_NAMES)}")
    processes = bench.get("processes", False)
    if not isinstance(processes, bool):
        raise SpecError(f"[bench] processes: {shown(processes)}: true or false")
    direction = bench.get("direction", "normal")
    if direction not in DIRECTIONS:
        raise SpecError(f"[bench] direction: {shown(direction)}: one of {', '.join(DIRECTIONS)}")
    length = bench.get("length")
    if length is not None:
        if not isinstance(length, str | int) or isinstance(length, bool):
            raise SpecError(f"[bench] length: {shown(length)} is not a size like 128K")
        try:
            length = parse_length(str(length))
        except BadLength as exc:
            raise SpecError(f"[bench] length: {exc}") from None
    params = BenchParams(
        seconds=_int(bench, "seconds", 10, MAX_DURATION, "[bench]"),
        streams=_int(bench, "streams", 1, MAX_STREAMS, "[bench]"),
        direction=direction,
        length=length,
        engine=engine,
        processes=processes,
    )
    raw_dims = data.get("dimension")
    if not isinstance(raw_dims, list) or not 1 <= len(raw_dims) <= MAX_DIMENSIONS:
        raise SpecError(f"[[dimension]]: a sweep needs 1..{MAX_DIMENSIONS} dimensions")
    dims = tuple(_dimension(d, f"[[dimension]] {i}") for i, d in enumerate(raw_dims, 1))
    _distinct([d.name for d in dims], "[[dimension]] names")
    _no_overlap(dims)
    columns = meta.get("columns")
    if columns is None and design == "grid" and len(dims) > 1:
        columns = dims[-1].name  # the table's shape: the last dimension across
    if columns is not None and columns not in [d.name for d in dims]:
        raise SpecError(f"[sweep] columns: {shown(columns)} is not one of the dimensions")
    spec = SweepSpec(name, design, dims, columns, repeats, params, source, warmup, order, seed)
    n = spec.cell_count()  # before anything runs
    if n > MAX_COMBINATIONS:
        raise SpecError(f"[[dimension]]: {n} combinations; at most {MAX_COMBINATIONS}")
    return spec


def check_name_ok(name: str) -> bool:
    try:
        check_name("feature", name, "")
    except ProfileError:
        return False
    return True


def _no_overlap(dims: Sequence[Dimension]) -> None:
    """Two dimensions that set the same setting would fight over it: which one wins?"""
    owner: dict[str, str] = {}
    for d in dims:
        for s in {s.name for v in d.values for s, _ in v.settings}:
            if s in owner:
                raise SpecError(f"[[dimension]] {plain(d.name)}: {s} is also set by {owner[s]}")
            owner[s] = d.name


def load(path: Path) -> SweepSpec:
    """Read and check a spec file; SpecError (one line naming the file and the field)."""
    try:
        text = read_document(path, limit=MAX_SPEC_BYTES)
    except DocumentError as exc:
        raise SpecError(str(exc)) from None
    try:
        try:
            data = tomllib.loads(text)
        except RecursionError:
            raise SpecError("not a TOML sweep spec: nested too deeply") from None
        except ValueError as exc:
            raise SpecError(f"not a TOML sweep spec: {exc}") from None
        return parse(data)
    except SpecError as exc:
        raise SpecError(one_line(f"{shown_path(path)}: {exc}")) from None


def requests(value_settings: Sequence[tuple[Setting, str]]) -> list[Request]:
    """The journal's requests for the host settings of a combination (not test parameters,
    nor the IRQ plan: the runner works that out on the host, runner_irqs.py)."""
    out = []
    for s, text in value_settings:
        if s.kind is not None and s != IRQ_PLAN:
            out.append(Request(s.kind, s.field, text, s.name))
    return out
