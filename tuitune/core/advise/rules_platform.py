"""Rules about the platform under the NIC (core/host/platform.py): the frequency governor,
deep C-states beside the interrupt rate, SMT siblings sharing the NIC's queues, PCIe
MaxPayload/MaxReadReq, the IOMMU's mode at high packet rates, and MSI-X vectors per queue.

What the tool does not change (BIOS, config space, the kernel command line) is a finding with
no change: its title and evidence say what to do by hand.
"""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise import thresholds as t
from tuitune.core.advise.facts import Facts, Outcome, cpus, rate
from tuitune.core.advise.model import Finding, Note, Severity, SourceRef
from tuitune.core.host.cpupower import deep_states, entered_deep_states
from tuitune.core.host.pcie import PciFunction
from tuitune.core.values import Unavailable

NOT_READ = "the platform was not read (no --root tree or live host platform data)"
_KDOC = "kernel-doc-platform"


def _irq_cpus(f: Facts) -> dict[str, frozenset[int]]:
    """Where each queue IRQ fires: its effective affinity, else what was asked."""
    out: dict[str, frozenset[int]] = {}
    nic = f.nic
    if nic is None:
        return out
    for q in f.queue_irqs():
        aff = nic.irq_affinity.get(q.irq)
        if aff is None:
            continue
        for mask in (aff.effective, aff.smp_affinity):
            if isinstance(mask, frozenset) and mask:
                out[q.irq] = mask
                break
    return out


def cpu_governor(f: Facts) -> Iterator[Outcome]:
    rule = "cpu-governor"
    if f.platform is None:
        yield Note(rule, NOT_READ)
        return
    freq = f.platform.cpu.freq
    if isinstance(freq, Unavailable):
        yield Note(rule, f"{freq.reason}: nothing to judge")
        return
    local = f.local_cpus()
    # With intel_pstate/amd-pstate active, "performance" also forces EPP to performance;
    # under any other governor the EPP only biases a clock that still scales.
    slow = [g for g in freq if g.cpus & local and g.policy.governor not in (None, "performance")]
    if not slow:
        return
    evidence = []
    for g in slow[:3]:
        p = g.policy
        line = f"cpus {cpus(g.cpus)}: {p.driver or '?'} governor {p.governor or '?'}"
        if p.epp:
            line += f", EPP {p.epp}"
        if g.cur_khz is not None and p.hw_max_khz:
            line += f", running {g.cur_khz[0] // 1000}-{g.cur_khz[1] // 1000} of "
            line += f"{p.hw_max_khz // 1000} MHz"
        evidence.append(line + " (/sys/devices/system/cpu/cpufreq)")
    yield Finding(
        id=rule,
        severity="risk",
        title=f"the CPUs serving {f.ifname} scale their clock down: set the performance "
        "governor (cpupower frequency-set -g performance), or turn scaling off in the BIOS",
        evidence=tuple(evidence),
        change=(),
        sources=(
            SourceRef(
                "redhat-10g",
                "drops cpuspeed and replaces the ondemand governor with "
                "performance before measuring throughput",
            ),
            SourceRef(
                "esnet-100g",
                "98 Gb/s host: frequency scaling and every energy-saving "
                "feature off in the BIOS, for full power all the time",
            ),
        ),
        context="any",
    )


def cstates_deep(f: Facts) -> Iterator[Outcome]:
    rule = "cstates-deep"
    if f.platform is None:
        yield Note(rule, NOT_READ)
        return
    idle = f.platform.cpu.idle
    if isinstance(idle, Unavailable):
        yield Note(rule, f"{idle.reason}: nothing to judge")
        return
    placed = _irq_cpus(f)
    irq_cpus = frozenset().union(*placed.values()) if placed else f.local_cpus()
    power = f.platform.cpu
    enabled = [c for c, _ in deep_states(idle, t.CSTATE_DEEP_US) if c & irq_cpus]
    entered = entered_deep_states(power, t.CSTATE_DEEP_US)
    deep = [(c & irq_cpus, s) for c, s in entered if c & irq_cpus]
    req = power.latency_request
    if not deep:
        if enabled:
            # Enabled, but a latency limit keeps the CPUs out of them: what disabling does.
            by = f"the PM QoS request of {req} us" if isinstance(req, int) else "PM QoS limits"
            yield Note(rule, f"deep C-states are enabled but {by} keeps the CPUs out of them")
        return
    total = f.window.total if f.window.loaded else None
    per_cpu: dict[int, float] = {}
    if total is not None:
        for irq in placed:
            got = total.irqs.get(irq)
            for cpu, v in (got.per_cpu if got else {}).items():
                per_cpu[cpu] = per_cpu.get(cpu, 0.0) + v
    evidence = [
        f"cpus {cpus(c)}: {s.name} enabled, exit latency {s.latency_us} us, target residency "
        f"{s.residency_us} us (cpuidle/state{s.index})"
        for c, s in deep[:4]
    ]
    if isinstance(req, int):
        evidence.append(f"PM QoS request in force: {req} us (/dev/cpu_dma_latency)")
    elif req is None:
        evidence.append("no PM QoS latency request in force (/dev/cpu_dma_latency)")
    else:
        evidence.append(f"PM QoS request not read ({req.reason}): a limit may hold CPUs out")
    severity: Severity = "hint"
    if per_cpu:
        busiest = max(per_cpu, key=per_cpu.__getitem__)
        r = per_cpu[busiest]
        gap = 1e6 / r if r > 0 else float("inf")
        # A gap longer than a state's target residency lets the governor choose it between
        # two interrupts: each interrupt then pays that state's exit latency.
        reach = [s for _, s in deep if (s.residency_us or 0) <= gap]
        if reach:
            s = max(reach, key=lambda s: s.latency_us or 0)
            evidence.append(
                f"cpu{busiest} takes {rate(r)} of {f.ifname}'s interrupts, one every "
                f"{gap:.0f} us: long enough to enter {s.name} ({s.residency_us} us) and pay "
                f"its {s.latency_us} us exit on each (/proc/interrupts)"
            )
            severity = "risk"
        else:
            evidence.append(
                f"cpu{busiest} takes {rate(r)} of {f.ifname}'s interrupts, one every "
                f"{gap:.0f} us: too close for the deep states now; a lighter load pays them"
            )
    else:
        evidence.append("no interrupt rate in the window: run a load to weigh it")
    yield Finding(
        id=rule,
        severity=severity,
        title=f"deep C-states are enabled on the CPUs taking {f.ifname}'s interrupts: each "
        "wake-up adds its exit latency (disable them: cpuidle stateN/disable, or the BIOS)",
        evidence=tuple(evidence),
        change=(),
        sources=(
            SourceRef(
                "esnet-100g",
                "98 Gb/s host: every energy-saving feature off in the "
                "BIOS, for full power all the time",
            ),
            SourceRef(
                _KDOC,
                "cpuidle: a state's exit latency is paid on every wake-up; "
                "stateN/disable or a PM QoS limit keeps a CPU out of it",
            ),
        ),
        context="any",
    )


def smt_shared_core(f: Facts) -> Iterator[Outcome]:
    rule = "smt-shared-core"
    placed = _irq_cpus(f)
    single = {irq: next(iter(m)) for irq, m in placed.items() if len(m) == 1}
    if not single:
        return
    core_of = {
        c.cpu: (c.package, c.core, c.siblings) for c in f.host.topology.cpus if len(c.siblings) > 1
    }
    by_core: dict[tuple[object, object], set[int]] = {}
    for cpu in set(single.values()):
        if cpu in core_of:
            pkg, core, _ = core_of[cpu]
            by_core.setdefault((pkg, core), set()).add(cpu)
    shared = [sorted(c) for c in by_core.values() if len(c) > 1]
    if not shared:
        return
    smt = f.platform.smt.control if f.platform is not None else None
    evidence = [
        f"cpus {', '.join(map(str, pair))} are SMT siblings of one core, each with a queue IRQ "
        "of " + f.ifname + " (topology/thread_siblings_list, /proc/irq/N/effective_affinity)"
        for pair in shared[:4]
    ]
    if isinstance(smt, str):
        evidence.append(f"SMT control: {smt} (/sys/devices/system/cpu/smt/control)")
    yield Finding(
        id=rule,
        severity="risk",
        title=f"{sum(map(len, shared))} of {f.ifname}'s queue IRQs share {len(shared)} core(s) "
        "with their SMT sibling: give each queue a core of its own, or turn SMT off",
        evidence=tuple(evidence),
        change=(),
        sources=(
            SourceRef(
                "esnet-100g",
                "hyperthreading off in the BIOS: it wanted real cores, one per 10G interface",
            ),
        ),
        context="any",
    )


def _chain(f: Facts) -> tuple[PciFunction, ...] | None:
    if f.platform is None or isinstance(f.platform.pcie, Unavailable):
        return None
    return f.platform.pcie


def pcie_payload(f: Facts) -> Iterator[Outcome]:
    rule = "pcie-payload"
    chain = _chain(f)
    if chain is None:
        yield Note(rule, NOT_READ if f.platform is None else "the NIC is not a PCI device")
        return
    nic = chain[0]
    caps = [fn.caps for fn in chain]
    unread = [fn for fn in chain if fn.caps is None or not fn.caps.pcie]
    if unread:
        fn = unread[0]
        yield Note(rule, f"MaxPayload not judged: {fn.bdf} ({fn.role}): {fn.config_note}")
        return
    supported = min(c.mps_supported or 128 for c in caps if c is not None)
    nc = nic.caps
    assert nc is not None
    problems = []
    if nc.mps is not None and nc.mps < supported:
        problems.append(
            f"MaxPayload {nc.mps} bytes in force, while the NIC and every bridge above it "
            f"support {supported} (config space, PCIe Device Control/Capabilities)"
        )
    if nc.mrrs is not None and nc.mrrs < t.PCIE_MRRS_MIN:
        problems.append(
            f"MaxReadReq {nc.mrrs} bytes: the NIC fetches each transmit buffer in pieces that "
            f"small (vendor guides raise it to {t.PCIE_MRRS_MIN} or more)"
        )
    if not problems:
        return
    chain_text = " <- ".join(
        f"{fn.bdf} MPS {fn.caps.mps}/{fn.caps.mps_supported}" for fn in chain if fn.caps
    )
    yield Finding(
        id=rule,
        severity="hint",
        title=f"{f.ifname}'s PCIe MaxPayload/MaxReadReq are below what the path supports: "
        "a BIOS setting or the vendor's setpci advice",
        evidence=(*problems, f"path: {chain_text}"),
        change=(),
        sources=(
            SourceRef(
                "redhat-10g",
                "lspci on a 10G card: MaxPayload 128 bytes in force where "
                "the device supported 4096, MaxReadReq 512; vendors document changing "
                "PCIe defaults with setpci",
            ),
        ),
        context="any",
    )


def iommu_translated(f: Facts) -> Iterator[Outcome]:
    rule = "iommu-translated"
    if f.platform is None:
        yield Note(rule, NOT_READ)
        return
    io = f.platform.iommu
    if io.domain_type not in ("DMA", "DMA-FQ"):
        return
    total = f.window.total if f.window.loaded else None
    pps = 0.0
    if total is not None:
        pps = total.link.get("rx_packets", 0.0) + total.link.get("tx_packets", 0.0)
    if pps < t.IOMMU_PPS:
        yield Note(
            rule,
            f"{f.ifname}'s DMA goes through the IOMMU ({io.domain_type}); at "
            f"{rate(pps)} packets that costs little: judged again above {rate(t.IOMMU_PPS)}",
        )
        return
    yield Finding(
        id=rule,
        severity="hint",
        title=f"{f.ifname}'s DMA is translated by the IOMMU ({io.domain_type}) at "
        f"{rate(pps)} packets: passthrough (iommu=pt / iommu.passthrough=1) saves a mapping "
        "per buffer, if isolation of the device is not needed",
        evidence=(
            f"iommu group {io.group}: type {io.domain_type} (/sys/kernel/iommu_groups/N/type)",
            f"kernel command line: {' '.join(io.cmdline) or 'no iommu words (the default)'}",
            f"{rate(pps)} packets over the window (/proc/net/dev)",
        ),
        change=(),
        sources=(
            SourceRef(
                _KDOC,
                "kernel-parameters: iommu.passthrough=1 (or iommu=pt) gives "
                "devices an identity mapping, no per-buffer DMA translation",
            ),
        ),
        context="any",
    )


def msix_short(f: Facts) -> Iterator[Outcome]:
    rule = "msix-short"
    chain = _chain(f)
    nic = f.nic
    if chain is None or nic is None:
        return
    ch = nic.channels
    if isinstance(ch, Unavailable):
        return
    queues = max(ch.combined + ch.rx, ch.combined + ch.tx)
    used = chain[0].msix_used
    table = chain[0].caps.msix_table if chain[0].caps is not None else None
    if used is None or queues <= 1:
        return
    if used >= queues:
        return
    yield Finding(
        id=rule,
        severity="risk",
        title=f"{f.ifname} has {queues} queues but {used} MSI-X vectors in use: queues share "
        "interrupts, so they cannot be spread one per core",
        evidence=(
            f"channels: {ch.combined} combined, {ch.rx} rx, {ch.tx} tx (ethtool -l)",
            f"{used} vectors in msi_irqs/ of {chain[0].bdf}"
            + (f"; the function supports {table} (MSI-X table size)" if table else ""),
        ),
        change=(),
        sources=(
            SourceRef(
                "esnet-100g",
                "MSI-X binds each rx/tx queue to a core: up to 20 % more on a 4 x 10G host",
            ),
            SourceRef(
                "redhat-10g",
                "check the interrupt type after loading the driver: some "
                "cards do not enable MSI-X by default",
            ),
        ),
        context="any",
    )
