"""The CPU dimensions of a sweep spec: where packets are steered (RPS, XPS), where the NIC's
queue IRQs go (a plan such as "spread local" or "cpu 2"), and where iperf3 itself runs (`-A`,
NASA's Table 4). Parsing checks only the shape of each value; whether a CPU exists here is for
the runner (through the journal's own validation) before the first write.
"""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.bench.limits import MAX_CPU
from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.session.profile_model import ProfileError, check_name, is_text, shown
from tuitune.core.session.settings import NO_CPUS, Kind


class SpecError(ValueError):
    """The spec cannot be used; the message is one line that names the field."""


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting a dimension changes, by the notebook's name for it."""

    name: str  # "tso", "mtu", "rings rx", "coalesce adaptive-rx", "net.core.rmem_max"
    kind: Kind | None  # None: a test parameter (streams, direction, pin)
    field: str  # the feature, field, queue or sysctl key ("" for mtu and txqueuelen)


# Kinds whose value is a set of CPUs (the IRQ plan's is a plan naming CPUs).
CPU_SET_KINDS: frozenset[Kind] = frozenset({"rps_cpus", "xps_cpus", "irq_affinity"})
ALL = "*"  # every queue of the side (rps: rx-N, xps: tx-N); every queue IRQ (irqs)
IRQ_PLAN = Setting("irqs", "irq_affinity", ALL)
SPREAD = "spread local"
NO_PIN = "none"


def queue_setting(name: str, where: str) -> Setting | None:
    """`rps`, `xps` (every queue), `rps rx-3`, `xps tx-0` (one), `irqs` (the NIC's queue
    IRQs, as a plan); None for any other name."""
    if name == "irqs":
        return IRQ_PLAN
    word, _, queue = name.partition(" ")
    if word not in ("rps", "xps"):
        return None
    kind: Kind = "rps_cpus" if word == "rps" else "xps_cpus"
    if not queue:
        return Setting(name, kind, ALL)
    side = "rx-" if word == "rps" else "tx-"
    try:
        check_name("queue", queue, where)
    except ProfileError as exc:
        raise SpecError(str(exc)) from None
    if not queue.startswith(side):
        raise SpecError(f"{where}: {word} is set on {side}N queues (or on all: {word!r})")
    return Setting(name, kind, queue)


def _cpus(value: object, where: str) -> frozenset[int]:
    """A CPU set from a number, a list of numbers or a CPU list text ("0-3,8")."""
    if type(value) is int:
        value = [value]
    if isinstance(value, list):
        if len(value) > 1024 or not all(type(x) is int and 0 <= x <= MAX_CPU for x in value):
            raise SpecError(f"{where}: {shown(value)} is not a list of CPU numbers")
        return frozenset(value)
    if not isinstance(value, str) or not is_text(value, 4096):
        raise SpecError(f"{where}: {shown(value)} is not a CPU list like 0-3,8")
    try:
        cpus = parse_cpulist(value.strip())
    except CpuListError as exc:
        raise SpecError(f"{where}: {exc}") from None
    if any(c > MAX_CPU for c in cpus):
        raise SpecError(f"{where}: {shown(value)}: CPU numbers go up to {MAX_CPU}")
    return cpus


def cpu_text(setting: Setting, value: object, where: str) -> str:
    """The canonical text of a CPU dimension's value: a CPU list or "none" for RPS/XPS, a plan
    ("spread local", "cpu 2", "cpus 0-3") for the IRQs."""
    if setting.kind != "irq_affinity":
        if (isinstance(value, str) and value.strip() == NO_CPUS) or value == []:
            return NO_CPUS
        return format_cpulist(_cpus(value, where))
    if isinstance(value, str):
        text = " ".join(value.split())
        if text in ("spread", SPREAD):
            return SPREAD
        word, _, rest = text.partition(" ")
        if word in ("cpu", "cpus") and rest:
            cpus = _cpus(rest, where)
            if word == "cpu" and len(cpus) != 1:
                raise SpecError(f"{where}: {shown(value)}: 'cpu N' names one CPU ('cpus LIST')")
            return _irq_plan(cpus)
        raise SpecError(
            f"{where}: {shown(value)}: an IRQ plan is 'spread local', 'cpu N' or 'cpus LIST'"
        )
    cpus = _cpus(value, where)
    if not cpus:
        raise SpecError(f"{where}: an IRQ needs at least one CPU")
    return _irq_plan(cpus)


def _irq_plan(cpus: frozenset[int]) -> str:
    return f"cpu {min(cpus)}" if len(cpus) == 1 else f"cpus {format_cpulist(cpus)}"


def irq_cpus(plan: str) -> str | None:
    """The affinity every queue IRQ gets under `plan` (a CPU list), None for the spread."""
    return None if plan == SPREAD else plan.partition(" ")[2]


def pin_text(value: object, where: str) -> str:
    """iperf3 -A as a dimension value: "none", "C" (the client) or "C,S" (client, server)."""
    if value is False or (isinstance(value, str) and value.strip() in (NO_PIN, "off")):
        return NO_PIN
    if type(value) is int:
        value = [value]
    elif isinstance(value, str) and is_text(value, 40):
        parts = [p.strip() for p in value.split(",")]
        if all(p.isascii() and p.isdigit() and len(p) <= 6 for p in parts):
            value = [int(p) for p in parts]
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= 2
        or not all(type(x) is int and 0 <= x <= MAX_CPU for x in value)
    ):
        raise SpecError(
            f"{where}: {shown(value)}: pin is 'none', a client CPU, or 'CLIENT,SERVER' (-A)"
        )
    return ",".join(str(x) for x in value)


def pin_cpus(text: str | None) -> tuple[int | None, int | None]:
    """(client CPU, server CPU) of a pin value; (None, None) unpinned."""
    if text is None or text == NO_PIN:
        return None, None
    parts = [int(p) for p in text.split(",")]
    return parts[0], parts[1] if len(parts) > 1 else None
