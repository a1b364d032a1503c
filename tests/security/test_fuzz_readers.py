"""Fuzzing every reader of a file another user can write (issue 30): themes, the settings
file, notebooks (and the runs tables made from them), peer `show --json` files and sweep
specs, with bytes and structures such a user could write.

Seeds are real files: the shipped themes, a notebook written by `Notebook`, a sweep spec of
docs/sweeps/, a `show --json` of a recorded tree. Each example mutates one seed byte-wise
(flips, cuts, hostile tokens: escape sequences, NUL, bad UTF-8, 10^400, deep nesting) or
structurally (a value replaced by another type anywhere). The outcome must be a result or
the reader's own one-line refusal: zero untyped exceptions, and no raw control character in
anything that would be shown."""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.security.hostile_text import HOSTILE, raw_in
from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Run
from tuitune.core.bench.notebook import Notebook, run_to_json
from tuitune.core.bench.runformat import compare, to_csv, to_markdown, to_text
from tuitune.core.config import load_config
from tuitune.core.docfile import DocumentError
from tuitune.core.export import peer_json
from tuitune.core.sweep import spec as sweep_spec
from tuitune.core.sweep.spec_cpus import SpecError
from tuitune.tui.look import themes

REPO = Path(__file__).resolve().parents[2]
RUNS = settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TOKENS = [t.encode() for t in HOSTILE] + [
    b"\x00",
    b"\xff\xfe",
    b"\xc3",
    b"1" + b"0" * 400,
    b"[" * 3000,
    b"{" * 3000,
    b"NaN",
    b"1e999",
    b'"',
    b"\n",
    b"\\u001b",
]


def _run(ident: str) -> Run:
    return Run(
        id=ident,
        group=ident,
        ifname="eth0",
        started="2026-12-01T10:00:00+00:00",
        spec=BenchSpec(peer="198.18.0.2", streams=2),
        result=BenchResult(9.4e8, 9.3e8, 12, 20.0, 30.0),
        load=CpuLoad({0: 50.0}, {1: 20.0}, {0: 0}, 10),
        settings={"tso": "on", "mtu": "9000"},
    )


SEEDS = {
    "theme": (REPO / "themes" / "dark.toml").read_bytes(),
    "config": b'theme = "tuitune-light"\n[advise.context]\neth0 = "wan"\n',
    "notebook": "\n".join(json.dumps(run_to_json(_run(f"r{i}"))) for i in (1, 2, 3)).encode(),
    "spec": (REPO / "docs" / "sweeps" / "lab-demo.toml").read_bytes(),
    "peer": json.dumps(
        {"host": {"hostname": "peer"}, "interfaces": [{"ifname": "eth0", "mtu": 1500}]}
    ).encode(),
}


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "cut", "token", "splice"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif op == "cut":
            del data[at : at + draw(st.integers(1, 64))]
        elif op == "token":
            data[at:at] = draw(st.sampled_from(TOKENS))
        else:
            data[at : at + draw(st.integers(0, 8))] = draw(st.sampled_from(TOKENS))
    return bytes(data)


def _json_values() -> st.SearchStrategy[Any]:
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**400), max_value=10**400),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(HOSTILE),
        st.text(max_size=20),
    )
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=8,
    )


@st.composite
def restructured(draw: st.DrawFn) -> bytes:
    """A notebook record with one value anywhere replaced by another type."""
    record: Any = run_to_json(_run("r9"))
    path = []
    node = record
    while isinstance(node, dict) and node and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(node)))
        path.append(key)
        node = node[key]
    target = record
    for key in path[:-1]:
        target = target[key]
    if path:
        target[path[-1]] = draw(_json_values())
    return json.dumps(record).encode()


@contextlib.contextmanager
def _file(data: bytes, name: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="tt-fuzz-") as d:
        path = Path(d) / name
        path.write_bytes(data)
        yield path


def _clean(*texts: object) -> None:
    for text in texts:
        assert raw_in(str(text)) == [], text


@RUNS
@given(mutated(SEEDS["theme"]))
def test_theme_reader(data: bytes) -> None:
    try:
        with _file(data, "t.toml") as path:
            theme = themes._parse(path)
    except ValueError as exc:
        _clean(exc)
        assert "\n" not in str(exc)
        return
    _clean(theme.name)


@RUNS
@given(mutated(SEEDS["config"]))
def test_settings_reader(data: bytes) -> None:
    with _file(data, "config.toml") as path:
        cfg = load_config(path)
    _clean(cfg.theme or "", *cfg.contexts)


def _notebook_outputs(path: Path) -> None:
    nb = Notebook(path)
    runs = nb.runs()
    rows = nb.table()
    outputs = [to_text(rows), to_markdown(rows), to_csv(rows)]
    if len(runs) >= 2:
        outputs += [" ".join(cell) for cell in compare(runs[0], runs[1])]
    _clean(*outputs)


@RUNS
@given(st.one_of(mutated(SEEDS["notebook"]), restructured()))
def test_notebook_reader_and_its_tables(data: bytes) -> None:
    with _file(data, "runs.jsonl") as path:
        _notebook_outputs(path)


@RUNS
@given(mutated(SEEDS["spec"]))
def test_sweep_spec_reader(data: bytes) -> None:
    try:
        with _file(data, "spec.toml") as path:
            sweep_spec.load(path)
    except SpecError as exc:
        _clean(exc)
        assert "\n" not in str(exc)


@RUNS
@given(mutated(SEEDS["peer"]))
def test_peer_json_reader(data: bytes) -> None:
    try:
        with _file(data, "peer.json") as path:
            peer_json.load(path)
    except (peer_json.PeerFileError, DocumentError) as exc:
        _clean(exc)
        assert "\n" not in str(exc)
