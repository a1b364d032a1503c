"""Fixture hosts for the TUI's snapshot and pilot tests: recorded trees whose counters move.

`ReplayReader` is a HostReader on a recorded tree (tests/support/hosttree.py) whose counters() plays
the tree's samples/0, samples/1, ... one per call, with a synthetic clock that advances by
exactly `interval` seconds per call, so rates are exact and the same on every run.

After the last sample it HOLDS: counters() keeps returning the last sample while the clock
still advances, so IRQ, softirq and link rates fall to zero and compute_rates() gives no
per-CPU entry at all (no jiffies passed). Cycling back to sample 0 was not chosen: every
counter would go backwards there, which the rates code reads as a reset. A test that needs
more ticks asks the builder for more samples (`samples=N`; the 4-CPU series has 5 real ones).

Builders return (reader, ifname); close the reader (`with reader:`) when done:

    host_32cpu(tmp)        2 x E5-2640, 32 CPUs, 2 NUMA nodes; igb i350 eth0 with its 8 queues
                           all on CPU0, which is pegged by softirq ("Cpu0: 49.7%sy 50.0%si").
    host_256cpu(tmp)       the same picture on 256 CPUs in 2 nodes (the real 256-CPU igb i350
                           placement), for the compact heat view.
    host_4cpu_series(tmp)  the netutils 4-CPU multiqueue host: 5 real consecutive samples.

Each tree's SYNTHESISED file says which parts are real captures and which are made up.
Everything is a pure function of the capture files: no randomness, no wall clock.
"""

from __future__ import annotations

import atexit
import dataclasses
import shutil
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

from tests.support.fakes.ethtool_text import Capture, FakeEthtool, capture_files, parse_driver_info
from tests.support.hosttree import (
    Sample,
    TreeSpec,
    build_tree,
    bump_interrupts,
    render_softirqs,
    render_softnet,
    render_stat,
    scale_interrupts,
    softnet_columns,
    write_samples,
)
from tuitune.core.cpulist import format_cpulist, format_mask, parse_cpulist
from tuitune.core.host.interrupts import Interrupts, parse_interrupts
from tuitune.core.host.netdev import interface_exists, read_counters
from tuitune.core.host.procfs import parse_softirqs, parse_softnet, parse_stat
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import EthtoolLike, HostReader
from tuitune.core.watch.snapshot import Counters

SHARED_FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "captures"


class ReplayReader(HostReader):
    """A HostReader on a recorded tree whose counters() replays tree/samples/N (see module
    docstring). Every counters() or snapshot() call takes the next sample; `calls` counts
    them. nic_state() and host_state() read the shared tree (which holds sample 0)."""

    def __init__(
        self,
        tree: Path,
        ethtool: Callable[[str], EthtoolLike] | None = None,
        interval: float = 1.0,
        start: float = 0.0,
        netns: str | None = None,
        samples: Path | None = None,
    ) -> None:
        """`netns`: present the tree as that network namespace (never entered: the tree also
        stands for the host it lives on). `samples`: replay the sample directories there
        instead of tree/samples (a series shared read-only between tests, `shared_samples`)."""
        where = tree / "samples" if samples is None else samples
        found = where.iterdir() if where.is_dir() else iter(())
        dirs = sorted((p for p in found if p.name.isdigit()), key=lambda p: int(p.name))
        if not dirs:
            raise ValueError(f"{tree}: no samples/N directories to replay")
        self.samples = tuple(HostRoot.fixture(d) for d in dirs)
        self.interval = interval
        self.start = start
        self.calls = 0
        super().__init__(HostRoot.fixture(tree), ethtool=ethtool)
        if netns is not None:
            self.root = replace(self.root, netns=netns)

    def _counters(self, ifname: str | None, irqs: Collection[str] | None = None) -> Counters:
        # Runs on the reader's kernel thread, like every read: no lock needed for `calls`.
        n = self.calls
        self.calls += 1
        s = self.samples[min(n, len(self.samples) - 1)]
        if (s.sys / "kernel/irq").is_dir():
            # A tree with per-IRQ files (fixture_big's irq_files): read as a live host is,
            # the NIC's IRQs from them between whole reads of /proc/interrupts.
            got = self._read_counters(s, ifname, irqs, self.start + n * self.interval)
            gone = ifname is not None and not interface_exists(self.root, ifname)
            return replace(got, link_gone=gone)
        stat = parse_stat(s.read_proc("stat"))
        return Counters(
            time=self.start + n * self.interval,
            stat=stat,
            interrupts=parse_interrupts(s.read_proc("interrupts")),
            softirqs=parse_softirqs(s.read_proc("softirqs")),
            softnet=parse_softnet(s.read_net("softnet_stat"), sorted(stat.cpus)),
            link=read_counters(s, ifname) if ifname else None,
            link_gone=ifname is not None and not interface_exists(self.root, ifname),
        )


_SHARED: dict[tuple[str, int], Path] = {}


def shared_samples(builder: Callable[..., tuple[ReplayReader, str]], samples: int) -> Path:
    """The samples/ directory of `builder`'s tree with `samples` samples, built once per test
    process and shared read-only (pass it as ReplayReader's `samples`). Builders are pure
    functions of the captures, so every test would write the same files: the editing host's
    200 samples (2800 files) cost each of its tests about 0.65 s of CPU."""
    key = (builder.__qualname__, samples)
    if key not in _SHARED:
        top = Path(tempfile.mkdtemp(prefix="tuitune-samples-"))
        atexit.register(shutil.rmtree, top, ignore_errors=True)
        builder(top, samples=samples)[0].close()
        (tree,) = top.iterdir()
        _SHARED[key] = tree / "samples"
    return _SHARED[key]


# ---- what the captures give ----------------------------------------------------------------

MULTIQUEUE_SERIES = tuple(
    f"interrupts/netutils_series_multiqueue_4cpu_snap{i}.txt" for i in range(1, 6)
)
# The igb eth0-TxRx-N of the big hosts replays, per tick, the real per-second increase of
# these 8 Intel TxRx queues of the multiqueue series (its 4 real steps, in turn).
SERIES_QUEUES = tuple(f"eth{p}-TxRx-{q}" for p in (4, 5) for q in range(4))
IGB_CAPTURES = "netutils_igb-i350_eth0_"  # -i -c -g of the 2xE5-2640 host's igb i350
IGB_FEATURES = "igb_em1_32cpu_features_-k_grep_offload.txt"  # another igb host, grep subset
# lscpu of the 2xE5-2640 host (netutils-linux tests/server-info-show.tests/
# 2xE5-2640.i350_and_82599ES.l2_mixed.masterconf/lscpu_layout; not in shared/fixtures).
E5_2640_NODES = {0: "0-7,16-23", 1: "8-15,24-31"}


def _rows_by_name(ints: Interrupts) -> dict[str, tuple[str, tuple[int, ...]]]:
    return {r.name: (r.irq, r.counts) for r in ints.rows if r.name}


def series_steps(fixtures: Path, names: Sequence[str]) -> list[list[int]]:
    """steps[k][i]: how much row names[i] rose from snapshot k+1 to k+2 of the series."""
    snaps = [_rows_by_name(parse_interrupts((fixtures / f).read_text())) for f in MULTIQUEUE_SERIES]
    return [[sum(b[name][1]) - sum(a[name][1]) for name in names] for a, b in pairwise(snaps)]


def _home_cpus(ints: Interrupts, labels: Sequence[str]) -> dict[str, int]:
    """The CPU column each IRQ's count is largest on: where the capture shows it firing."""
    rows = {r.irq: r.counts for r in ints.rows}
    return {irq: max(range(len(rows[irq])), key=rows[irq].__getitem__) for irq in labels}


def igb_ethtool(
    fixtures: Path, ifname: str, bus: str | None = None
) -> Callable[[str], EthtoolLike]:
    """Device readers for a tree: ifname answers from the real igb captures, with bus-info
    replaced by `bus` when the tree's PCI address differs; any other name has nothing."""
    captures: dict[str, Capture] = {
        kind: path.read_text() for kind, path in capture_files(fixtures, IGB_CAPTURES).items()
    }
    captures["features"] = (fixtures / "ethtool" / IGB_FEATURES).read_text()
    if bus is not None:
        driver = parse_driver_info((fixtures / "ethtool" / f"{IGB_CAPTURES}-i.txt").read_text())
        captures["driver"] = dataclasses.replace(driver, bus_info=bus)

    def make(name: str) -> EthtoolLike:
        return FakeEthtool(captures if name == ifname else {}, name)

    return make


# ---- synthesised load: one core pegged by softirq, a few busy, the rest idle ---------------


class Load(NamedTuple):
    """Percent of one second (= jiffies at USER_HZ 100) per state."""

    user: int  # guest time included, as /proc/stat counts it
    system: int
    softirq: int
    idle: int
    nice: int = 0
    guest: int = 0  # of `user`


PEGGED = Load(0, 50, 50, 0)  # the field reports' "Cpu0: 49.7%sy 50.0%si", in whole jiffies
_SOFTIRQS = (
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
)  # a 6.x kernel's rows


def _idle(cpu: int) -> Load:
    user = 1 if cpu % 4 == 1 else 0
    return Load(user, 0, 0, 100 - user)


def _base_times(cpu: int) -> list[int]:
    # user nice system idle iowait irq softirq steal guest guest_nice, as after ~11 days up
    busy = [3_100_000 + 997 * cpu, 1_200 + cpu, 1_800_000 + 613 * cpu]
    return [*busy, 95_000_000 + 4_001 * cpu, 21_000 + 7 * cpu, 0, 400_000 + 89 * cpu, 0, 0, 0]


def _times(cpu: int, load: Load, ticks: int) -> list[int]:
    t = _base_times(cpu)
    t[0] += load.user * ticks
    t[1] += load.nice * ticks
    t[8] += load.guest * ticks
    t[2] += load.system * ticks
    t[3] += load.idle * ticks
    t[6] += load.softirq * ticks
    return t


def _softirqs(ncpus: int, busy: set[int], pegged: int, net_rx: int, ticks: int) -> str:
    """Softirq counts after `ticks` seconds; net_rx: NET_RX raised on the pegged core so far."""
    rows = {name: [0] * ncpus for name in _SOFTIRQS}
    for c in range(ncpus):
        hot = c in busy or c == pegged
        rows["TIMER"][c] = 40_000_000 + 1_234 * c + (1000 if hot else 4 + c % 7) * ticks
        rows["NET_TX"][c] = 30_000 + c + (120 * ticks if c in busy else 0)
        rows["NET_RX"][c] = 900_000 + 37 * c
        rows["BLOCK"][c] = 200_000 + 11 * c
        rows["TASKLET"][c] = 400 + c
        rows["SCHED"][c] = 20_000_000 + 517 * c + (300 if hot else 5) * ticks
        rows["HRTIMER"][c] = 10_000 + 3 * c
        rows["RCU"][c] = 30_000_000 + 733 * c + (600 if hot else 3) * ticks
    rows["NET_RX"][pegged] += net_rx
    rows["NET_TX"][pegged] += net_rx // 50
    return render_softirqs(rows)


_LINK_BASE = {
    "rx_bytes": 61_548_144_000_192,
    "rx_packets": 641_126_500_002,
    "tx_bytes": 730_864_197_540,
    "tx_packets": 9_876_543_210,
    "rx_dropped": 0,
    "tx_dropped": 0,
    "rx_errors": 0,
    "tx_errors": 0,
    "rx_missed_errors": 16_028_162_500,
    "multicast": 1_234_567,
}


def _link(packets: int, ticks: int) -> dict[str, int]:
    """Link counters after `packets` received (about 96 bytes each, 1 in 40 missed by the NIC:
    the CPUs do not keep up) and `ticks` seconds of a trickle sent."""
    out = dict(_LINK_BASE)
    out["rx_packets"] += packets
    out["rx_bytes"] += 96 * packets
    out["rx_missed_errors"] += packets // 40
    out["tx_packets"] += 1_800 * ticks
    out["tx_bytes"] += 1_800 * 74 * ticks
    out["multicast"] += 3 * ticks
    return out


def pegged_samples(
    fixtures: Path,
    interrupts: str,
    softnet: list[list[int]],
    nic_queues: Sequence[str],
    busy: Mapping[int, Load],
    samples: int,
) -> list[Sample]:
    """Samples of a host whose NIC queues all fire on one core, pegged by softirq.

    Sample 0 holds `interrupts` and `softnet` as given. Each later sample adds, to each NIC
    queue IRQ (nic_queues[i] in the capture), the real increase of SERIES_QUEUES[i] over one
    step of the multiqueue series (steps taken in turn) on the queue's home CPU; NET_RX
    softirqs on that core rise by the same count, packets by 3 per interrupt.
    """
    if samples < 1:
        raise ValueError("need at least one sample")
    ints = parse_interrupts(interrupts)
    ncpus = len(ints.cpus)
    labels = [_rows_by_name(ints)[q][0] for q in nic_queues]
    home = _home_cpus(ints, labels)
    pegged = home[labels[0]]
    steps = series_steps(fixtures, SERIES_QUEUES[: len(labels)])
    loads = {c: PEGGED if c == pegged else busy.get(c, _idle(c)) for c in range(ncpus)}
    hz = {c: 1000 if loads[c].idle < 90 else 4 + c % 7 for c in range(ncpus)}  # LOC/s
    out: list[Sample] = []
    irqs = packets = 0
    for tick in range(samples):
        if tick:
            step = steps[(tick - 1) % len(steps)]
            adds = {irq: {home[irq]: d} for irq, d in zip(labels, step, strict=True)}
            interrupts = bump_interrupts(interrupts, {**adds, "LOC": hz})
            irqs += sum(step)
            packets += 3 * sum(step)
            softnet = [list(row) for row in softnet]
            row = softnet[pegged]
            row[0] += 3 * sum(step)  # processed
            row[1] += 3 * sum(step) // 500  # dropped: backlog full
            row[2] += 880  # time_squeeze: budget ran out with work left
        times = {c: _times(c, loads[c], tick) for c in range(ncpus)}
        out.append(
            Sample(
                stat=render_stat(times, ctxt=812_345_678 + 41_000 * tick, running=2 + len(busy)),
                interrupts=interrupts,
                softirqs=_softirqs(ncpus, set(busy), pegged, irqs, tick),
                softnet=render_softnet(softnet),
                link_stats=_link(packets, tick),
            )
        )
    return out


def _tree(dest: Path, spec: TreeSpec, series: list[Sample]) -> Path:
    first = series[0]
    spec.stat, spec.interrupts = first.stat, first.interrupts
    spec.softirqs, spec.softnet, spec.link_stats = first.softirqs, first.softnet, first.link_stats
    build_tree(dest, spec)
    write_samples(dest, series, spec.ifname)
    return dest


def _smt_topology(nodes: Mapping[int, str], ncpus: int) -> dict[int, tuple[int, int, str]]:
    """Two threads per core, thread 2 numbered ncpus/2 higher (Intel's usual enumeration);
    one package per node."""
    half = ncpus // 2
    node_of = {c: n for n, cpus in nodes.items() for c in parse_cpulist(cpus)}
    per_node = half // len(nodes)
    return {
        c: (node_of[c], c % half % per_node, f"{c % half},{c % half + half}") for c in range(ncpus)
    }


_PEGGED_NOTES = [
    "proc/stat: synthesised (the core the NIC queues fire on: 50% sys + 50% softirq; "
    "a few CPUs moderately busy; the rest idle)",
    "proc/softirqs: synthesised; NET_RX on the pegged core rises by the NIC's interrupts",
    "proc/net/softnet_stat: sample 0 from softnet_stat/ixgbe_host_32cpu_centos7_10col.txt "
    "(another 32-CPU host); later samples add synthesised processed/dropped/time_squeeze "
    "on the pegged core",
    "proc/interrupts samples 1..N: each eth0-TxRx-i rises by the real per-step increase of "
    "eth4-TxRx-0..3/eth5-TxRx-0..3 in interrupts/netutils_series_multiqueue_4cpu_snap1..5; "
    "LOC ticks synthesised",
    "sys/class/net/*/statistics: synthesised (3 packets per NIC interrupt)",
    "proc/irq/*/smp_affinity_list: the CPU the capture's counts are on",
    "ethtool (reader, not tree): -i -c -g ethtool/netutils_igb-i350_eth0_* (the 2xE5-2640 "
    "host), -k ethtool/igb_em1_32cpu_features_-k_grep_offload.txt (another igb host, subset)",
]


PEGGED_INTERRUPTS = "interrupts/netutils_ixgbe-82599_igb-i350_32cpu.txt"
PEGGED_SOFTNET = "softnet_stat/ixgbe_host_32cpu_centos7_10col.txt"


def pegged_tree(
    dest: Path,
    factor: int,
    busy: Mapping[int, Load],
    samples: int,
    fixtures: Path,
    *,
    bus: str,
    nodes: Mapping[int, str],
    hostname: str,
    notes: Sequence[str],
    more_rows: Callable[[str], str] | None = None,
    numa_node: str = "0",
    local_cpus: str | None = None,
) -> Path:
    """The 2xE5-2640's igb eth0 host (8 TxRx queues on CPU0, pegged by their softirqs; `busy`
    CPUs run the application) at `factor` times its 32 CPUs, as a tree at `dest`: its real
    /proc/interrupts and softnet_stat with their CPU columns repeated (scale_interrupts;
    `more_rows` then adds rows), NUMA `nodes` with the NIC on node 0, `notes` after the
    pegged hosts' own."""
    ncpus, ifname = 32 * factor, "eth0"
    interrupts = (fixtures / PEGGED_INTERRUPTS).read_text()
    softnet = softnet_columns((fixtures / PEGGED_SOFTNET).read_text())
    if factor > 1:
        interrupts, softnet = scale_interrupts(interrupts, factor), softnet * factor
    if more_rows is not None:
        interrupts = more_rows(interrupts)
    queues = [f"{ifname}-TxRx-{q}" for q in range(8)]
    series = pegged_samples(fixtures, interrupts, softnet, queues, busy, samples)
    ints = parse_interrupts(interrupts)
    nic = [r.irq for r in ints.rows if r.name == ifname or r.name in queues]
    local = nodes[0]
    spec = TreeSpec(
        ncpus=ncpus,
        interrupts="",
        ifname=ifname,
        bus=bus,
        numa_node=numa_node,
        local_cpulist=local,
        local_cpus=local_cpus or format_mask(parse_cpulist(local), ncpus),
        nodes=dict(nodes),
        rx_queues=8,
        tx_queues=8,
        irq_affinity={irq: str(cpu) for irq, cpu in _home_cpus(ints, nic).items()},
        hostname=hostname,
        cpu_topology=_smt_topology(nodes, ncpus),
        notes=[*_PEGGED_NOTES, *notes],
    )
    return _tree(dest, spec, series)


# ---- the hosts ---------------------------------------------------------------------------


def host_32cpu(
    tmp: Path,
    samples: int = 5,
    interval: float = 1.0,
    fixtures: Path = SHARED_FIXTURES,
    busy: Mapping[int, Load] | None = None,
) -> tuple[ReplayReader, str]:
    """netutils-linux's 2xE5-2640 (32 CPUs, 2 nodes, HT): its real /proc/interrupts (igb
    i350 eth0 with 8 TxRx queues all on CPU0, ixgbe 82599 eth2..eth5 pinned by rss-ladder)
    and the igb's real -i -c -g. CPU0 is pegged; CPUs 1-3 run the application."""
    apps = {1: Load(35, 10, 2, 53), 2: Load(28, 9, 1, 62), 3: Load(22, 6, 1, 71)}
    tree = pegged_tree(
        tmp / "host_32cpu",
        1,
        {**apps, **(busy or {})},
        samples,
        fixtures,
        bus="0000:02:00.0",  # bus-info of the igb capture
        nodes=E5_2640_NODES,
        hostname="2xE5-2640-i350",
        notes=[
            f"proc/interrupts sample 0: {PEGGED_INTERRUPTS}",
            "NUMA nodes and SMT siblings: the host's lscpu (netutils-linux lscpu_layout)",
            "eth0 numa_node 0 / local_cpulist: synthesised (bus 0000:02:00.0 put on node 0)",
        ],
    )
    return ReplayReader(tree, igb_ethtool(fixtures, "eth0"), interval), "eth0"


def host_256cpu(
    tmp: Path, samples: int = 5, interval: float = 1.0, fixtures: Path = SHARED_FIXTURES
) -> tuple[ReplayReader, str]:
    """256 CPUs in 2 nodes: the 32-CPU host's interrupts repeated 8 times across the columns
    (scale_interrupts), the real placement of node_exporter's 256-CPU igb i350 (node 0,
    local CPUs 0-63,128-191, 0000:45:00.0). CPU0 is pegged; a few CPUs on each node busy."""
    sysdir = fixtures / "sys"
    local = (sysdir / "igb_i350_256cpu_2node_local_cpulist.txt").read_text().strip()
    bus = "0000:45:00.0"  # the sysfs path of that capture
    busy = {
        1: Load(35, 10, 2, 53),
        2: Load(28, 9, 1, 62),
        3: Load(22, 6, 1, 71),
        64: Load(41, 7, 0, 52),
        65: Load(18, 4, 0, 78),
        129: Load(12, 3, 0, 85),
    }
    tree = pegged_tree(
        tmp / "host_256cpu",
        8,
        busy,
        samples,
        fixtures,
        bus=bus,
        nodes={0: local, 1: format_cpulist(set(range(256)) - parse_cpulist(local))},
        hostname="256cpu-i350",
        numa_node=(sysdir / "igb_i350_256cpu_2node_numa_node.txt").read_text().strip(),
        local_cpus=(sysdir / "igb_i350_256cpu_2node_local_cpus.txt").read_text().strip(),
        notes=[
            f"proc/interrupts sample 0: {PEGGED_INTERRUPTS} "
            "with its CPU columns repeated 8 times (scale_interrupts)",
            "proc/net/softnet_stat sample 0: the 32 rows repeated 8 times",
            "eth0 numa_node/local_cpulist/local_cpus: sys/igb_i350_256cpu_2node_*; "
            "node 1 = the other CPUs; SMT siblings N and N+128 synthesised",
            "ethtool -i bus-info replaced by 0000:45:00.0 to match the sysfs capture",
        ],
    )
    return ReplayReader(tree, igb_ethtool(fixtures, "eth0", bus), interval), "eth0"


def host_4cpu_series(
    tmp: Path, samples: int = 5, interval: float = 1.0, fixtures: Path = SHARED_FIXTURES
) -> tuple[ReplayReader, str]:
    """The netutils 4-CPU multiqueue host, eth4 with 4 TxRx queues one per CPU: 5 real
    consecutive /proc/interrupts, with CPU0-3 of the netutils softirqs (i7) and softnet_stat
    series. The driver is not stated; the igb captures stand in for its ethtool state."""
    if not 1 <= samples <= len(MULTIQUEUE_SERIES):
        raise ValueError(f"the series has {len(MULTIQUEUE_SERIES)} samples, not {samples}")
    ifname, bus = "eth4", "0000:02:00.0"
    texts = [(fixtures / f).read_text() for f in MULTIQUEUE_SERIES[:samples]]
    loads = [Load(14, 9, 27, 50), Load(11, 8, 31, 50), Load(12, 10, 29, 49), Load(9, 7, 33, 51)]
    queues = [f"{ifname}-TxRx-{q}" for q in range(4)]
    steps = [0, *(sum(s) for s in series_steps(fixtures, queues))]
    series: list[Sample] = []
    packets = 0
    for tick, text in enumerate(texts):
        soft = parse_softirqs(
            (fixtures / f"softirqs/netutils_series_i7_8cpu_snap{tick + 1}.txt").read_text()
        )
        softnet = (fixtures / f"softnet_stat/netutils_series_snap{tick + 1}.txt").read_text()
        packets += 3 * steps[tick]
        series.append(
            Sample(
                stat=render_stat({c: _times(c, loads[c], tick) for c in range(4)}, running=3),
                interrupts=text,
                softirqs=render_softirqs({k: v[:4] for k, v in soft.counts.items()}),
                softnet="".join(softnet.splitlines(keepends=True)[:4]),
                link_stats=_link(packets, tick),
            )
        )
    ints = parse_interrupts(texts[0])
    nic = [r.irq for r in ints.rows if r.name == ifname or r.name in queues]
    spec = TreeSpec(
        ncpus=4,
        interrupts="",
        ifname=ifname,
        bus=bus,
        local_cpulist="0-3",
        nodes={0: "0-3"},
        rx_queues=4,
        tx_queues=4,
        irq_affinity={irq: str(cpu) for irq, cpu in _home_cpus(ints, nic).items()},
        hostname="4cpu-multiqueue",
        notes=[
            "proc/interrupts: interrupts/netutils_series_multiqueue_4cpu_snap1..5.txt verbatim",
            "proc/softirqs: CPU0-3 of softirqs/netutils_series_i7_8cpu_snap1..5.txt "
            "(an 8-CPU host of the same test suite)",
            "proc/net/softnet_stat: the first 4 rows of softnet_stat/netutils_series_snap1..5",
            "proc/stat: synthesised (every CPU about half busy, mostly softirq)",
            "sys/class/net/*/statistics: synthesised (3 packets per eth4 interrupt)",
            "proc/irq/*/smp_affinity_list: the CPU the capture's counts are on",
            "eth4 bus, numa_node -1, local_cpulist: synthesised",
            "ethtool (reader, not tree): the igb i350 captures stand in (driver not stated)",
        ],
    )
    tree = _tree(tmp / "host_4cpu_series", spec, series)
    return ReplayReader(tree, igb_ethtool(fixtures, ifname), interval), ifname
