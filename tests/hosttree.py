"""Build recorded host trees (DIR/proc, DIR/sys) from the real captures in ../shared/fixtures.

Pieces a capture lacks (a /proc/stat for a host whose interrupts were captured, say) are
synthesised and listed in DIR/SYNTHESISED, so a reader of the tree knows what is real.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
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
    _write(dest / "SYNTHESISED", "".join(f"{m}\n" for m in made))
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
