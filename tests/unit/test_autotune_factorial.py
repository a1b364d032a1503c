"""Autotune's 2x2 factorial for a pair that interacts (tso x MTU), its report and chart, and
the far end's share of a candidate (core/autotune: search._factorial, host.interacting,
host.at_both_ends, report.chart). The bench is a fake of fixed numbers, as in test_autotune."""

from __future__ import annotations

from collections.abc import Sequence

from tests.unit.test_autotune import ROOMY, FakeHost
from tuitune.core.autotune.host import AtPeer, at_both_ends, interacting
from tuitune.core.autotune.report import chart, to_markdown
from tuitune.core.autotune.search import Candidate, search
from tuitune.core.session import Key


class Interacting:
    """tso on alone nothing, MTU 9000 alone nothing, both together +40 %: the pair's gain is
    not the sum of the two (a spread of +-1 % around each)."""

    def __init__(self, host: FakeHost) -> None:
        self.host = host
        self.steps: list[str] = []

    def measure(self, step: str, repeats: int) -> list[float]:
        self.steps.append(step)
        s = self.host.state
        tso, jumbo = s["tso"] == "on", s.get("mtu") == "9000"
        base = 1000.0 * (1.4 if tso and jumbo else 1.0)
        return [base + d * 10 for d in (-1, 0, 1)[:repeats]]


PAIR = [
    Candidate("offload-disabled", "tso on", (("tso", "on"),)),
    Candidate("profile:mtu", "mtu 9000", (("mtu", "9000"),)),
]


def _host() -> FakeHost:
    host = FakeHost()
    host.state["mtu"] = "1500"
    host.original = dict(host.state)
    return host


def test_a_pair_that_gains_only_together_is_kept_by_the_factorial() -> None:
    host = _host()
    bench = Interacting(host)
    pairs = [("offload-disabled", "profile:mtu")]
    out = search(PAIR, bench, host, 3, ROOMY, say=lambda _: None, pairs=pairs)
    # Neither alone beats the noise; the fourth cell does, against the better one alone.
    assert bench.steps == [
        "baseline", "offload-disabled", "profile:mtu", "offload-disabled x profile:mtu",
        "kept set",
    ]  # fmt: skip
    assert [t.kept for t in out.tried] == [True, True]
    assert all("(the factorial); alone: " in t.why for t in out.tried)
    (f,) = out.factorials
    assert f.values == [1390.0, 1400.0, 1410.0]
    assert "interaction +40.0 points" in f.why
    assert host.state == {**host.original, "tso": "on", "mtu": "9000"}  # the kept set
    text = to_markdown(out, "eth0", "10.0.0.2", "autotune-1", [])
    assert "Factorial offload-disabled x profile:mtu" in text
    assert "| offload-disabled on | 1000.0 | 1400.0 |" in text


def test_without_the_pair_neither_would_be_kept() -> None:
    host = _host()
    out = search(PAIR, Interacting(host), host, 3, ROOMY, say=lambda _: None)
    assert not out.kept and host.state == host.original


class Additive(Interacting):
    """tso on +50 %, MTU 9000 +1 % on its own but nothing more on top of tso."""

    def measure(self, step: str, repeats: int) -> list[float]:
        self.steps.append(step)
        s = self.host.state
        base = 1500.0 if s["tso"] == "on" else (1030.0 if s.get("mtu") == "9000" else 1000.0)
        return [base + d * 10 for d in (-1, 0, 1)[:repeats]]


def test_the_weaker_of_a_pair_that_adds_nothing_on_top_is_put_back() -> None:
    host = _host()
    pairs = [("offload-disabled", "profile:mtu")]
    out = search(PAIR, Additive(host), host, 3, ROOMY, say=lambda _: None, pairs=pairs)
    assert [t.kept for t in out.tried] == [True, False]
    assert out.tried[1].why.startswith(
        "put back: adds nothing to offload-disabled (the factorial); alone: +3.0%"
    )
    assert host.state["mtu"] == "1500" and host.state["tso"] == "on"


def test_the_chart_draws_every_step_on_one_scale() -> None:
    host = _host()
    pairs = [("offload-disabled", "profile:mtu")]
    out = search(PAIR, Additive(host), host, 3, ROOMY, say=lambda _: None, pairs=pairs)
    lines = chart(out, width=20)
    assert lines[2] == "```text" and lines[-1] == "```"
    bars = lines[3:-1]
    assert [b.split()[0] for b in bars] == [
        "baseline", "offload-disabled", "profile:mtu", "kept",
    ]  # fmt: skip
    # Lengths follow the medians: 1000 against 1500 (the largest maximum, 1510, is full).
    base, best = bars[0].count("█"), bars[1].count("█")
    assert best > base > 0 and "1500.0 Mb/s (1490.0..1510.0) +50%" in bars[1]
    ascii_bars = chart(out, width=20, ascii_only=True)
    assert all(c.isascii() for line in ascii_bars for c in line)


def test_interacting_pairs_segmentation_with_mtu_and_the_far_end_shares_mtu() -> None:
    tso = Key.feature("eth0", "tx-tcp-segmentation")
    ts, rmem = Key.sysctl("net.ipv4.tcp_timestamps"), Key.sysctl("net.core.rmem_max")
    cands = [
        Candidate("offload-disabled", "tso", ((tso, "on"),)),
        Candidate("profile:net.ipv4.tcp_timestamps", "ts", ((ts, "0"),)),
        Candidate("profile:net.core.rmem_max", "rmem", ((rmem, "1"),)),
        Candidate("profile:mtu", "mtu", ((Key.mtu("eth0"), "9000"),)),
    ]  # fmt: skip
    assert interacting(cands) == [("offload-disabled", "profile:mtu")]

    def host_wide(k: Key) -> bool:
        return k.name.startswith("net.core.")

    both = at_both_ends(cands, "veth-far", host_wide)
    far: dict[str, Sequence[object]] = {
        c.id: [k for k, _ in c.changes if isinstance(k, AtPeer)] for c in both
    }
    assert far["offload-disabled"] == []  # the sender's own offload: this end only
    assert far["profile:net.core.rmem_max"] == []  # one value for the machine
    assert far["profile:mtu"] == [AtPeer(Key.mtu("veth-far"))]
    assert [k.label for k in far["profile:net.ipv4.tcp_timestamps"]] == [  # type: ignore[attr-defined]
        f"peer {Key.sysctl('net.ipv4.tcp_timestamps').label}"
    ]
    assert interacting(both) == [("offload-disabled", "profile:mtu")]
