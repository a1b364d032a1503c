"""Build recorded host trees (DIR/proc, DIR/sys) from the captures in tests/fixtures/captures.

Pieces a capture lacks (a /proc/stat for a host whose interrupts were captured, say) are
synthesised and listed in DIR/SYNTHESISED, so a reader of the tree knows what is real.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from tuitune.core.cpulist import format_cpulist


@dataclass
class TreeSpec:
    ncpus: int
    interrupts: str
    stat: str | None = None
    softirqs: str | None = None
    softnet: str | None = None
    ifname: str | None = None
    bus: str | None = None  # PCI address of the NIC
    numa_node: str = "-1"
    local_cpulist: str | None = None
    local_cpus: str | None = None
    nodes: dict[int, str] = field(default_factory=dict)  # node -> cpulist
    rx_queues: int = 1
    tx_queues: int = 1
    mtu: int = 1500
    irq_affinity: dict[str, str] = field(default_factory=dict)  # irq -> smp_affinity_list
    sysctls: dict[str, str] = field(default_factory=dict)  # "net.core.somaxconn" -> "4096"
    hostname: str = "fixture-host"
    kernel: str = "recorded"
    # cpu -> (physical_package_id, core_id, thread_siblings_list); none: sysfs has no topology
    cpu_topology: dict[int, tuple[int, int, str]] = field(default_factory=dict)
    link_stats: dict[str, int] = field(default_factory=dict)  # statistics/rx_bytes ... of ifname
    notes: list[str] = field(default_factory=list)  # more SYNTHESISED lines, from the caller


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def build_tree(dest: Path, spec: TreeSpec) -> Path:
    made: list[str] = []
    proc, sys = dest / "proc", dest / "sys"
    cpus = range(spec.ncpus)
    _write(proc / "interrupts", spec.interrupts)
    if spec.stat is None:
        made.append("proc/stat")
        lines = [f"cpu{i} {1000 + i} 0 {500 + i} {90000 + i} 10 0 {20 + i} 0 0 0" for i in cpus]
        spec.stat = "cpu  0 0 0 0 0 0 0 0 0 0\n" + "\n".join(lines) + "\nctxt 1\n"
    _write(proc / "stat", spec.stat)
    if spec.softirqs is None:
        made.append("proc/softirqs")
        head = " " * 10 + "".join(f"CPU{i:<8}" for i in cpus)
        spec.softirqs = "\n".join(
            [head] + [f"{n:>12}:" + "".join(f" {0:10}" for _ in cpus) for n in ("NET_TX", "NET_RX")]
        )
    _write(proc / "softirqs", spec.softirqs + "\n")
    if spec.softnet is None:
        made.append("proc/net/softnet_stat")
        spec.softnet = "".join(" ".join(["00000000"] * 10) + "\n" for _ in cpus)
    _write(proc / "net/softnet_stat", spec.softnet)
    _write(proc / "sys/kernel/hostname", spec.hostname + "\n")
    _write(proc / "sys/kernel/osrelease", spec.kernel + "\n")
    for key, value in spec.sysctls.items():
        _write(proc / "sys" / key.replace(".", "/"), value + "\n")
    for irq, cpulist in spec.irq_affinity.items():
        _write(proc / f"irq/{irq}/smp_affinity_list", cpulist + "\n")
        _write(proc / f"irq/{irq}/effective_affinity_list", cpulist + "\n")
        _write(proc / f"irq/{irq}/node", spec.numa_node + "\n")
    system = sys / "devices/system"
    _write(system / "cpu/online", format_cpulist(cpus) + "\n")
    _write(system / "cpu/present", format_cpulist(cpus) + "\n")
    for node, cpulist in spec.nodes.items():
        _write(system / f"node/node{node}/cpulist", cpulist + "\n")
    for cpu, (package, core, siblings) in spec.cpu_topology.items():
        topo = system / f"cpu/cpu{cpu}/topology"
        _write(topo / "physical_package_id", f"{package}\n")
        _write(topo / "core_id", f"{core}\n")
        _write(topo / "thread_siblings_list", siblings + "\n")
    if spec.ifname:
        net = sys / "class/net" / spec.ifname
        attrs: tuple[tuple[str, object], ...] = (
            ("mtu", spec.mtu),
            ("tx_queue_len", 1000),
            ("operstate", "up"),
            ("carrier", 1),
            ("address", "00:1b:21:00:00:01"),
            ("ifindex", 2),
            ("addr_assign_type", 0),
        )
        for attr, attr_value in attrs:
            _write(net / attr, f"{attr_value}\n")
        for name, count in spec.link_stats.items():
            _write(net / "statistics" / name, f"{count}\n")
        for q in range(spec.rx_queues):
            _write(net / f"queues/rx-{q}/rps_cpus", "0\n")
            _write(net / f"queues/rx-{q}/rps_flow_cnt", "0\n")
        for q in range(spec.tx_queues):
            _write(net / f"queues/tx-{q}/xps_cpus", "0\n")
        if spec.bus:
            dev = sys / "devices/pci0000:00" / spec.bus
            _write(dev / "numa_node", spec.numa_node + "\n")
            if spec.local_cpulist is not None:
                _write(dev / "local_cpulist", spec.local_cpulist + "\n")
            if spec.local_cpus is not None:
                _write(dev / "local_cpus", spec.local_cpus + "\n")
            os.symlink(os.path.relpath(dev, net), net / "device")
    _write(dest / "SYNTHESISED", "".join(f"{m}\n" for m in [*made, *spec.notes]))
    return dest


def scale_interrupts(text: str, factor: int) -> str:
    """Repeat each row's CPU columns `factor` times: a real capture's shape at more CPUs."""
    out = []
    for line in text.splitlines():
        label, colon, rest = line.partition(":")
        if line.lstrip().startswith("CPU"):
            n = len(line.split())
            out.append(" " * 11 + "".join(f"CPU{i:<8}" for i in range(n * factor)))
            continue
        toks = rest.split()
        counts = []
        for tok in toks:
            if not tok.isdigit():
                break
            counts.append(tok)
        tail = rest.split(None, len(counts))[-1] if len(toks) > len(counts) else ""
        if not colon or len(counts) <= 1:
            out.append(line)
            continue
        out.append(f"{label}:" + "".join(f" {c:>10}" for c in counts * factor) + "   " + tail)
    return "\n".join(out) + "\n"


# ---- per-sample counter files (recorded hosts whose counters move) ---------------------------

_U32 = 1 << 32
_COUNT = re.compile(r"\s*(\d+)(?=\s|$)")


def bump_interrupts(text: str, adds: Mapping[str, Mapping[int, int]]) -> str:
    """/proc/interrupts text with adds[label][column] added to the rows' per-CPU counts.

    The layout is kept (a count grows into its column's padding), so only the numbers differ
    from the input. Counts wrap at 2**32, as the kernel's unsigned int does.
    """
    out = []
    for line in text.splitlines(keepends=True):
        label, colon, rest = line.partition(":")
        add = adds.get(label.strip()) if colon else None
        if not add:
            out.append(line)
            continue
        parts: list[str] = []
        pos = col = 0
        while (m := _COUNT.match(rest, pos)) is not None:
            value = str((int(m.group(1)) + add.get(col, 0)) % _U32)
            width = len(m.group(0))
            parts.append(value.rjust(width) if len(value) < width else " " + value)
            pos, col = m.end(), col + 1
        out.append(label + colon + "".join(parts) + rest[pos:])
    return "".join(out)


def render_stat(times: Mapping[int, Sequence[int]], ctxt: int = 0, running: int = 1) -> str:
    """/proc/stat from per-CPU jiffies in CPU_FIELDS order (user nice system idle ...)."""
    total = [sum(col) for col in zip(*times.values(), strict=True)]
    lines = ["cpu  " + " ".join(map(str, total))]
    lines += [f"cpu{cpu} " + " ".join(map(str, t)) for cpu, t in sorted(times.items())]
    lines += [f"ctxt {ctxt}", f"procs_running {running}", "procs_blocked 0"]
    return "\n".join(lines) + "\n"


def render_softirqs(counts: Mapping[str, Sequence[int]]) -> str:
    """/proc/softirqs as the kernel prints it: a CPU header, then one row per softirq."""
    ncpus = max(len(v) for v in counts.values())
    head = " " * 16 + "".join(f"CPU{i:<8}" for i in range(ncpus))
    rows = [f"{name:>12}:" + "".join(f" {v:10}" for v in vals) for name, vals in counts.items()]
    return "\n".join([head, *rows]) + "\n"


def softnet_columns(text: str) -> list[list[int]]:
    """The hex columns of /proc/net/softnet_stat, one list per row (CPU)."""
    return [[int(tok, 16) for tok in line.split()] for line in text.splitlines() if line.strip()]


def render_softnet(rows: Sequence[Sequence[int]]) -> str:
    return "".join(" ".join(f"{v % _U32:08x}" for v in row) + "\n" for row in rows)


@dataclass
class Sample:
    """The counters of one sampling tick: what a recorded host's samples/N directory holds."""

    stat: str
    interrupts: str
    softirqs: str
    softnet: str
    link_stats: dict[str, int] = field(default_factory=dict)


def write_samples(dest: Path, samples: Sequence[Sample], ifname: str | None = None) -> None:
    """dest/samples/N/proc/{stat,interrupts,softirqs,net/softnet_stat} and, for ifname,
    dest/samples/N/sys/class/net/IF/statistics/*: a HostRoot.fixture() tree per sample."""
    for n, sample in enumerate(samples):
        proc = dest / "samples" / str(n) / "proc"
        _write(proc / "stat", sample.stat)
        _write(proc / "interrupts", sample.interrupts)
        _write(proc / "softirqs", sample.softirqs)
        _write(proc / "net/softnet_stat", sample.softnet)
        if ifname:
            stats = dest / "samples" / str(n) / "sys/class/net" / ifname / "statistics"
            for name, count in sample.link_stats.items():
                _write(stats / name, f"{count}\n")


CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures"


def hyperv_2cpu(**fields: object) -> TreeSpec:
    """The real 2-CPU Hyper-V captures (no NIC IRQs) with interface eth0; `fields` override
    any of the spec's (sysctls, hostname, ...)."""
    spec = TreeSpec(
        ncpus=2,
        interrupts=(CAPTURES / "interrupts/hyperv_netvsc_2cpu_no_nic_irqs.txt").read_text(),
        stat=(CAPTURES / "stat/hyperv_2cpu_rhel8-4.18.txt").read_text(),
        softirqs=(CAPTURES / "softirqs/hyperv_2cpu.txt").read_text(),
        softnet=(CAPTURES / "softnet_stat/hyperv_2cpu_11col.txt").read_text(),
        ifname="eth0",
    )
    return replace(spec, **fields)  # type: ignore[arg-type]
