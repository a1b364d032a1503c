"""Sweep specs: the parser takes the shipped examples and well-formed specs, refuses every bad
or hostile one with one line naming the field, and the plan orders the cells."""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from tuitune.core.sweep import spec as specfile
from tuitune.core.sweep.plan import combinations, row_label
from tuitune.core.sweep.spec import SpecError, parse

EXAMPLES = Path(__file__).resolve().parents[4] / "docs" / "sweeps"

GOOD = """
[sweep]
name = "t2"
design = "one-at-a-time"
columns = "mtu"
repeats = 2
[bench]
seconds = 3
streams = 2
direction = "reverse"
length = "64K"
[[dimension]]
setting = "tso"
values = ["on", "off"]
[[dimension]]
setting = "sg"
values = [true, false]
[[dimension]]
setting = "mtu"
values = [1500, 9000]
"""


def _parse(text: str) -> specfile.SweepSpec:
    return parse(tomllib.loads(text))


def test_a_good_spec_reads_as_written() -> None:
    s = _parse(GOOD)
    assert (s.name, s.design, s.columns, s.repeats) == ("t2", "one-at-a-time", "mtu", 2)
    assert (s.bench.seconds, s.bench.streams, s.bench.direction) == (3, 2, "reverse")
    assert s.bench.length == "64K"
    assert s.warmup  # one uncounted run first, unless the spec says warmup = false
    assert [d.name for d in s.dimensions] == ["tso", "sg", "mtu"]
    sg = s.dimensions[1]
    assert [v.label for v in sg.values] == ["on", "off"]  # TOML switches read as ethtool's words
    ((setting, text),) = sg.values[1].settings
    assert (setting.kind, setting.field, text) == ("feature", "sg", "off")
    mtu = s.dimensions[2].values[1].settings[0]
    assert (mtu[0].kind, mtu[1]) == ("mtu", "9000")


def test_settings_are_named_as_the_notebook_names_them() -> None:
    cases = {
        "rings rx": ("ring", "rx"),
        "coalesce adaptive-rx": ("coalesce", "adaptive-rx"),
        "channels combined": ("channels", "combined"),
        "txqueuelen": ("txqueuelen", ""),
        "net.ipv4.tcp_timestamps": ("sysctl", "net.ipv4.tcp_timestamps"),
        "streams": (None, ""),
    }
    for name, (kind, field) in cases.items():
        s = specfile.setting_of(name, "x")
        assert (s.kind, s.field) == (kind, field), name


def test_one_at_a_time_is_a_baseline_and_each_value_alone_at_each_column() -> None:
    s = _parse(GOOD)
    cells = combinations(s)
    labels = [c.label for c in cells]
    # The column (MTU) varies slowest, each of its values once: one link reset.
    assert labels == [
        "tso on, sg on, mtu 1500",
        "tso off, sg on, mtu 1500",
        "tso on, sg off, mtu 1500",
        "tso on, sg off, mtu 9000",
        "tso off, sg on, mtu 9000",
        "tso on, sg on, mtu 9000",
    ]
    assert [row_label(s, c) for c in cells[:3]] == ["baseline", "tso off", "sg off"]


def test_a_grid_walks_as_a_snake_with_the_link_resetting_dimension_slowest() -> None:
    s = _parse(
        """
[[dimension]]
setting = "net.ipv4.tcp_sack"
values = [0, 1]
[[dimension]]
setting = "mtu"
values = [1500, 9000]
[[dimension]]
setting = "streams"
values = [1, 4]
"""
    )
    cells = combinations(s)
    assert len(cells) == 8
    mtus = [c.values[1][1].label for c in cells]
    assert mtus == ["1500"] * 4 + ["9000"] * 4  # MTU changes once
    for a, b in itertools.pairwise(cells):  # neighbours differ in one value
        assert sum(x != y for x, y in zip(a.key, b.key, strict=True)) == 1
    assert s.columns == "streams"  # a grid's last dimension goes across by default
    assert cells[0].test("streams") == "1"


def test_a_named_set_is_one_value_of_several_settings() -> None:
    s = _parse(
        """
[[dimension]]
name = "kernel"
[[dimension.sets]]
label = "default"
[[dimension.sets]]
label = "improved"
[dimension.sets.settings]
"net.ipv4.tcp_rmem" = [4096, 87380, 16777216]
"net.ipv4.tcp_sack" = false
"rings rx" = 2048
"""
    )
    default, improved = s.dimensions[0].values
    assert default.settings == ()
    got = {st.name: text for st, text in improved.settings}
    assert got == {
        "net.ipv4.tcp_rmem": "4096 87380 16777216",
        "net.ipv4.tcp_sack": "0",
        "rings rx": "2048",
    }


BAD = [
    ("[sweep]\nname='x'\n", "[[dimension]]: a sweep needs 1..8 dimensions"),
    ("[sweep]\nfoo=1\n[[dimension]]\nsetting='tso'\nvalues=['on']", "[sweep] foo: unknown"),
    ("[[dimension]]\nsetting='tso'\nvalues=[]", "[[dimension]] 1 values: a list of 1..32"),
    ("[[dimension]]\nsetting='rings bogus'\nvalues=[1]", "rings bogus: no such field"),
    ("[[dimension]]\nsetting='knob x'\nvalues=[1]", "knob x: unknown setting"),
    ("[[dimension]]\nsetting='tso;rm'\nvalues=['on']", "is not a feature name"),
    ("[[dimension]]\nsetting='net.core/../../x y'\nvalues=[1]", "[[dimension]] 1 setting"),
    ("[[dimension]]\nsetting='mtu'\nvalues=[1.5]", "[[dimension]] 1 values[1]: 1.5 is not"),
    ("[[dimension]]\nsetting='mtu'\nvalues=[1500, 1500]", "1500 appears twice"),
    ('[[dimension]]\nsetting="mtu"\nvalues=["a\\nb"]', "values[1]: 'a\\nb' is not one"),
    ("[[dimension]]\nsetting='streams'\nvalues=[0]", "streams are 1..128"),
    ("[[dimension]]\nsetting='direction'\nvalues=['up']", "a direction is normal, reverse"),
    ("[bench]\nseconds=0\n[[dimension]]\nsetting='tso'\nvalues=['on']", "[bench] seconds: 0"),
    ("[bench]\nlength='1T'\n[[dimension]]\nsetting='tso'\nvalues=['on']", "[bench] length"),
    ("[sweep]\nrepeats=101\n[[dimension]]\nsetting='tso'\nvalues=['on']", "1..100"),
    ("[sweep]\nwarmup=1\n[[dimension]]\nsetting='tso'\nvalues=['on']", "[sweep] warmup: 1"),
    ("[sweep]\ndesign='random'\n[[dimension]]\nsetting='tso'\nvalues=['on']", "design"),
    ("[sweep]\ncolumns='mtu'\n[[dimension]]\nsetting='tso'\nvalues=['on']", "[sweep] columns"),
    (
        "[[dimension]]\nsetting='tso'\nvalues=['on']\n[[dimension]]\nname='k'\n"
        "sets=[{label='a', settings={tso='off'}}]",
        "tso is also set by tso",
    ),
    (
        "[[dimension]]\nname='k'\nsets=[{label='a', settings={streams=2}}]",
        "a test parameter is its own dimension",
    ),
    ("[[dimension]]\nname='k'\nsets=[{label='" + "x" * 41 + "'}]", "is not a label"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_a_bad_spec_is_one_line_naming_the_field(text: str, message: str) -> None:
    with pytest.raises(SpecError) as exc:
        _parse(text)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_too_many_combinations_are_refused_before_anything_runs() -> None:
    dims = "".join(
        f"[[dimension]]\nsetting='net.ipv4.k{i}'\nvalues=[{', '.join(map(str, range(8)))}]\n"
        for i in range(4)
    )
    with pytest.raises(SpecError, match="4096 combinations; at most 512"):
        _parse(dims)


def test_load_refuses_what_is_not_a_spec_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="not a file to read"):
        specfile.load(tmp_path)
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (specfile.MAX_SPEC_BYTES + 10))
    with pytest.raises(SpecError, match=r"big\.toml"):
        specfile.load(big)
    bad = tmp_path / "bad.toml"
    bad.write_text("[[dimension]\n")
    with pytest.raises(SpecError, match="not a TOML sweep spec"):
        specfile.load(bad)
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000)
    with pytest.raises(SpecError):
        specfile.load(deep)


def test_the_identity_follows_what_is_measured() -> None:
    a, b = _parse(GOOD), _parse(GOOD)
    assert a.identity() == b.identity()
    c = _parse(GOOD.replace("seconds = 3", "seconds = 4"))
    assert c.identity() != a.identity()


def test_every_shipped_example_parses() -> None:
    found = sorted(EXAMPLES.glob("*.toml"))
    assert len(found) >= 5, found
    for path in found:
        spec = specfile.load(path)
        assert spec.source, f"{path.name}: say where its values come from"
        assert combinations(spec)
        assert spec.cell_count() == len(combinations(spec)), path.name


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t,  # one-at-a-time across the mtu columns
        lambda t: t.replace('columns = "mtu"\n', ""),  # one-at-a-time, no columns
        lambda t: t.replace('"one-at-a-time"', '"grid"'),
        lambda t: t.replace('"one-at-a-time"', '"grid"').replace(
            "[1500, 9000]", "[1500, 4000, 9000]"
        ),
        lambda t: t.replace("[1500, 9000]", "[1500, 4000, 9000]").replace(
            "[true, false]", "[true]"
        ),
    ],
)
def test_the_count_parse_checks_is_the_plans(edit: Callable[[str], str]) -> None:
    """parse refuses a sweep over its cell limit by the spec's own count, without planning:
    the count and the plan's cells agree for each design."""
    spec = _parse(edit(GOOD))
    assert spec.cell_count() == len(combinations(spec))
