"""Addresses of everything tuitune can change: one hashable `Key` per editable setting.

A key describes itself (kind, interface, field, label, scope, group), so the journal, the editors
and the exporters (sysctl.d, udev) share one vocabulary. Values travel as canonical strings, the
form the user reads and types: "on"/"off" for switches, decimal integers for counts, a CPU list
("0-3,8", or "none" for an empty RPS/XPS set) for CPU sets, and the catalog's text for sysctls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, get_args

from tuitune.core import catalog
from tuitune.core.cpulist import format_cpulist, parse_cpulist
from tuitune.core.procs.model import printable

Kind = Literal[
    "sysctl",
    "feature",
    "ring",
    "coalesce",
    "channels",
    "pause",
    "mtu",
    "txqueuelen",
    "rps_cpus",
    "xps_cpus",
    "rps_flow_cnt",
    "irq_affinity",
    "service",
    "proc_affinity",
    "cpu_governor",
    "cpu_epp",
    "cstate_disable",
    "cpu_boost",
    "module_param",
    "qdisc",
    "rss",
    "flow_hash",
    "ntuple",
    "priv_flag",
    "fec",
    "smt",
]
KINDS: tuple[Kind, ...] = get_args(Kind)

# The ethtool struct groups: one read gives every field of the group.
ETHTOOL_GROUPS: tuple[Kind, ...] = ("ring", "coalesce", "channels", "pause")
QUEUE_KINDS: tuple[Kind, ...] = ("rps_cpus", "xps_cpus", "rps_flow_cnt")
RING_FIELDS = ("rx", "rx-mini", "rx-jumbo", "tx")  # `ethtool -G` spellings


def ring_minimum(field: str) -> int:
    """The smallest size a ring may be given. rx and tx carry every packet: 0 is no ring
    (drivers refuse it, or worse); rx-mini and rx-jumbo at 0 are off. ethtool reports no
    driver minimum (igb's 80, ixgbe's 64): drivers round up to theirs."""
    return 1 if field in ("rx", "tx") else 0


CHANNEL_FIELDS = ("rx", "tx", "other", "combined")
PAUSE_FIELDS = ("autoneg", "rx", "tx")

# What a user sees as the group of a setting (panel titles, export sections).
GROUP_OF: dict[Kind, str] = {
    "sysctl": "sysctl",
    "feature": "features",
    "ring": "rings",
    "coalesce": "coalesce",
    "channels": "channels",
    "pause": "pause",
    "mtu": "link",
    "txqueuelen": "link",
    "rps_cpus": "queues",
    "xps_cpus": "queues",
    "rps_flow_cnt": "queues",
    "irq_affinity": "irq",
    "service": "services",
    "proc_affinity": "processes",
    "cpu_governor": "cpu power",
    "cpu_epp": "cpu power",
    "cstate_disable": "cpu power",
    "cpu_boost": "cpu power",
    "module_param": "module parameters",
    "qdisc": "qdisc",
    "rss": "rss",
    "flow_hash": "rss",
    "ntuple": "ntuple",
    "priv_flag": "private flags",
    "fec": "FEC",
    "smt": "cpu power",
}
CPU_POWER_KINDS: tuple[Kind, ...] = ("cpu_governor", "cpu_epp", "cstate_disable", "cpu_boost")
# The platform's host-wide kinds (CPU power, module parameters): exported as a systemd unit
# and modprobe.d files (export/platform_files.py), not as the interface's udev rules.
PLATFORM_KINDS: tuple[Kind, ...] = (*CPU_POWER_KINDS, "module_param")
# The driver's settings of one interface (ethtool --set-priv-flags, --set-fec).
DRIVER_KINDS: tuple[Kind, ...] = ("priv_flag", "fec")

NO_CPUS = "none"  # canonical value of an empty RPS/XPS CPU set


@dataclass(frozen=True, slots=True, order=True)
class Key:
    """One editable setting.

    `name` holds what identifies it within its kind: the dotted sysctl key, the kernel feature
    name (tx-checksum-ipv4), the ethtool field (rx, rx-usecs, combined, autoneg), the queue
    (rx-0, tx-3) for RPS/XPS, empty for mtu/txqueuelen, the IRQ number for an affinity, and
    the daemon for a service ("irqbalance": its value is "stopped" or how it runs, service.py),
    and "PID@START" (or "PID@START/TID" for one thread) for a process's CPU affinity: START is
    field 22 of /proc/PID/stat, which tells the process apart from a later one given its PID.
    `queue` is set for IRQs only: the queue's IRQ name (eth2-TxRx-3), because IRQ numbers
    change across driver reloads and boots while queue names do not. So an IRQ key with a
    queue IS its queue: keys equal (and hash) by queue name, whatever number each was made
    with, so a driver that renumbers its IRQs (a reload, a channel change) leaves one journal
    entry, one drift note and one export line per queue, not one per number it had.
    A process key's `queue` holds the process's name as it was when the key was made, for
    messages only: keys of one process equal whatever name each was made with.
    """

    kind: Kind
    ifname: str | None = None
    name: str = ""
    queue: str | None = None

    def __post_init__(self) -> None:
        # The one place every key passes (profiles, the CLI, the screen, journals): a sysctl
        # named in slash form (net/core/somaxconn, as under /proc/sys) becomes the dotted key,
        # so the journal, restore and export never see two spellings of one setting.
        if self.kind == "sysctl" and isinstance(self.name, str) and "/" in self.name:
            object.__setattr__(self, "name", self.name.strip().strip("/").replace("/", "."))

    def _identity(self) -> tuple[object, ...]:
        if self.kind == "irq_affinity" and self.queue:
            return (self.kind, self.ifname, None, self.queue)  # the number is only a hint
        if self.kind == "proc_affinity":
            return (self.kind, None, self.name, None)  # the name is only for messages
        return (self.kind, self.ifname, self.name, self.queue)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Key):
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    # ---- constructors ------------------------------------------------------------------
    @classmethod
    def sysctl(cls, key: str) -> Key:
        return cls("sysctl", None, key)

    @classmethod
    def feature(cls, ifname: str, name: str) -> Key:
        return cls("feature", ifname, name)

    @classmethod
    def field(cls, ifname: str, group: Kind, field: str) -> Key:
        """A field of an ethtool group: ("eth2", "ring", "rx"), ("eth2", "coalesce", "rx-usecs")."""
        if group not in ETHTOOL_GROUPS:
            raise ValueError(f"{group!r} is not an ethtool group ({', '.join(ETHTOOL_GROUPS)})")
        return cls(group, ifname, field)

    @classmethod
    def mtu(cls, ifname: str) -> Key:
        return cls("mtu", ifname)

    @classmethod
    def txqueuelen(cls, ifname: str) -> Key:
        return cls("txqueuelen", ifname)

    @classmethod
    def qdisc(cls, ifname: str) -> Key:
        """The interface's root qdisc (the whole tree under it: kinds/qdisc.py)."""
        return cls("qdisc", ifname)

    @classmethod
    def rss(cls, ifname: str) -> Key:
        """The interface's RSS indirection table, context 0 (kinds/rss.py)."""
        return cls("rss", ifname)

    @classmethod
    def flow_hash(cls, ifname: str, flow: str) -> Key:
        """The header fields RSS hashes for one flow type ("tcp4"; `ethtool -N IF
        rx-flow-hash tcp4 sdfn`; kinds/rss.py)."""
        return cls("flow_hash", ifname, flow)

    @classmethod
    def ntuple(cls, ifname: str, location: int) -> Key:
        """The ntuple rule at `location` (`ethtool -N ... loc N`; kinds/ntuple.py)."""
        return cls("ntuple", ifname, str(location))

    @classmethod
    def rps_cpus(cls, ifname: str, queue: str) -> Key:
        return cls("rps_cpus", ifname, queue)

    @classmethod
    def xps_cpus(cls, ifname: str, queue: str) -> Key:
        return cls("xps_cpus", ifname, queue)

    @classmethod
    def rps_flow_cnt(cls, ifname: str, queue: str) -> Key:
        return cls("rps_flow_cnt", ifname, queue)

    @classmethod
    def irq(cls, irq: str | int, queue: str | None, ifname: str | None = None) -> Key:
        return cls("irq_affinity", ifname, str(irq), queue)

    @classmethod
    def service(cls, name: str) -> Key:
        return cls("service", None, name)

    @classmethod
    def proc_affinity(
        cls, pid: int, start_ticks: int, tid: int | None = None, comm: str | None = None
    ) -> Key:
        """A process's CPU affinity (every thread of it), or one thread's with `tid`."""
        name = f"{pid}@{start_ticks}" + (f"/{tid}" if tid is not None else "")
        return cls("proc_affinity", None, name, comm)

    @classmethod
    def cpu_governor(cls, policy: int) -> Key:
        return cls("cpu_governor", None, f"policy{policy}")

    @classmethod
    def cpu_epp(cls, policy: int) -> Key:
        return cls("cpu_epp", None, f"policy{policy}")

    @classmethod
    def cstate_disable(cls, cpu: int, state: int) -> Key:
        return cls("cstate_disable", None, f"cpu{cpu}/state{state}")

    @classmethod
    def cpu_boost(cls, name: str = "boost") -> Key:
        """Boost/turbo: "boost" (cpufreq/boost) or "no_turbo" (intel_pstate/no_turbo)."""
        return cls("cpu_boost", None, name)

    @classmethod
    def module_param(cls, module: str, param: str) -> Key:
        return cls("module_param", None, f"{module}/{param}")

    @classmethod
    def priv_flag(cls, ifname: str, flag: str) -> Key:
        return cls("priv_flag", ifname, flag)

    @classmethod
    def fec(cls, ifname: str) -> Key:
        return cls("fec", ifname)

    @classmethod
    def smt(cls) -> Key:
        return cls("smt", None, "control")

    # ---- self-description --------------------------------------------------------------
    @property
    def group(self) -> str:
        return GROUP_OF[self.kind]

    @property
    def scope(self) -> catalog.Scope:
        """ "netns": lives in the interface's (or sysctl's) network namespace; "host": global."""
        return _handler(self.kind).scope(self)

    @property
    def label(self) -> str:
        """How messages name it: "eth2 rings rx", "eth2 rx-0 rps_cpus", "IRQ 45 (eth2-TxRx-3)"."""
        return _handler(self.kind).label(self)

    def __str__(self) -> str:
        return self.label

    # ---- persistence (the journal) -------------------------------------------------------
    def to_json(self) -> list[Any]:
        return [self.kind, self.ifname, self.name, self.queue]

    @classmethod
    def from_json(cls, data: object) -> Key:
        if not (isinstance(data, list) and len(data) == 4 and data[0] in KINDS):
            raise ValueError(f"not a setting key: {data!r}")
        kind, ifname, name, queue = data
        if not isinstance(name, str) or not all(
            v is None or isinstance(v, str) for v in (ifname, queue)
        ):
            raise ValueError(f"not a setting key: {data!r}")
        return cls(kind, ifname, name, queue)


def proc_target(name: str) -> tuple[int, int, int | None]:
    """(pid, start_ticks, tid or None) of a process key's name "PID@START[/TID]"; ValueError
    for anything else (a journal or a profile is another user's text)."""
    head, slash, tid_s = name.partition("/")
    pid_s, at, start_s = head.partition("@")
    parts = [pid_s, start_s] + ([tid_s] if slash else [])
    if not at or not all(p.isascii() and p.isdigit() and len(p) <= 20 for p in parts):
        raise ValueError(f"not a process key: {name[:40]!r}")
    return int(pid_s), int(start_s), int(tid_s) if slash else None


def proc_label(name: str, comm: str | None) -> str:
    """How messages name a process key: "nuttcp (pid 812) affinity", "thread 815 of nuttcp
    (pid 812) affinity". The name is the process's own text: shown escaped."""
    try:
        pid, _, tid = proc_target(name)
    except ValueError:
        return f"process {printable(name, 40)} affinity"
    who = f"{printable(comm, 40)} (pid {pid})" if comm else f"pid {pid}"
    return f"thread {tid} of {who} affinity" if tid is not None else f"{who} affinity"


def setting_count(keys: Iterable[Key]) -> int:
    """How many settings the user changed among `keys`: a moved process records each of its
    threads with it (so that revert puts each back), and those count with the process."""
    keys = list(keys)
    whole = {k.name for k in keys if k.kind == "proc_affinity" and "/" not in k.name}
    return sum(
        1
        for k in keys
        if not (k.kind == "proc_affinity" and k.name.partition("/")[0] in whole and "/" in k.name)
    )


def cpus_of(value: str) -> frozenset[int]:
    """The CPU set of a canonical CPU-list value ("0-3", "none"), e.g. for a udev rps_cpus mask."""
    return frozenset() if value == NO_CPUS else parse_cpulist(value)


def cpus_value(cpus: frozenset[int], empty: str = NO_CPUS) -> str:
    return format_cpulist(cpus) if cpus else empty


class Describes(Protocol):
    """What a key asks of its kind's handler to name itself (every `KindHandler` has it)."""

    def label(self, key: Key) -> str: ...
    def scope(self, key: Key) -> catalog.Scope: ...


_HANDLERS: dict[Kind, Describes] = {}
_LOADERS: list[Callable[[], Mapping[Kind, Describes]]] = []


def describe_kinds_on_use(load: Callable[[], Mapping[Kind, Describes]]) -> None:
    """Bind each kind to the handler that names its keys, on the first key named. The
    handlers (kinds/) are built on `Key`, so this module cannot import them: the package
    (session/__init__.py) gives the loader of kinds/table.py's once, before any of its modules
    can be used; the table itself loads only when a key is first named (issue 38: watching a
    host never does)."""
    _LOADERS.append(load)


def _handler(kind: Kind) -> Describes:
    if not _HANDLERS:
        # Two threads may both load: the import is done once, the update is the same.
        for load in _LOADERS:
            _HANDLERS.update(load())
    return _HANDLERS[kind]
