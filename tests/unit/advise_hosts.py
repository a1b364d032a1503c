"""Facts for the Advisor's tests, from the recorded hosts of tests/support/fixture_hosts.py (real
captures, their synthesised parts listed in each tree's SYNTHESISED) and constructed windows
whose numbers sit at a threshold's edge."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.support.fixture_hosts import host_4cpu_series, host_32cpu
from tuitune.core.advise import Context, Facts, Window, advise, window_of
from tuitune.core.advise.model import Advice, Finding
from tuitune.core.watch.rates import CpuRates, IrqRate, Rates
from tuitune.core.watch.snapshot import HostState, SysctlValue

# The Linux defaults of the buffers the BDP rule reads (a 6.x kernel with 8 GiB of memory).
DEFAULT_BUFFERS = {
    "net.core.rmem_max": "212992",
    "net.core.wmem_max": "212992",
    "net.ipv4.tcp_rmem": "4096 131072 6291456",
    "net.ipv4.tcp_wmem": "4096 16384 4194304",
    "net.ipv4.tcp_mem": "88500 118001 177000",
}


def recorded(tmp: Path, which: str = "pegged", ticks: int = 5) -> Facts:
    """Facts of a recorded host over `ticks` samples: "pegged" is the 2xE5-2640 with its igb's
    8 queues all on CPU0; "spread" the netutils 4-CPU host with one queue per CPU."""
    build = host_32cpu if which == "pegged" else host_4cpu_series
    reader, ifname = build(tmp, samples=ticks)
    with reader:
        host = reader.host_state()
        before = reader.nic_state(ifname)
        samples = [reader.counters(ifname) for _ in range(ticks)]
        nic = reader.nic_state(ifname)
    stats = before.driver_stats if isinstance(before.driver_stats, tuple) else None
    window = window_of(samples, {q.irq for q in nic.irqs}, stats, stats)
    return Facts(host, nic, window, Context())


def with_sysctls(f: Facts, values: dict[str, str]) -> Facts:
    kept = tuple(s for s in f.host.sysctls if s.key not in values)
    new = tuple(SysctlValue(k, v) for k, v in values.items())
    host: HostState = replace(f.host, sysctls=kept + new)
    return replace(f, host=host)


def cpu(n: int, *, sys: float = 0, irq: float = 0, soft: float = 0, **kw: float) -> CpuRates:
    busy = sys + irq + soft + kw.get("usr", 0.0)
    fields = {
        "usr": 0.0,
        "nice": 0.0,
        "iowait": 0.0,
        "steal": 0.0,
        "guest": 0.0,
        "gnice": 0.0,
        "intr": 0.0,
        "net_rx": 0.0,
        "net_tx": 0.0,
        "drops": 0.0,
        "squeezes": 0.0,
    }
    fields.update(kw)
    return CpuRates(cpu=n, sys=sys, irq=irq, soft=soft, idle=100.0 - busy, **fields)  # type: ignore[arg-type]


def steps_window(
    steps: list[dict[int, CpuRates]],
    irqs: dict[str, dict[int, float]] | None = None,
    link: dict[str, float] | None = None,
) -> Window:
    """A window of 1-second steps with these CPU rates; `irqs` and `link` are the same in
    every step (rates per second)."""
    irq_rates = {i: IrqRate(i, sum(p.values()), p) for i, p in (irqs or {}).items()}
    rates = [Rates(1.0, s, irq_rates, dict(link or {})) for s in steps]
    n = len(steps)
    avg: dict[int, CpuRates] = {}
    for c in steps[0]:
        vals = [s[c] for s in steps]
        avg[c] = vals[0]._replace(  # CpuRates is a NamedTuple
            **{
                k: sum(getattr(v, k) for v in vals) / n
                for k in ("sys", "irq", "soft", "idle", "usr", "net_rx", "drops", "squeezes")
            },
        )
    total = Rates(float(n), avg, irq_rates, dict(link or {}))
    return Window(tuple(rates), total)


def ids(advice: Advice) -> set[str]:
    return {f.id for f in advice.findings}


def one(facts: Facts, rule: str) -> Finding | None:
    found = [f for f in advise(facts).findings if f.id == rule]
    assert len(found) <= 1
    return found[0] if found else None
