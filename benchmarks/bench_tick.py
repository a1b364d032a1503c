"""Cost of one sampling tick against host size.

One tick is what the monitor does once per refresh period: ``HostReader._counters()`` (read and
parse /proc/stat, /proc/interrupts, /proc/softirqs, /proc/net/softnet_stat and the watched
link's counters) followed by ``compute_rates(prev, cur)``.

Host trees are built in a temporary directory with tests/support/hosttree.py:

* the real captures in ../shared/fixtures as they are (4 to 48 CPUs);
* synthetic trees widened from the 32-CPU, 180-row netutils ixgbe/igb capture: CPU columns
  repeated with ``scale_interrupts`` and numbered IRQ rows repeated under new IRQ numbers,
  from 64 CPUs x 128 rows up to 1024 CPUs x 2048 rows.

Each tree is written twice: a first sample, and a second one where every count in
/proc/interrupts, the per-CPU times in /proc/stat, /proc/softirqs, the softnet_stat columns and
the link counters have grown, so that compute_rates has a non-zero rate in every (IRQ, CPU) cell
(the most work it can have). /proc/stat, /proc/softirqs and the link counters are synthesised
with the tree's CPU count; softnet_stat rows are the real 32-CPU ixgbe host's rows, repeated.

The time inside ``InterruptsParser.parse`` is measured by wrapping the method HostReader calls
(two perf_counter calls per tick); "other" is the rest of ``_counters``: file reads and the
stat/softirqs/softnet parsers. The live machine is read through HostRoot() (real /proc and /sys,
read only). ``_counters`` is called on the benchmark's thread, so the hop to the HostReader's
kernel thread that ``counters()`` adds is not in the tick column; one extra row shows it.

Run from the repository root::

    .venv/bin/python -m benchmarks.bench_tick [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from tests.support import hosttree  # builds host trees from the real captures
from tuitune.core.host.interrupts import Interrupts, InterruptsParser, parse_interrupts
from tuitune.core.host.netdev import COUNTER_NAMES
from tuitune.core.host.procfs import CpuTimes, parse_stat
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.rates import Rates, compute_rates
from tuitune.core.watch.snapshot import Counters

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO.parent / "shared" / "fixtures"
REFRESH_S = 1.0  # the monitor's refresh period
# On a live host most IRQ rows do not move in a second (idle devices and queues); the
# "typical" tick has 1 row in 8 moving. This machine, live, is measured as it is.
TYPICAL_EVERY = 8

BASE_FOR_SCALING = "interrupts/netutils_ixgbe-82599_igb-i350_32cpu.txt"
SOFTNET_SOURCE = "softnet_stat/ixgbe_host_32cpu_centos7_10col.txt"
SYNTHETIC_SIZES = ((64, 128), (128, 256), (256, 512), (512, 1024), (1024, 2048))
SOFTIRQ_NAMES = (
    "HI",
    "TIMER",
    "NET_TX",
    "NET_RX",
    "BLOCK",
    "IRQ_POLL",
    "TASKLET",
    "SCHED",
    "HRTIMER",
    "RCU",
)


# -- the two samples of each tree ------------------------------------------------------------

_COUNT = re.compile(r"(\s*)(\d+)(?=\s|$)")


def bump_interrupts(text: str, ncol: int, every: int = 1) -> str:
    """The same text with the per-CPU counts of every `every`-th row increased by 1..7 (every=1:
    all rows, the worst case); the layout is kept."""
    out: list[str] = []
    for r, line in enumerate(text.split("\n")):
        label, sep, rest = line.partition(":")
        token = label.strip()
        if not sep or not token or len(token.split()) != 1 or r % every:
            out.append(line)
            continue
        pieces: list[str] = []
        pos = 0
        for c in range(ncol):
            m = _COUNT.match(rest, pos)
            if m is None:
                break
            ws, digits = m.group(1), m.group(2)
            value = int(digits) + 1 + (r + c) % 7
            new = f"{value:>{len(ws) + len(digits)}}"
            if ws and not new.startswith(" "):  # the number grew into its separating space
                new = f" {value}"
            pieces.append(new)
            pos = m.end()
        out.append(label + sep + "".join(pieces) + rest[pos:])
    return "\n".join(out)


def widen_rows(text: str, nrows: int) -> str:
    """Keep the header and the named rows (NMI, LOC...) once; fill up to `nrows` rows with the
    numbered rows, repeated in order under new IRQ numbers above the capture's largest."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    header, body = lines[0], lines[1:]
    numbered = [ln for ln in body if ln.partition(":")[0].strip().isdigit()]
    named = [ln for ln in body if not ln.partition(":")[0].strip().isdigit()]
    want = nrows - len(named)
    if want < 1 or not numbered:
        raise ValueError(f"cannot make {nrows} rows from {len(named)} named rows")
    next_irq = max(int(ln.partition(":")[0]) for ln in numbered) + 1
    width = len(str(next_irq + want)) + 1
    out = [header]
    for k in range(want):
        label, _, rest = numbered[k % len(numbered)].partition(":")
        irq = int(label) if k < len(numbered) else next_irq + k - len(numbered)
        out.append(f"{irq:>{width}}:{rest}")
    return "\n".join(out + named) + "\n"


def stat_text(ncpus: int, nirqs: int, s: int) -> str:
    """/proc/stat for `ncpus` CPUs; sample s=1 is about 1 s (100 USER_HZ ticks) after s=0."""
    rows = []
    for i in range(ncpus):
        rows.append(
            [
                100_000 + 37 * i + s * (20 + i % 7),  # user
                50 + s * (i % 2),  # nice
                40_000 + 11 * i + s * (10 + i % 5),  # system
                9_000_000 + i + s * (60 + i % 11),  # idle
                300 + s * (i % 3),  # iowait
                5 + s,  # irq
                2_000 + s * (2 + i % 4),  # softirq
                0,  # steal
                0,  # guest
                0,  # guest_nice
            ]
        )
    total = [sum(col) for col in zip(*rows, strict=True)]
    intr = [j * 3 + s * (j % 13 + 1) for j in range(nirqs)]
    lines = ["cpu  " + " ".join(map(str, total))]
    lines += [f"cpu{i} " + " ".join(map(str, r)) for i, r in enumerate(rows)]
    lines.append(f"intr {sum(intr)} " + " ".join(map(str, intr)))
    lines += [
        f"ctxt {38_014_093 + s * 5_000}",
        "btime 1418183276",
        f"processes {26_442 + s}",
        "procs_running 2",
        "procs_blocked 0",
        f"softirq {5_057_579 + s * 900} 0 0 0 0 0 0 0 0 0 0",
    ]
    return "\n".join(lines) + "\n"


def softirqs_text(ncpus: int, s: int) -> str:
    head = " " * 20 + "".join(f"CPU{i:<8}" for i in range(ncpus))
    rows = [head]
    for n, name in enumerate(SOFTIRQ_NAMES):
        counts = (1000 * n + 17 * i + s * (1 + (n + i) % 9) for i in range(ncpus))
        rows.append(f"{name:>12}:" + "".join(f" {c:>10}" for c in counts))
    return "\n".join(rows)


def softnet_text(source: Sequence[str], ncpus: int, s: int) -> str:
    """One row per CPU from the real capture's rows, in turn; s=1 adds processed/drops/squeezes."""
    out = []
    for i in range(ncpus):
        v = [int(tok, 16) for tok in source[i % len(source)].split()]
        v[0] += s * (100 + i)
        v[1] += s * (i % 2)
        v[2] += s * (1 + i % 3)
        out.append(" ".join(f"{x:08x}" for x in v))
    return "\n".join(out) + "\n"


# -- cases -----------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    interrupts: tuple[str, str]  # first and second sample
    ifname: str
    synthetic: bool
    typical: str = ""  # a second sample where only 1 row in TYPICAL_EVERY moved


def real_case(fixtures: Path, name: str, rel: str, ifname: str) -> Case:
    text = (fixtures / rel).read_text()
    ncol = parse_interrupts(text).ncpus
    return Case(
        name,
        (text, bump_interrupts(text, ncol)),
        ifname,
        synthetic=False,
        typical=bump_interrupts(text, ncol, TYPICAL_EVERY),
    )


def cases(fixtures: Path) -> list[Case]:
    out = [
        real_case(fixtures, name, rel, ifname)
        for name, rel, ifname in (
            ("virtio, procfs", "interrupts/virtio_net_1q_4cpu_kvm_procfs.txt", "eth0"),
            ("ixgbe eno49 (grep)", "interrupts/ixgbe_32cpu_centos7_grep_eno49.txt", "eno49"),
            ("ixgbe+igb, netutils", BASE_FOR_SCALING, "eth0"),
            ("qlcnic+tg3, netutils", "interrupts/netutils_qlcnic_tg3_48cpu.txt", "eth0"),
        )
    ]
    base_a, base_b = out[2].interrupts
    base_cpus = parse_interrupts(base_a).ncpus
    for ncpus, nrows in SYNTHETIC_SIZES:
        factor = ncpus // base_cpus
        first = widen_rows(hosttree.scale_interrupts(base_a, factor), nrows)
        texts = (first, widen_rows(hosttree.scale_interrupts(base_b, factor), nrows))
        typical = bump_interrupts(first, ncpus, TYPICAL_EVERY)
        out.append(Case(f"synthetic {ncpus}x{nrows}", texts, "eth0", True, typical))
    return out


def write_tree(dest: Path, case: Case, s: int, softnet_source: Sequence[str]) -> Path:
    parsed = parse_interrupts(case.interrupts[s])
    ncpus = parsed.ncpus
    numbers = [int(r.irq) for r in parsed.rows if r.numeric]
    tree: Path = hosttree.build_tree(
        dest,
        hosttree.TreeSpec(
            ncpus=ncpus,
            interrupts=case.interrupts[s],
            stat=stat_text(ncpus, max(numbers, default=0) + 1, s),
            softirqs=softirqs_text(ncpus, s),
            softnet=softnet_text(softnet_source, ncpus, s),
            ifname=case.ifname,
        ),
    )
    stats = tree / "sys/class/net" / case.ifname / "statistics"
    stats.mkdir(parents=True, exist_ok=True)
    for k, name in enumerate(COUNTER_NAMES):
        (stats / name).write_text(f"{10**9 + k * 1000 + s * (1000 + k)}\n")
    return tree


# -- timing ----------------------------------------------------------------------------------


@dataclass
class Result:
    name: str
    ncpus: int
    nrows: int
    nbytes: int
    synthetic: bool
    tick: list[float] = field(default_factory=list)  # _counters + compute_rates, seconds
    parse: list[float] = field(default_factory=list)  # parse_interrupts inside _counters
    rates: list[float] = field(default_factory=list)  # compute_rates, NIC IRQs in detail
    rates_all: list[float] = field(default_factory=list)  # compute_rates, every IRQ in detail
    typical_of: str = ""  # set on the "1 row in 8 moved" twin of a tree
    other: list[float] = field(default_factory=list)  # _counters minus parse_interrupts

    @property
    def cells(self) -> int:
        return self.ncpus * self.nrows

    def median(self, xs: list[float]) -> float:
        return statistics.median(xs)

    def p90(self, xs: list[float]) -> float:
        ordered = sorted(xs)
        return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


class TimedParse:
    """Wraps InterruptsParser.parse (what HostReader calls each tick) and records how long
    each call took."""

    def __init__(self) -> None:
        self.last = 0.0

    def wrap(self) -> Callable[[InterruptsParser, str], Interrupts]:
        real = InterruptsParser.parse

        def parse(parser: InterruptsParser, text: str) -> Interrupts:
            t = time.perf_counter()
            parsed = real(parser, text)
            self.last = time.perf_counter() - t
            return parsed

        return parse


def prime(reader: HostReader, text: str) -> Interrupts:
    """Put the reader's incremental parser in the state the previous tick left it in: it has
    parsed `text` (the first sample), so the timed tick re-parses exactly the rows that moved.
    Returns that parse, which is what the previous tick's counters held."""
    reader._irq_parser = InterruptsParser()
    return reader._irq_parser.parse(text)


@dataclass
class Budget:
    seconds: float  # aimed-at timing time per tree
    low: int  # fewest repeats
    high: int  # most repeats

    def repeats(self, one: float) -> int:
        return max(self.low, min(self.high, int(self.seconds / max(one, 1e-6))))


def check(rates: Rates, cur: Counters) -> None:
    """The tick did the work claimed: a rate for every CPU, and for every IRQ row."""
    if len(rates.cpus) != len(cur.stat.cpus) or len(rates.irqs) != len(cur.interrupts.rows):
        raise AssertionError(
            f"rates cover {len(rates.cpus)}/{len(cur.stat.cpus)} CPUs and "
            f"{len(rates.irqs)}/{len(cur.interrupts.rows)} IRQ rows"
        )


def time_tree(
    first: HostReader,
    second: HostReader,
    ifname: str | None,
    result: Result,
    budget: Budget,
    *,
    live: bool = False,
    sample: Callable[[HostReader, str | None], Counters] | None = None,
) -> None:
    """Tick = second's sample against first's. Live: consecutive samples of one reader."""
    take = sample or (lambda reader, name: reader._counters(name))
    # The screen shows per-CPU rates for the NIC's IRQs; the "all IRQs" view asks for every one.
    detail = {q.irq for q in second.nic_state(ifname, False).irqs} if ifname else None
    timed = TimedParse()
    with mock.patch.object(InterruptsParser, "parse", timed.wrap()):
        prev = take(first, ifname)
        t0 = time.perf_counter()
        cur = take(second, ifname)
        rates = compute_rates(prev, cur)
        warm = time.perf_counter() - t0
        if not live:
            check(rates, cur)
        del cur, rates
        for _ in range(budget.repeats(warm)):
            if not live:
                primed = prime(second, first.root.read_proc("interrupts"))
                prev = dataclasses.replace(prev, interrupts=primed)
            t0 = time.perf_counter()
            cur = take(second, ifname)
            t1 = time.perf_counter()
            rates = compute_rates(prev, cur, detail)
            t2 = time.perf_counter()
            compute_rates(prev, cur)
            t3 = time.perf_counter()
            result.tick.append(t2 - t0)
            result.parse.append(timed.last)
            result.rates.append(t2 - t1)
            result.rates_all.append(t3 - t2)
            result.other.append(t1 - t0 - timed.last)
            if live:
                prev = cur
            del cur, rates


# -- report ----------------------------------------------------------------------------------


def machine() -> list[str]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Processor", "cpu model")):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass

    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD")
    if commit and git("status", "--porcelain", "--untracked-files=no", "--", "tuitune"):
        commit += " (tuitune/ has uncommitted changes)"
    return [
        f"- nproc: {len(os.sched_getaffinity(0))}",
        f"- kernel (uname -r): {platform.release()}",
        f"- python: {platform.python_version()} ({sys.executable})",
        f"- CPU: {model}",
        f"- tuitune commit: {commit or 'unknown'}",
    ]


def host_times() -> CpuTimes | None:
    """This machine's aggregate /proc/stat line (read only), to report steal during the run."""
    try:
        return parse_stat(Path("/proc/stat").read_text()).total
    except OSError:
        return None


def steal_share(a: CpuTimes | None, b: CpuTimes | None) -> str:
    if a is None or b is None or b.total <= a.total:
        return "unknown"
    return f"{(b.steal - a.steal) / (b.total - a.total):.1%} of CPU time"


def table(results: list[Result]) -> list[str]:
    lines = [
        "| host tree | CPUs | IRQ rows | /proc/interrupts bytes | tick median ms | tick p90 ms "
        "| parse_interrupts ms | parse share | compute_rates ms | other ms | µs per cell "
        "| tick / 1 s period | rates, all IRQs detailed, ms | repeats |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in results:
        tick = r.median(r.tick)
        parse = r.median(r.parse)
        lines.append(
            f"| {r.name} | {r.ncpus} | {r.nrows} | {r.nbytes:,} | {tick * 1e3:.2f} "
            f"| {r.p90(r.tick) * 1e3:.2f} | {parse * 1e3:.2f} | {parse / tick:.0%} "
            f"| {r.median(r.rates) * 1e3:.2f} | {r.median(r.other) * 1e3:.2f} "
            f"| {tick * 1e6 / r.cells:.3f} | {tick / REFRESH_S:.2%} "
            f"| {r.median(r.rates_all) * 1e3:.2f} | {len(r.tick)} |"
        )
    return lines


def growth(results: list[Result]) -> list[str]:
    """µs per cell over the synthetic trees; flat (ratio 1, log-log slope 1) means linear."""
    syn = [r for r in results if r.synthetic and not r.typical_of]
    if len(syn) < 2:
        return []
    small, large = syn[0], syn[-1]

    def per_cell(r: Result, xs: list[float]) -> float:
        return r.median(xs) * 1e6 / r.cells

    def slope(pick: Callable[[Result], list[float]]) -> float:
        xs = [math.log(r.cells) for r in syn]
        ys = [math.log(r.median(pick(r))) for r in syn]
        return statistics.linear_regression(xs, ys).slope

    parts: list[tuple[str, Callable[[Result], list[float]]]] = [
        ("tick", lambda r: r.tick),
        ("parse_interrupts", lambda r: r.parse),
        ("compute_rates", lambda r: r.rates),
        ("compute_rates, all IRQs detailed", lambda r: r.rates_all),
    ]
    names = " | ".join(r.name.removeprefix("synthetic ") for r in syn)
    lines = [
        f"| µs per cell | {names} | {large.name.removeprefix('synthetic ')} / "
        f"{small.name.removeprefix('synthetic ')} | slope of log(ms) on log(cells) |",
        "|---|" + "--:|" * (len(syn) + 2),
    ]
    for label, pick in parts:
        cells = " | ".join(f"{per_cell(r, pick(r)):.3f}" for r in syn)
        ratio = per_cell(large, pick(large)) / per_cell(small, pick(small))
        lines.append(f"| {label} | {cells} | {ratio:.2f} | {slope(pick):.2f} |")
    return lines


def large_over_small(results: list[Result]) -> int:
    syn = [r for r in results if r.synthetic and not r.typical_of]
    return syn[-1].cells // syn[0].cells if syn else 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_tick", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repeats (about 15 s in all)")
    ap.add_argument("--fixtures", type=Path, default=FIXTURES, help="shared/fixtures directory")
    ap.add_argument("--ifname", help="live interface to read (default: first that is not lo)")
    ap.add_argument("--no-live", action="store_true", help="skip the live machine")
    args = ap.parse_args(argv)
    if not args.fixtures.is_dir():
        ap.error(f"fixtures not found at {args.fixtures}")
    budget = Budget(0.4, 2, 20) if args.quick else Budget(8.0, 7, 400)

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    started = time.perf_counter()
    steal_before = host_times()
    softnet_source = [
        ln for ln in (args.fixtures / SOFTNET_SOURCE).read_text().splitlines() if ln.strip()
    ]
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="tuitune-bench-") as tmp:
        for n, case in enumerate(cases(args.fixtures)):
            t = time.perf_counter()
            dest = Path(tmp) / f"case{n}"
            trees = [write_tree(dest / f"sample{s}", case, s, softnet_source) for s in (0, 1)]
            typical_case = dataclasses.replace(case, interrupts=(case.interrupts[0], case.typical))
            trees.append(write_tree(dest / "typical", typical_case, 1, softnet_source))
            parsed = parse_interrupts(case.interrupts[1])
            nbytes = (trees[1] / "proc/interrupts").stat().st_size
            result = Result(case.name, parsed.ncpus, len(parsed.rows), nbytes, case.synthetic)
            del parsed
            built = time.perf_counter() - t
            typical = Result(
                f"{case.name}, 1 row in {TYPICAL_EVERY} moved",
                result.ncpus,
                result.nrows,
                result.nbytes,
                case.synthetic,
                typical_of=case.name,
            )
            with (
                HostReader(HostRoot.fixture(trees[0])) as first,
                HostReader(HostRoot.fixture(trees[1])) as second,
                HostReader(HostRoot.fixture(trees[2])) as third,
            ):
                time_tree(first, second, case.ifname, result, budget)
                time_tree(first, third, case.ifname, typical, budget)
            shutil.rmtree(dest)
            results.append(result)
            results.append(typical)
            say(
                f"{case.name}: built in {built:.1f} s, "
                f"tick {result.median(result.tick) * 1e3:.2f} ms x {len(result.tick)}"
            )

    if not args.no_live:
        with HostReader() as reader:  # real /proc and /sys, read only
            ifname = args.ifname or next((i for i in reader.interfaces() if i != "lo"), None)
            text = reader.root.read_proc("interrupts")
            parsed = parse_interrupts(text)
            for name, sample in (
                (f"this machine, live, {ifname}", None),
                (f"this machine, live, {ifname}, via counters()", HostReader.counters),
            ):
                result = Result(name, parsed.ncpus, len(parsed.rows), len(text.encode()), False)
                time_tree(reader, reader, ifname, result, budget, live=True, sample=sample)
                results.append(result)
                say(f"{name}: tick {result.median(result.tick) * 1e3:.3f} ms x {len(result.tick)}")

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = [
        "## Tick cost against host size",
        "",
        f"Command: `python -m benchmarks.bench_tick{' --quick' if args.quick else ''}`",
        "",
        *machine(),
        "",
        *table(results),
        "",
        "tick = HostReader._counters() + compute_rates(); other = _counters minus "
        "parse_interrupts (file reads, stat/softirqs/softnet parsers, link counters); "
        "cell = one CPU column of one /proc/interrupts row.",
        "",
        f"Growth over the synthetic trees ({large_over_small(results)}x the cells from the "
        "smallest to the largest); ratio 1 and slope 1 mean cost proportional to cells:",
        "",
        *growth(results),
        "",
        f"Wall time {time.perf_counter() - started:.0f} s; peak RSS {peak_mb:.0f} MB; "
        f"CPU steal during the run {steal_share(steal_before, host_times())}.",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
