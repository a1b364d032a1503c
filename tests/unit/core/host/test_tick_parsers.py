"""The tick's fast parsers and per-CPU rates (issue 18, goal 1) give what the line-by-line way
gives: on the real captures, on random text, and over sequences of samples where the
parsers keep the last tick's values (StatParser, SoftnetParser, cells.to_ints).

The references below are the line-by-line parsing and per-CPU arithmetic that the tick did
before, written out plainly: one object per line, one dict per row."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.core.host.cells import to_ints
from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.netdev import LinkCounters
from tuitune.core.host.procfs import (
    NET_SOFTIRQS,
    CpuTimes,
    SoftnetParser,
    StatParser,
    parse_softirqs,
    parse_softnet,
    parse_stat,
)
from tuitune.core.watch.rates import compute_rates, delta32, delta64
from tuitune.core.watch.snapshot import Counters

CAPTURES = Path(__file__).resolve().parents[3] / "fixtures/captures"


def _digits(s: str) -> bool:
    return s.isascii() and s.isdigit() and len(s) < 4000


def ref_stat(text: str) -> tuple[CpuTimes, dict[int, CpuTimes], dict[str, int]]:
    total, cpus, other = CpuTimes(), {}, {}
    for line in text.splitlines():
        f = line.split()
        if not f or not line.startswith(("cpu", "ctxt", "intr", "procs_running")):
            continue
        head = f[0]
        if head == "cpu" or (head.startswith("cpu") and _digits(head[3:])):
            try:
                t = CpuTimes(*map(int, f[1:11]))
            except ValueError:
                continue
            if head == "cpu":
                total = t
            else:
                cpus[int(head[3:])] = t
        elif head in ("ctxt", "intr", "procs_running") and len(f) > 1 and _digits(f[1]):
            other[head] = int(f[1])
    return total, cpus, other


def assert_stat_as_ref(text: str, parser: StatParser | None = None) -> None:
    got = parser.parse(text) if parser is not None else parse_stat(text)
    total, cpus, other = ref_stat(text)
    assert got.total == total
    assert got.cpus == cpus and got.ids == tuple(cpus)
    assert (got.ctxt, got.intr_total, got.procs_running) == (
        other.get("ctxt"),
        other.get("intr"),
        other.get("procs_running"),
    )


def test_stat_captures_parse_as_line_by_line() -> None:
    for path in sorted((CAPTURES / "stat").glob("*.txt")):
        assert_stat_as_ref(path.read_text())


def _widened(text: str, copies: int) -> str:
    """A capture's cpuN lines repeated under new numbers: a big host's /proc/stat."""
    lines = text.splitlines()
    cpu = [ln for ln in lines if ln.startswith("cpu") and not ln.startswith("cpu ")]
    out = [lines[0]]
    for k in range(copies):
        out += [f"cpu{k * len(cpu) + i} {ln.split(None, 1)[1]}" for i, ln in enumerate(cpu)]
    return "\n".join(out + lines[1 + len(cpu) :]) + "\n"


def test_stat_parser_over_a_big_hosts_ticks() -> None:
    """1152 CPUs from the 8-CPU capture; each tick moves some cells of some columns: the
    parser that keeps unchanged columns gives a fresh parse's result at every tick."""
    base = _widened((CAPTURES / "stat/procfs_fixture_8cpu.txt").read_text(), 144)
    parser = StatParser()
    lines = base.splitlines()
    for tick in range(6):
        for i in range(1 + tick, len(lines), 7):
            f = lines[i].split()
            if f[0].startswith("cpu"):
                f[1 + (i + tick) % 10] = str(int(f[1 + (i + tick) % 10]) + tick)
                lines[i] = " ".join(f)
        text = "\n".join(lines) + "\n"
        assert_stat_as_ref(text, parser)
        assert parser.parse(text).columns == parse_stat(text).columns


_TOKENS = st.one_of(
    st.integers(0, 10**12).map(str),
    st.sampled_from(["0", "007", "1_0", "-3", "+4", "²", "x", "", "9" * 4400]),
)


@st.composite
def stat_texts(draw: st.DrawFn) -> str:
    n = draw(st.integers(0, 6))
    regular = draw(st.booleans())
    width = draw(st.integers(0, 12))
    lines = ["cpu  " + " ".join(draw(st.lists(_TOKENS, min_size=0, max_size=11)))]
    for i in range(n):
        if regular:
            vals = [str(draw(st.integers(0, 10**9))) for _ in range(width)]
            head = f"cpu{i}"
        else:
            vals = draw(st.lists(_TOKENS, max_size=12))
            head = draw(st.sampled_from([f"cpu{i}", "cpu0", "cpuX", "cpu", f"cpu{'1' * 4400}"]))
        lines.append(" ".join([head, *vals]))
    lines += [
        "intr " + " ".join(draw(st.lists(_TOKENS, max_size=4))),
        "ctxt " + draw(_TOKENS),
        "procs_running " + draw(_TOKENS),
        "btime 1",
    ]
    if draw(st.booleans()):
        lines = draw(st.permutations(lines))
    return draw(st.sampled_from(["\n", "\r\n", "\n\n"])).join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(st.lists(stat_texts(), min_size=1, max_size=4))
def test_stat_random_text_parses_as_line_by_line(texts: list[str]) -> None:
    parser = StatParser()
    for text in texts:
        assert_stat_as_ref(text)
        assert_stat_as_ref(text, parser)


def test_parsers_never_raise_on_a_number_too_long_for_int() -> None:
    """int() refuses strings of more than 4300 digits (CVE-2020-10735): a recorded tree or an
    odd kernel must not make the parser raise (the old /proc/stat and softirqs parsers did)."""
    huge = "9" * 5000
    s = parse_stat(f"cpu  1 2 3 4\ncpu{huge} 1 2 3 4\ncpu0 1 2 3 4\nctxt {huge}\n")
    assert list(s.cpus) == [0] and s.ctxt is None
    q = parse_softirqs(f"CPU0 CPU{huge}\nNET_RX: 5 {huge}\nNET_TX: 1 2\n")
    assert q.cpus == (0,) and q.counts["NET_RX"] == (5,) and q.counts["NET_TX"] == (1, 2)


# -- /proc/softirqs: only NET_RX and NET_TX on the tick -------------------------------------


def _same_net_rows(text: str) -> None:
    full, net = parse_softirqs(text), parse_softirqs(text, NET_SOFTIRQS)
    assert set(net.counts) == set(full.counts) & NET_SOFTIRQS
    for name in NET_SOFTIRQS:
        assert net.counts.get(name) == full.counts.get(name)
        assert net.per_cpu(name) == full.per_cpu(name)


@pytest.mark.parametrize("path", sorted((CAPTURES / "softirqs").glob("*.txt")), ids=str)
def test_softirqs_net_rows_as_a_full_parse(path: Path) -> None:
    _same_net_rows(path.read_text())
    assert (
        parse_softirqs(path.read_text(), NET_SOFTIRQS).cpus == parse_softirqs(path.read_text()).cpus
    )


def ref_header(line: str) -> tuple[int, ...]:
    return tuple(int(t[3:]) for t in line.split() if t.startswith("CPU") and _digits(t[3:]))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(0, 5000).map(lambda n: f"CPU{n}"),
            st.sampled_from(["CPU", "CPUx", "xCPU1", "CPU1CPU2", "CPU²", "CPU-1", "cpu3"]),
        ),
        max_size=8,
    ),
    st.lists(_TOKENS, max_size=8),
)
def test_softirqs_header_and_rows_as_line_by_line(head: list[str], row: list[str]) -> None:
    text = "  ".join(head) + "\n  NET_RX: " + " ".join(row) + "\n   TIMER: 1 2\n"
    got = parse_softirqs(text, NET_SOFTIRQS)
    joined = " ".join(head)
    if joined.startswith("CPU") and ref_header(joined):  # a header line, with CPUs in it
        assert got.cpus == ref_header(joined)
    _same_net_rows(text)


# -- softnet_stat: the lines that changed -----------------------------------------------------


def test_softnet_parser_over_the_real_series() -> None:
    parser = SoftnetParser()
    for k in (1, 2, 3, 4, 5, 5, 1):
        text = (CAPTURES / f"softnet_stat/netutils_series_snap{k}.txt").read_text()
        assert parser.parse(text) == parse_softnet(text)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["1", "2", "zz", ""]), min_size=1, max_size=5),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([3, 9, 11, 13]),
    st.booleans(),
)
def test_softnet_parser_as_a_fresh_parse(ticks: list[list[str]], ncols: int, gaps: bool) -> None:
    parser = SoftnetParser()
    for tick in ticks:
        online = [c * 2 if gaps else c for c in range(len(tick))]
        lines = [
            " ".join([f"{v}{k}" if v in ("1", "2") else v for k in range(ncols - 1)] + ["9"])
            for v in tick
        ]
        text = "\n".join(lines) + "\n"
        assert parser.parse(text, online) == parse_softnet(text, online)


# -- cells.to_ints -----------------------------------------------------------------------------


@given(st.lists(st.lists(st.integers(0, 10**20), min_size=0, max_size=9), max_size=6))
def test_to_ints_over_ticks_as_int(ticks: list[list[int]]) -> None:
    last = None
    for values in ticks:
        text = [str(v) for v in values]
        last = to_ints(text, last)
        assert last.values == tuple(values)


# -- per-CPU rates ------------------------------------------------------------------------------


def ref_cpu_rates(a: Counters, b: Counters) -> dict[int, tuple[float, ...]]:
    inv = 1.0 / (b.time - a.time)
    out: dict[int, tuple[float, ...]] = {}
    rx = [s.per_cpu("NET_RX") for s in (a.softirqs, b.softirqs)]
    tx = [s.per_cpu("NET_TX") for s in (a.softirqs, b.softirqs)]
    for cpu, tb in b.stat.cpus.items():
        ta = a.stat.cpus.get(cpu)
        if ta is None:
            continue
        d = {f: delta64(getattr(ta, f), getattr(tb, f)) for f in CpuTimes.__slots__}
        total = sum(d[f] for f in ("user", "nice", "system", "idle", "iowait", "irq"))
        total += d["softirq"] + d["steal"]
        if total <= 0:
            continue
        guest, gnice = min(d["guest"], d["user"]), min(d["guest_nice"], d["nice"])
        pct = 100.0 / total
        soft = [
            delta32(p[cpu], c[cpu]) * inv if cpu in p and cpu in c else 0.0 for p, c in (rx, tx)
        ]
        sa, sb = a.softnet.get(cpu), b.softnet.get(cpu)
        net = [0.0] * 4
        if sa is not None and sb is not None:
            net = [
                delta32(sa.dropped, sb.dropped) * inv,
                delta32(sa.time_squeeze, sb.time_squeeze) * inv,
                delta32(sa.received_rps, sb.received_rps) * inv
                if sa.received_rps is not None and sb.received_rps is not None
                else 0.0,
                delta32(sa.cpu_collision, sb.cpu_collision) * inv
                if sa.cpu_collision is not None and sb.cpu_collision is not None
                else 0.0,
            ]
        out[cpu] = (
            cpu,
            (d["user"] - guest) * pct,
            (d["nice"] - gnice) * pct,
            *(d[f] * pct for f in ("system", "iowait", "irq", "softirq", "steal")),
            guest * pct,
            gnice * pct,
            d["idle"] * pct,
            0.0,  # intr: no /proc/interrupts rows here
            *soft,
            *net,
        )
    return out


@st.composite
def samples(draw: st.DrawFn) -> list[Counters]:
    ncpus = draw(st.integers(1, 5))
    big = st.sampled_from([0, 0, 1, 5, 10**6, (1 << 32) - 2, (1 << 32) + 3])
    out = []
    for k in range(draw(st.integers(2, 4))):
        online = [c for c in range(ncpus) if c == 0 or draw(st.booleans())]
        stat = "cpu  1 2 3 4\n" + "".join(
            f"cpu{c} "
            + " ".join(str(draw(big)) for _ in range(draw(st.sampled_from([4, 10]))))
            + "\n"
            for c in online
        )
        cpus = online if draw(st.booleans()) else list(range(ncpus))  # possible or online
        soft = "  " + "  ".join(f"CPU{c}" for c in cpus) + "\n"
        soft += "".join(f"{n}: " + " ".join(str(draw(big)) for _ in cpus) + "\n" for n in NET)
        softnet = "".join(
            " ".join(f"{draw(big) % (1 << 32):08x}" for _ in range(10)) + "\n" for _ in online
        )
        out.append(
            Counters(
                time=float(k),
                stat=parse_stat(stat),
                interrupts=parse_interrupts(""),
                softirqs=parse_softirqs(soft, NET_SOFTIRQS),
                softnet=parse_softnet(softnet, online),
                link=LinkCounters({}),
            )
        )
    return out


NET = ("NET_RX", "NET_TX")


@settings(max_examples=200, deadline=None)
@given(samples())
def test_cpu_rates_as_cpu_by_cpu(series: list[Counters]) -> None:
    for a, b in pairwise(series):
        got = compute_rates(a, b).cpus
        want = ref_cpu_rates(a, b)
        assert {c: tuple(r) for c, r in got.items()} == want
        assert list(got) == list(want)


_NCPU = 16


@st.composite
def irq_pairs(draw: st.DrawFn) -> tuple[list[list[int]], list[list[int]]]:
    """Rows of 16 CPUs' counts, before and after: a queue IRQ that fired on a CPU or two, a
    timer that fired everywhere, a 32-bit wrap, a reset, a row that did not move."""
    before, after = [], []
    for _ in range(draw(st.integers(1, 8))):
        a = draw(st.lists(st.integers(0, (1 << 32) - 1), min_size=_NCPU, max_size=_NCPU))
        kind = draw(st.sampled_from(["few", "few", "all", "wrap", "reset", "none"]))
        b = list(a)
        cells = draw(st.sets(st.integers(0, _NCPU - 1), min_size=1, max_size=3))
        for i in range(_NCPU) if kind == "all" else cells if kind != "none" else ():
            if kind == "wrap":
                a[i] = (1 << 32) - 2
                b[i] = 5
            elif kind == "reset":
                b[i] = a[i] // 2
            else:
                b[i] = a[i] + draw(st.integers(1, 10**6))
        before.append(a)
        after.append(b)
    return before, after


@settings(max_examples=200, deadline=None)
@given(irq_pairs(), st.booleans())
def test_irq_and_intr_rates_as_cell_by_cell(
    pair: tuple[list[list[int]], list[list[int]]], all_detail: bool
) -> None:
    """Per-IRQ rates and each CPU's interrupts/s, whichever way a row is done (its few moved
    cells, column sums, or cell by cell for a wrap or reset), equal delta32 cell by cell."""
    hdr = "     " + " ".join(f"CPU{c}" for c in range(_NCPU)) + "\n"

    def text(rows: list[list[int]]) -> str:
        return hdr + "".join(
            f" {40 + k}: {' '.join(map(str, r))} PCI-MSI x q{k}\n" for k, r in enumerate(rows)
        )

    stat_a = "".join(f"cpu{c} 0 0 0 100\n" for c in range(_NCPU))
    stat_b = "".join(f"cpu{c} 0 0 0 300\n" for c in range(_NCPU))
    before, after = pair

    def sample(t: float, stat: str, rows: list[list[int]]) -> Counters:
        return Counters(
            time=t,
            stat=parse_stat(stat),
            interrupts=parse_interrupts(text(rows)),
            softirqs=parse_softirqs(""),
            softnet={},
            link=None,
        )

    dt = 0.5
    detail = None if all_detail else {"40"}
    got = compute_rates(sample(0.0, stat_a, before), sample(dt, stat_b, after), detail)
    intr = [0] * _NCPU
    for k, (a, b) in enumerate(zip(before, after, strict=True)):
        d = [delta32(x, y) for x, y in zip(a, b, strict=True)]
        rate = got.irqs[str(40 + k)]
        assert rate.total == sum(d) / dt or rate.total == pytest.approx(sum(d) / dt)
        if all_detail or k == 0:
            assert rate.per_cpu == pytest.approx({c: v / dt for c, v in enumerate(d) if v})
        intr = [x + y for x, y in zip(intr, d, strict=True)]
    assert [got.cpus[c].intr for c in range(_NCPU)] == pytest.approx([v / dt for v in intr])


def test_show_json_names_each_cpus_rates() -> None:
    """CpuRates became a NamedTuple for speed: `tuitune show --json` still gives each CPU's
    rates as an object with named fields, not a bare list."""
    from tuitune.core.jsondoc import jsonable

    def sample(t: float, idle: int) -> Counters:
        return Counters(
            time=t,
            stat=parse_stat(f"cpu0 10 0 5 {idle}\n"),
            interrupts=parse_interrupts(""),
            softirqs=parse_softirqs(""),
            softnet={},
            link=None,
        )

    doc = jsonable(compute_rates(sample(0.0, 100), sample(1.0, 200)))
    assert doc["cpus"]["0"]["cpu"] == 0 and doc["cpus"]["0"]["idle"] == 100.0
    assert list(doc["cpus"]["0"])[:3] == ["cpu", "usr", "nice"]
