"""The live screen's sweep form read into a spec (the same checks as a file, one line each),
and the pivot drawn as bars: each bar's length its median on one scale, the whisker its
min..max, the noise flag against the first row."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.unit.core.sweep.test_sweep_pivot import NUMBERS, SPEC, _runs
from tuitune.core.sweep import pivot
from tuitune.core.sweep.chart import bars
from tuitune.core.sweep.form import from_form
from tuitune.core.sweep.spec import SpecError


def test_the_form_gives_the_spec_a_file_would() -> None:
    spec = from_form(
        ["tso = on | off", "", "pin = none | 0,1", "streams = 1 | 4"],
        design="one-at-a-time",
        repeats="3",
        seconds="5",
    )
    assert [d.name for d in spec.dimensions] == ["tso", "pin", "streams"]
    assert [v.label for v in spec.dimensions[1].values] == ["none", "0,1"]
    assert [v.label for v in spec.dimensions[2].values] == ["1", "4"]
    assert (spec.design, spec.repeats, spec.bench.seconds) == ("one-at-a-time", 3, 5)


@pytest.mark.parametrize(
    ("dims", "extra", "says"),
    [
        ([""], {}, "dimension 1: name a setting"),
        (["tso on off"], {}, "dimension 1: write SETTING = VALUE | VALUE"),
        (["tso = on |"], {}, "an empty value between bars"),
        (["tso = on", "streams = 1 | x"], {}, "dimension 2 values[2]: 'x': streams are"),
        (["bad name = 1"], {}, "dimension 1 setting: bad name: unknown setting"),
        (["tso = on"], {"repeats": "two"}, "repeats: 'two' is not a whole number"),
        (["tso = on"], {"repeats": "0"}, "repeats: 0 is not a whole number 1..100"),
        (["tso = on"], {"seconds": "1e3"}, "seconds: '1e3'"),
        (["tso = on"], {"design": "diagonal"}, "design: 'diagonal'"),
    ],
)
def test_a_bad_form_is_one_line_naming_the_field(
    dims: list[str], extra: dict[str, str], says: str
) -> None:
    with pytest.raises(SpecError) as err:
        from_form(dims, **extra)
    assert says in str(err.value) and "\n" not in str(err.value)


def test_bars_share_one_scale_and_whiskers_span_the_repeats() -> None:
    table = pivot.build(SPEC, "t-x-1", _runs(NUMBERS))
    drawn = bars(table, 41, ascii_only=True)
    assert [b.label for b in drawn][:2] == ["baseline  mtu 1500", "baseline  mtu 9000"]
    assert all(len(b.bar) == 41 for b in drawn)
    by = {b.label: b for b in drawn}
    top = max(max(v) for v in NUMBERS.values())  # the longest whisker ends at the last column
    base = by["baseline  mtu 1500"]
    assert base.value.startswith("15100 Mb/s (15000..15400)") and base.within_noise is None
    # The median's bar: 15100 of the scale's maximum, in 40 steps.
    assert base.bar.count("#") == round(15100 / top * 40)
    tso = by["tso off  mtu 1500"]
    assert "-15%" in tso.value and tso.within_noise is False  # 12600..13000 vs 15000..15400
    lo, hi = round(12600 / top * 40), round(13000 / top * 40)
    assert (tso.bar[lo], tso.bar[hi]) == ("|", "|")
    assert tso.bar.rstrip().endswith("|") and len(tso.bar.rstrip()) == hi + 1
    gap = by["sg off  mtu 9000"]  # never measured: no bar, no number
    assert (gap.bar.strip(), gap.value) == ("", "-")
    # The screen's own glyphs when the terminal has them.
    assert "█" in bars(table, 41)[0].bar


def test_the_json_holds_both_ends_cpu_and_the_seed() -> None:
    import json

    runs = _runs(NUMBERS)
    doc = json.loads(pivot.to_json(pivot.build(SPEC, "t-x-1", runs)))
    cell = next(c for c in doc["cells"] if (c["row"], c["column"]) == ("tso off", "1500"))
    assert cell["cpu_pct"] == {"local": 50.0, "remote": 40.0}  # iperf3's, this end and the peer
    assert doc["seed"] is None  # these runs recorded no shuffle
    seeded = [replace(r, tags={**r.tags, "seed": "4242"}) for r in runs]
    table = pivot.build(SPEC, "t-x-1", seeded)
    assert json.loads(pivot.to_json(table))["seed"] == 4242
    assert "order: shuffled, seed 4242" in pivot.to_text(table)
