"""Autotune's statistics and its search loop, with a fake benchmark of fixed numbers."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tuitune.core.autotune.search import AutotuneError, Budget, Candidate, search
from tuitune.core.autotune.stats import gain, judge, p_greater, u_statistic


def test_u_counts_pairs_and_half_ties() -> None:
    assert u_statistic([3, 4], [1, 2]) == 4
    assert u_statistic([2], [2]) == 0.5


def test_exact_p_values_match_the_tables() -> None:
    # Complete separation: 1 / C(n+m, n).
    assert p_greater([4, 5, 6], [1, 2, 3]) == pytest.approx(1 / 20)
    assert p_greater([5, 6, 7, 8], [1, 2, 3, 4]) == pytest.approx(1 / 70)
    assert p_greater([1, 2, 3], [4, 5, 6]) == pytest.approx(1.0)
    # One swap out of complete separation at 4 v 4: U = 15, P(U >= 15) = 2/70.
    assert p_greater([4, 6, 7, 8], [1, 2, 3, 5]) == pytest.approx(2 / 70)


def test_ties_are_enumerated_not_ignored() -> None:
    assert p_greater([1, 1, 1], [1, 1, 1]) == pytest.approx(1.0)


def test_small_samples_need_ranges_apart() -> None:
    assert judge([11, 12, 13], [8, 9, 10], higher_better=True).better
    # p would be low-ish, but the ranges touch: within the noise.
    assert not judge([10, 12, 13], [8, 9, 10], higher_better=True).better
    assert judge([11, 12], [8, 9], higher_better=True).better  # n=2: the ranges decide


def test_four_runs_use_the_u_test_and_latency_is_lower_better() -> None:
    assert judge([4, 6, 7, 8], [1, 2, 3, 5], higher_better=True).better  # p = 2/70
    assert not judge([3, 6, 7, 8], [1, 2, 4, 5], higher_better=True).better  # p = 4/70 > 0.05
    assert judge([10, 11, 12], [20, 21, 22], higher_better=False).better


def test_gain_interval_pairs_the_ranges() -> None:
    mid, low, high = gain([110, 120, 130], [90, 100, 110])
    assert mid == pytest.approx(20.0)
    assert low == pytest.approx(0.0)
    assert high == pytest.approx(130 / 90 * 100 - 100)


class FakeHost:
    """Settings in a dict; steps as a stack, as the journal keeps them."""

    def __init__(self) -> None:
        self.state: dict[str, str] = {"tso": "off", "gro": "on", "ring": "256"}
        self.original = dict(self.state)
        self.steps: list[dict[str, str]] = []
        self.refuse: set[str] = set()

    def apply(self, changes: Sequence[tuple[str, str]]) -> str | None:
        if any(k in self.refuse for k, _ in changes):
            return "the driver refused"
        self.steps.append({k: self.state[k] for k, _ in changes})
        self.state.update(dict(changes))
        return None

    def undo(self) -> None:
        self.state.update(self.steps.pop())

    def keep(self) -> None:
        self.kept = len(self.steps)

    def revert_all(self) -> None:
        while self.steps:
            self.undo()


class FakeBench:
    """Throughput from the host's state: tso on +50 %, ring 4096 +1 % (noise), gro off -30 %;
    a fixed spread of -1, 0, +1 around it."""

    def __init__(self, host: FakeHost, fail_at: str | None = None) -> None:
        self.host = host
        self.steps: list[str] = []
        self.fail_at = fail_at

    def measure(self, step: str, repeats: int) -> list[float]:
        self.steps.append(step)
        if step == self.fail_at:
            raise AutotuneError(f"{step}: the server went away")
        s = self.host.state
        base = 1000.0 * (1.5 if s["tso"] == "on" else 1.0) * (0.7 if s["gro"] == "off" else 1.0)
        base *= 1.001 if s["ring"] == "4096" else 1.0
        return [base + d * 10 for d in (-1, 0, 1, 0.5, -0.5)[:repeats]]


CANDS = [
    Candidate("offload-disabled", "tso off", (("tso", "on"),)),
    Candidate("rings-small", "rings", (("ring", "4096"),)),
    Candidate("gro-bad", "gro", (("gro", "off"),)),
]
ROOMY = Budget(max_runs=100, seconds=1e9, run_seconds=1)


def test_search_keeps_only_what_beats_the_noise() -> None:
    host = FakeHost()
    bench = FakeBench(host)
    out = search(CANDS, bench, host, 3, ROOMY, say=lambda _: None)
    assert [t.kept for t in out.tried] == [True, False, False]
    assert [c.id for c in out.kept] == ["offload-disabled"]
    assert host.state == {**host.original, "tso": "on"}  # the kept set, one step
    assert len(host.steps) == 1
    assert bench.steps == ["baseline", "offload-disabled", "rings-small", "gro-bad", "kept set"]
    mid, low, high = out.final_gain() or (0, 0, 0)
    assert mid == pytest.approx(50.0)
    assert low < mid < high
    assert out.runs == 15


def test_each_candidate_is_measured_alone() -> None:
    host = FakeHost()
    seen: list[dict[str, str]] = []

    class Spy(FakeBench):
        def measure(self, step: str, repeats: int) -> list[float]:
            seen.append(dict(self.host.state))
            return super().measure(step, repeats)

    search(CANDS, Spy(host), host, 3, ROOMY, say=lambda _: None)
    assert seen[2] == {**host.original, "ring": "4096"}  # tso (kept) is not on under it


def test_a_refused_candidate_is_reported_and_the_rest_go_on() -> None:
    host = FakeHost()
    host.refuse = {"tso"}
    out = search(CANDS, FakeBench(host), host, 3, ROOMY, say=lambda _: None)
    assert out.tried[0].why.startswith("not applied: the driver refused")
    assert not out.kept and host.state == host.original


def test_the_budget_in_runs_leaves_room_for_the_kept_set() -> None:
    host = FakeHost()
    out = search(CANDS, FakeBench(host), host, 3, Budget(9, 1e9, 1), say=lambda _: None)
    # baseline 3 + one candidate 3 + the kept set 3 = 9: the others are not tried.
    assert [t.why.startswith("not tried") for t in out.tried] == [False, True, True]
    assert out.runs == 9 and [c.id for c in out.kept] == ["offload-disabled"]


def test_the_budget_in_time() -> None:
    host = FakeHost()
    now = [0.0]

    def clock() -> float:
        now[0] += 10
        return now[0]

    out = search(
        CANDS, FakeBench(host), host, 3, Budget(100, 15, 1), say=lambda _: None, clock=clock
    )
    assert all(t.why.startswith("not tried") for t in out.tried)
    assert host.state == host.original


def test_an_error_mid_candidate_puts_that_candidate_back_and_propagates() -> None:
    host = FakeHost()
    with pytest.raises(AutotuneError):
        search(CANDS, FakeBench(host, fail_at="rings-small"), host, 3, ROOMY, say=lambda _: None)
    assert host.state == host.original and not host.steps


def test_an_interruption_in_the_final_measurement_undoes_the_kept_set() -> None:
    host = FakeHost()

    class Stop(FakeBench):
        def measure(self, step: str, repeats: int) -> list[float]:
            if step == "kept set":
                raise KeyboardInterrupt
            return super().measure(step, repeats)

    with pytest.raises(KeyboardInterrupt):
        search(CANDS, Stop(host), host, 3, ROOMY, say=lambda _: None)
    assert host.state == host.original and not host.steps


def test_a_kept_set_that_lost_its_gain_together_is_put_back() -> None:
    host = FakeHost()

    class Flat(FakeBench):
        def measure(self, step: str, repeats: int) -> list[float]:
            if step == "kept set":
                return [985.0, 1000.0, 1005.0]
            return super().measure(step, repeats)

    out = search(CANDS, Flat(host), host, 3, ROOMY, say=lambda _: None)
    assert not out.kept and "no gain, put back" in out.note
    assert host.state == host.original


def test_a_kept_set_with_a_gain_inside_the_noise_stays_and_says_so() -> None:
    host = FakeHost()

    class Noisy(FakeBench):
        def measure(self, step: str, repeats: int) -> list[float]:
            if step == "kept set":
                return [900.0, 1300.0, 1400.0]
            return super().measure(step, repeats)

    out = search(CANDS, Noisy(host), host, 3, ROOMY, say=lambda _: None)
    assert [c.id for c in out.kept] == ["offload-disabled"]
    assert "NOT above the noise" in out.note and host.state["tso"] == "on"


def test_the_report_says_what_was_kept_with_its_interval_and_escapes_names() -> None:
    from tuitune.core.autotune.report import to_markdown

    host = FakeHost()
    out = search(CANDS, FakeBench(host), host, 3, ROOMY, say=lambda _: None)
    text = to_markdown(out, "eth\x1b[2J|0", "10.0.0.2", "autotune-1", ["mtu-low: on trial"])
    assert "# autotune autotune-1: eth\\x1b[2J\\|0 -> 10.0.0.2" in text
    assert "| baseline | 1000.0 | 990.0..1010.0 | 990.0, 1000.0, 1010.0 | |" in text
    assert "| rings-small | 1001.0 | 991.0..1011.0 |" in text and "put back: +0.1%" in text
    assert "**Final: +50.0% against the baseline** (interval +47.5%..+52.5%" in text
    assert "Kept: offload-disabled" in text and "- not tried: mtu-low: on trial" in text


@pytest.mark.parametrize(
    "bad",
    [["--repeats", "1"], ["--repeats", "9"], ["--budget", "5x"], ["--budget", "0"]],
)
def test_bad_options_are_one_line_and_change_nothing(
    bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from tuitune import cli

    with pytest.raises(SystemExit) as exc:
        cli.main(["autotune", "eth0", "--peer", "192.0.2.1", *bad])
    assert exc.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
