"""The sweep's CPU dimensions worked out on this host before the first write: an IRQ plan
("spread local", "cpu 2") into one affinity per queue IRQ of the NIC, and iperf3's `-A` CPUs
checked against the CPUs that are online where each end runs."""

from __future__ import annotations

from collections.abc import Sequence

from tuitune.core.bench.limits import pin_problem
from tuitune.core.irqplan import spread_plan
from tuitune.core.session import Key
from tuitune.core.sweep.spec import SweepSpec
from tuitune.core.sweep.spec_cpus import IRQ_PLAN, irq_cpus, pin_cpus
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.snapshot import Snapshot


class CpuPlans:
    """What the IRQ plans and pins of a spec mean on this host (read once, lazily)."""

    def __init__(self, reader: HostReader, ifname: str, peer_here: bool) -> None:
        self.reader = reader
        self.ifname = ifname
        self.peer_here = peer_here  # the iperf3 server runs on this machine (the lab)
        self._snap: Snapshot | None = None

    def _snapshot(self) -> Snapshot:
        if self._snap is None:
            self._snap = self.reader.snapshot(self.ifname)
        return self._snap

    def irq_changes(self, plan: str) -> tuple[list[tuple[Key, str]], list[str]]:
        """One (IRQ key, CPU list) per queue IRQ of the NIC under `plan`, or why not."""
        snap = self._snapshot()
        nic = snap.nic
        queues = [] if nic is None else [q for q in nic.irqs if q.kind != "misc"]
        if nic is None or not queues:
            return [], [f"irqs {plan}: {self.ifname} has no queue IRQs (a veth has none)"]
        if snap.host.irqbalance.running:
            return [], [
                f"irqs {plan}: irqbalance is running and would move the IRQs mid-run: "
                "stop it first (systemctl stop irqbalance)"
            ]
        cpus = irq_cpus(plan)
        if cpus is None:
            pairs = [
                (Key.irq(q.irq, q.name, self.ifname), str(c))
                for q, c in spread_plan(nic, snap.host)
            ]
        else:
            pairs = [(Key.irq(q.irq, q.name, self.ifname), cpus) for q in queues]
        return pairs, []

    def pin_problems(self, spec: SweepSpec) -> list[str]:
        """Each pin value that iperf3 could not honour here, as a line."""
        values = {
            t for d in spec.dimensions for v in d.values for s, t in v.settings if s.name == "pin"
        }
        if not values:
            return []
        online = self._snapshot().host.topology.online
        out = []
        for text in sorted(values):
            client, server = pin_cpus(text)
            why = pin_problem(client, server, online, online if self.peer_here else None)
            if why is not None:
                out.append(f"pin {text}: {why}")
        return out


def irq_plan_of(settings: Sequence[tuple[object, str]]) -> str | None:
    """The IRQ plan a combination's settings name, None when it names none."""
    return next((text for s, text in settings if s == IRQ_PLAN), None)
