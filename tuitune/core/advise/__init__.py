"""The Advisor: rules that read the host, the NIC and a window of samples and say what holds
the host back, with the numbers, the change (journal keys) and the reports behind it.

Headless and pure: `advise(facts)` reads nothing itself. docs/advise.md documents every rule.
"""

from __future__ import annotations

from tuitune.core.advise import (
    pcie,
    rules_app,
    rules_conns,
    rules_cpu,
    rules_nic,
    rules_optics,
    rules_platform,
    rules_queues,
    rules_rfs,
    rules_tcp,
)
from tuitune.core.advise.facts import Facts, Rule
from tuitune.core.advise.model import (
    CONTEXTS,
    SEVERITIES,
    Advice,
    Change,
    Context,
    ContextKind,
    Finding,
    Note,
    SourceRef,
    infer_context,
)
from tuitune.core.advise.window import EMPTY, Window, window_of

# id -> rule, in the order docs/advise.md lists them. The ids are an interface: scripts use them.
RULES: dict[str, Rule] = {
    "cpu-saturated": rules_cpu.cpu_saturated,
    "irq-remote-node": rules_cpu.irq_remote_node,
    "irqbalance-active": rules_cpu.irqbalance_active,
    "irqbalance-banned": rules_cpu.irqbalance_banned,
    "softnet-drops": rules_cpu.softnet_drops,
    "softnet-squeeze": rules_cpu.softnet_squeeze,
    "nic-rx-drops": rules_nic.nic_rx_drops,
    "queue-ring-drops": rules_queues.queue_ring_drops,
    "queue-imbalance": rules_queues.queue_imbalance,
    "rss-uncovered": rules_queues.rss_uncovered,
    "udp-hash-addresses": rules_queues.udp_hash_addresses,
    "rfs-half-set": rules_rfs.rfs_half_set,
    "buffers-below-bdp": rules_tcp.buffers_below_bdp,
    "mtu-small": rules_nic.mtu_small,
    "offload-disabled": rules_nic.offload_disabled,
    "coalesce-off": rules_nic.coalesce_off,
    "timestamps-lan": rules_tcp.timestamps_lan,
    "txqueuelen-wan": rules_nic.txqueuelen_wan,
    "window-scaling-off": rules_tcp.window_scaling_off,
    "sack-off": rules_tcp.sack_off,
    "connection-no-wscale": rules_conns.connection_no_wscale,
    "no-pacing-wan": rules_conns.no_pacing_wan,
    "pcie-degraded": pcie.pcie_degraded,
    "pcie-payload": rules_platform.pcie_payload,
    "msix-short": rules_platform.msix_short,
    "cpu-governor": rules_platform.cpu_governor,
    "cstates-deep": rules_platform.cstates_deep,
    "smt-shared-core": rules_platform.smt_shared_core,
    "iommu-translated": rules_platform.iommu_translated,
    "optics-rx-low": rules_optics.optics_rx_low,
    "app-remote-node": rules_app.app_remote_node,
    "app-on-irq-cpu": rules_app.app_on_irq_cpu,
}


def advise(facts: Facts) -> Advice:
    """Every rule on `facts`: findings worst first (then in rule order), and the notes of the
    rules that could not judge."""
    findings: list[Finding] = []
    notes: list[Note] = []
    for rule in RULES.values():
        for out in rule(facts):
            if isinstance(out, Finding):
                findings.append(out)
            else:
                notes.append(out)
    findings.sort(key=lambda f: SEVERITIES.index(f.severity))
    return Advice(tuple(findings), tuple(notes))


__all__ = [
    "CONTEXTS",
    "EMPTY",
    "RULES",
    "Advice",
    "Change",
    "Context",
    "ContextKind",
    "Facts",
    "Finding",
    "Note",
    "SourceRef",
    "Window",
    "advise",
    "infer_context",
    "window_of",
]
