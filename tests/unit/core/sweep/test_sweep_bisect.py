"""The bisect on a synthetic measurement: one setting (or a pair together) is the cause, the
others only noise; ddmin names the cause in fewer measurements than trying each subset."""

from __future__ import annotations

from collections.abc import Sequence

from tuitune.core.sweep.bisect import bisect, explain
from tuitune.core.sweep.stats import Summary, summarize

NAMES = [f"s{i}" for i in range(12)]


def _measure(cause: set[str], counter: list[int]) -> object:
    def measure(bad_names: Sequence[str]) -> Summary | None:
        counter.append(1)
        base = 10000.0
        if cause <= set(bad_names):
            base *= 0.43  # -57 %
        jitter = len(bad_names) * 7.0  # the other settings: well within noise
        return summarize([base - 100 + jitter, base + jitter, base + 100 + jitter])

    return measure


def test_one_setting_is_found_and_named() -> None:
    counter: list[int] = []
    result = bisect(["tso", *NAMES], _measure({"tso"}, counter))  # type: ignore[arg-type]
    assert result.culprits == ["tso"]
    assert (
        explain(result, 13) == "tso explain(s) -56 % (the other 12 difference(s) are within noise)"
    )
    assert len(counter) < 2**13  # far fewer than every subset
    assert len(counter) <= 16


def test_two_settings_that_only_matter_together_are_both_named() -> None:
    counter: list[int] = []
    names = [*NAMES[:5], "tx", *NAMES[5:], "sg"]
    result = bisect(names, _measure({"tx", "sg"}, counter))  # type: ignore[arg-type]
    assert sorted(result.culprits) == ["sg", "tx"]


def test_good_and_bad_within_noise_narrow_nothing() -> None:
    counter: list[int] = []
    result = bisect(NAMES, _measure({"nothing"}, counter))  # type: ignore[arg-type]
    assert result.culprits == []
    assert "within noise" in explain(result, len(NAMES))
    assert len(counter) == 2  # the good and the bad state, nothing more
