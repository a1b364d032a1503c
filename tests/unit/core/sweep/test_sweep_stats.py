"""The statistics of a cell against known numbers: median, range, the 95 % interval of the
mean, and the within-noise flag."""

from __future__ import annotations

import pytest

from tuitune.core.sweep.stats import summarize, t95, versus


def test_summary_of_known_numbers() -> None:
    s = summarize([15000, 15100, 15400])
    assert s is not None
    assert (s.n, s.median, s.low, s.high) == (3, 15100, 15000, 15400)
    # mean 15166.67, sample sd 208.17, t(2) = 4.303: half-width 517.1
    assert s.ci is not None
    assert s.ci[0] == pytest.approx(14649.5, abs=0.5)
    assert s.ci[1] == pytest.approx(15683.8, abs=0.5)
    assert summarize([]) is None
    one = summarize([7.0])
    assert one is not None and one.ci is None and one.interval == (7.0, 7.0)
    assert t95(1) == 12.706 and t95(100) == 1.96


def test_a_difference_inside_the_noise_is_flagged() -> None:
    base = summarize([15000, 15100, 15400])
    near = summarize([14800, 15000, 15300])  # NASA's +/-300: the same
    far = summarize([12900, 12600, 13000])  # TSO off at MTU 1500
    assert base and near and far
    v = versus(near, base)
    assert v.within_noise and v.pct == pytest.approx(-0.662, abs=0.01)
    w = versus(far, base)
    assert not w.within_noise and w.pct == pytest.approx(-14.57, abs=0.01)


def test_single_runs_are_never_called_a_result() -> None:
    a, b = summarize([100.0]), summarize([50.0])
    assert a and b
    assert versus(b, a).within_noise
    # One repeat against three: the three's interval against the one value.
    many = summarize([100.0, 101.0, 99.0])
    assert many
    assert not versus(b, many).within_noise
