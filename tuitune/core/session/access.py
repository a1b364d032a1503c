"""Read, validate and write settings of one host: the only kernel writer in tuitune.

Each kind of `Key` has a handler (kinds/table.py: how to read its group, how to check a typed
value, how to write it, what a write touches); this module keeps what is host-wide: the kernel
thread every call hops to (inside the host's netns, through `call`), the device handles, the
namespace's route to host-wide sysctls, and the enumeration of a device's settings. On a
recorded host tree (`HostRoot.fixture`) the same code reads and writes the tree's files, and
the ethtool groups are "not recorded" unless a device fake is given.

Reads give canonical strings (see settings.py) or an `Unavailable`; `validate` raises
`InvalidValue` (the user's input is wrong) or `WriteRefused` (the setting cannot be changed
here: unsupported, fixed, gone); `write` raises `WriteRefused` with the kernel's answer.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, TypeVar

from tuitune.core import catalog
from tuitune.core.closing import Closing
from tuitune.core.cpulist import CpuListError, parse_cpulist
from tuitune.core.host.cpus import possible_cpus
from tuitune.core.host.ethtool import LEGACY_FEATURE_ALIASES, Ethtool, requested_snapshot
from tuitune.core.host.handles import KernelHandles
from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.irqmap import NicIrq, nic_irqs
from tuitune.core.host.netdev import read_placement
from tuitune.core.host.netns import KernelThread
from tuitune.core.host.ntuple import rule_locations
from tuitune.core.host.root import HostRoot, read_value
from tuitune.core.host.sysctl import sysctl_path
from tuitune.core.session.kinds.base import (
    NOT_RECORDED,
    EthtoolLike,
    FileWriter,
    GroupRead,
    Values,
    WriteRefused,
    refusal,
    write_file,
)
from tuitune.core.session.kinds.ethtool import channel_max, ring_max
from tuitune.core.session.kinds.link import read_link
from tuitune.core.session.kinds.queues import read_device_queues
from tuitune.core.session.kinds.table import handler
from tuitune.core.session.outcome import Effect
from tuitune.core.session.proc_affinity import ProcAffinity, ProcRefused
from tuitune.core.session.service import ServiceRefused, Services
from tuitune.core.session.settings import (
    CHANNEL_FIELDS,
    DRIVER_KINDS,
    NO_CPUS,
    RING_FIELDS,
    Key,
)
from tuitune.core.session.validate import HostCpus
from tuitune.core.values import Unavailable

T = TypeVar("T")


class HostAccess(Closing):
    """Settings of one host (a machine, a network namespace, or a recorded tree).

    `call` runs a function on the host's kernel thread (pass `HostReader.call` to share the
    reader's thread); without it, HostAccess starts its own KernelThread. `ethtool` makes the
    device object for an interface (default: the real `Ethtool` on a live host, none on a tree).
    `writer` writes one /proc or /sys file; tests may wrap it to simulate a refusal the fixture
    tree cannot produce (EIO of a kernel-managed IRQ). `services` stops and starts daemons
    (irqbalance); tests pass one limited to their stand-in process.

    Host-wide sysctls of a network-namespace host are not visible from its kernel thread, so
    they are read (and, with `host_writes`, changed) through `host`: this machine's /proc by
    default (a tree's own files for a recorded host), on the calling thread, which lives in
    the host's namespace. Without `host_writes` they are refused, as is every other setting
    whose handler calls it host-wide (CPU power, SMT, module parameters: /sys is the host's
    from any namespace): a namespace session changes the whole machine only when the user
    agreed (the TUI asks; `apply --host-wide`; `restore`).

    Public methods are thread-safe (each hops to the kernel thread); do not call them from a
    running asyncio loop's thread if a write may take long (a ring resize resets the NIC).
    """

    def __init__(
        self,
        root: HostRoot,
        *,
        call: Callable[..., Any] | None = None,
        ethtool: Callable[[str], EthtoolLike] | None = None,
        writer: FileWriter | None = None,
        services: Services | None = None,
        host: HostRoot | None = None,
        host_writes: bool = False,
        handles: KernelHandles[EthtoolLike] | None = None,
    ) -> None:
        """`handles`: a reader's (same kernel thread, `call`), so both use one netlink socket
        and one ethtool handle per device; closed by that reader, not here."""
        self.root = root
        self.services = services or Services(root)
        self.procs = ProcAffinity(root)  # processes' CPU affinity (proc_affinity.py)
        self._own_kt: KernelThread | None = None
        if call is None:
            # A recorded tree is never entered, even when it stands for a namespace.
            self._own_kt = KernelThread(root.netns if root.live else None)
            call = self._own_kt.call
        self._call: Callable[..., Any] = call
        self._own_handles = handles is None
        self.handles: KernelHandles[EthtoolLike] = handles or KernelHandles(
            True, ethtool or (Ethtool if root.live else None)
        )
        self.writer = writer or functools.partial(write_file, jail=root.jail)
        # IRQ -> its queue names, kept for the length of one read_many (None: not read yet,
        # {}: not inside read_many). Kernel thread only.
        self.irq_parts: dict[str, list[str]] | None = {}
        self.host_writes = host_writes
        self._host: HostAccess | None = None
        if root.netns is not None:
            host = host or (HostRoot() if root.live else replace(root, netns=None))
            if host.netns is not None:
                raise ValueError("host: the host's own tree, not a namespace")
            self._host = HostAccess(host, call=_direct, writer=self.writer)

    # ---- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        if self._own_handles:
            self._call(self.handles.close)
        if self._host is not None:
            self._host.close()
        if self._own_kt is not None:
            self._own_kt.close()

    def run(self, fn: Callable[..., T], *args: object) -> T:
        """Run fn on the kernel thread."""
        result: T = self._call(fn, *args)
        return result

    # ---- public API ----------------------------------------------------------------------
    def read(self, key: Key) -> str | Unavailable:
        if self._host_wide(key):
            return self._on_host.read(key)
        return self.run(self._read, key)

    def read_many(self, keys: Iterable[Key]) -> dict[Key, str | Unavailable]:
        """Current values, reading each group (all features of a device, ...) once."""
        keys = list(keys)
        here = [k for k in keys if not self._host_wide(k)]
        got = self.run(self._read_many, here) if here else {}
        if len(here) < len(keys):
            got.update(self._on_host.read_many([k for k in keys if self._host_wide(k)]))
        return {k: got[k] for k in keys}

    def validate(self, key: Key, text: str) -> str:
        """The canonical value to write for `text`; raises InvalidValue or WriteRefused."""
        self._agreed(key)
        if self._host_wide(key):
            return self._on_host.validate(key, text)
        if handler(key.kind).calling_thread:
            return self._validate(key, text)  # see write
        return self.run(self._validate, key, text)

    def write(self, key: Key, value: str) -> tuple[Effect, ...]:
        """Write a canonical (validated) value; raises WriteRefused. No journal: use Journal.

        A service is stopped and started from the calling thread, not the kernel thread: a
        daemon started from a thread that joined a network namespace would run inside it."""
        self._agreed(key)
        if self._host_wide(key):
            return self._on_host.write(key, value)
        if handler(key.kind).calling_thread:
            return self._write(key, value)
        return self.run(self._write, key, value)

    def related(self, key: Key) -> dict[Key, str | None]:
        """`key` and the settings a write to it may change as well (the other fields of its
        ethtool group; every queue's RPS/XPS for channels), with their values (None: absent)."""
        if self._host_wide(key):
            return self._on_host.related(key)
        return self.run(self._related, key)

    def device_keys(self, ifname: str) -> list[Key]:
        """Every setting of `ifname` that can be changed here (changeable features, ring and
        channel fields the device has, coalescing parameters, pause, private flags, FEC, MTU,
        txqueuelen, the root qdisc, the RSS table, each ntuple rule, each queue's RPS/XPS,
        the NIC's IRQs)."""
        return self.run(self._device_keys, ifname)

    def sysctl_keys(self, *, host_wide: bool = False) -> list[Key]:
        """Catalog sysctls that can be changed here (present, writable, readable back, and
        in a network namespace, host-wide ones only with `host_writes`), in catalog order.
        `host_wide`: a namespace's host-wide ones all the same, for a record of what a run ran
        with (it reads them; whether they may be written is not its question)."""
        keys = self.run(self._sysctl_keys)
        if self._host is not None and (self.host_writes or host_wide):
            wide = {k for k in self._host.sysctl_keys() if k.scope == "host"}
            keys = [k for k in _catalog_keys() if k in wide or k in keys]
        return keys

    def feature_keys(self, ifname: str, name: str) -> list[Key]:
        """Keys for a kernel feature name or an `ethtool -K` short name (tso -> its members)."""
        return self.run(self._feature_keys, ifname, name)

    def irq_key(self, ifname: str, queue: str) -> Key | None:
        """The IRQ that now serves queue `queue` ("eth2-TxRx-3") of `ifname`, if any."""
        return self.run(self._irq_key, ifname, queue)

    # ---- host-wide sysctls of a namespace session ------------------------------------------
    def _host_wide(self, key: Key) -> bool:
        """A catalog sysctl the catalog calls host-wide. A key the catalog does not know (a
        sysctl.d file may name any) is read where the session is: a namespace's own file is
        applied inside it (`ip netns exec NS sysctl -p`), so it is compared there too; such
        a key is never written (validation refuses keys outside the catalog)."""
        if self._host is None or key.kind != "sysctl":
            return False
        try:
            return catalog.entry(key.name).scope == "host"
        except KeyError:
            return False

    @property
    def _on_host(self) -> HostAccess:
        assert self._host is not None  # only after _host_wide said so
        return self._host

    def _agreed(self, key: Key) -> None:
        """From a namespace session, a setting of the whole host (its handler's `host_wide`:
        a host-wide sysctl, the CPU governor, SMT, a module parameter...) is changed only
        when the user agreed (`host_writes`); else WriteRefused. /sys is the host's from
        any namespace: a CPU power write there would change the whole machine unasked."""
        if self.root.netns is None or self.host_writes or not handler(key.kind).host_wide(key):
            return
        reason = (
            f"{key.label} is host-wide: not changed from inside network namespace "
            f"{self.root.netns!r} without agreeing that it changes the whole machine"
        )
        raise WriteRefused(key, Unavailable("unsupported", reason))

    # ---- kernel thread: the handlers' port (kinds/port.py: KernelPort) ---------------------
    def ethtool(self, ifname: str) -> EthtoolLike | None:
        et: EthtoolLike | None = self.handles.ethtool(ifname)
        return et

    def iproute(self) -> Any:
        return self.handles.iproute()

    def cpus(self) -> tuple[frozenset[int], frozenset[int]]:
        """(online, present) CPUs of the host (see `possible` for the bound of a typed list)."""

        def one(name: str) -> frozenset[int]:
            text = read_value(self.root, self.root.sys_path(f"devices/system/cpu/{name}"), name)
            try:
                return parse_cpulist(text) if isinstance(text, str) else frozenset()
            except CpuListError:
                return frozenset()

        online, present = one("online"), one("present")
        return online, present | online

    def possible(self) -> int | None:
        """The host's nr_cpu_ids: a typed CPU list is bounded by it before it is expanded."""
        return possible_cpus(self.root)

    def host_cpus(self) -> HostCpus:
        """Everything a typed CPU list is checked against, read now."""
        return HostCpus(*self.cpus(), self.possible())

    # ---- kernel thread: reads, validation, writes (each kind's handler) -------------------
    def read_group(self, key: Key) -> GroupRead:
        """Every value of the group `key` belongs to (kinds/table.py names the handler)."""
        return handler(key.kind).read(self, key)

    def _read(self, key: Key) -> str | Unavailable:
        group = self.read_group(key)
        if isinstance(group, Unavailable):
            return group
        value = group.get(key)
        if value is None:
            return handler(key.kind).absent(key)
        return value

    def _read_many(self, keys: list[Key]) -> dict[Key, str | Unavailable]:
        cache: dict[tuple[object, ...], GroupRead] = {}
        out: dict[Key, str | Unavailable] = {}
        # One parse of /proc/interrupts for every IRQ asked for (a big host's is megabytes).
        self.irq_parts = None if any(k.kind == "irq_affinity" for k in keys) else {}
        try:
            for key in keys:
                gid = handler(key.kind).group(key)
                if gid not in cache:
                    cache[gid] = self.read_group(key)
                group = cache[gid]
                if isinstance(group, Unavailable):
                    out[key] = group
                else:
                    value = group.get(key)
                    out[key] = handler(key.kind).absent(key) if value is None else value
        finally:
            self.irq_parts = {}
        return out

    def current(self, key: Key) -> str:
        """The current value, or WriteRefused with the reason it cannot be read."""
        value = self._read(key)
        if isinstance(value, Unavailable):
            raise WriteRefused(key, value)
        return value

    def _validate(self, key: Key, text: str) -> str:
        return handler(key.kind).validate(self, key, text)

    def _write(self, key: Key, value: str) -> tuple[Effect, ...]:
        try:
            return handler(key.kind).write(self, key, value)
        except (ServiceRefused, ProcRefused) as exc:
            raise WriteRefused(key, exc.state) from exc
        except OSError as exc:
            raise WriteRefused(key, refusal(key, exc, value)) from exc

    def _related(self, key: Key) -> dict[Key, str | None]:
        return handler(key.kind).related(self, key)

    # ---- kernel thread: enumeration --------------------------------------------------------
    def _device_keys(self, ifname: str) -> list[Key]:
        keys: list[Key] = []
        link = read_link(self, ifname)
        if not isinstance(link, Unavailable):
            keys += list(link)
        et = self.ethtool(ifname)
        if et is not None:
            feats = et.features()
            if not isinstance(feats, Unavailable):
                keys += [Key.feature(ifname, n) for n in requested_snapshot(feats)]
            r = et.rings()
            if not isinstance(r, Unavailable):
                keys += [Key.field(ifname, "ring", f) for f in RING_FIELDS if ring_max(r, f)]
            c = et.channels()
            if not isinstance(c, Unavailable):
                keys += [
                    Key.field(ifname, "channels", f) for f in CHANNEL_FIELDS if channel_max(c, f)
                ]
            for group in ("coalesce", "pause", *DRIVER_KINDS):
                got = self.read_group(Key(group, ifname))
                if not isinstance(got, Unavailable):
                    keys += list(got)
            keys += self._steering_keys(ifname)
        if not isinstance(self.read_group(Key.qdisc(ifname)), Unavailable):
            keys.append(Key.qdisc(ifname))
        queues = read_device_queues(self, ifname)
        if not isinstance(queues, Unavailable):
            keys += list(queues)
        keys += [
            Key.irq(q.irq, q.name, ifname)
            for q in self.nic_irqs(ifname)
            if self.root.proc_path(f"irq/{q.irq}/smp_affinity_list").exists()
        ]
        return keys

    def _steering_keys(self, ifname: str) -> list[Key]:
        """The RSS table where the driver reports one, and each location holding an ntuple
        rule (a free location is no setting of the device: a profile names it to add one)."""
        keys = []
        if not isinstance(self.read_group(Key.rss(ifname)), Unavailable):
            keys.append(Key.rss(ifname))
        hashed = self.read_group(Key.flow_hash(ifname, "tcp4"))
        if not isinstance(hashed, Unavailable):
            keys += list(hashed)
        io = getattr(self.ethtool(ifname), "ioctl", None)
        if io is not None:
            with contextlib.suppress(OSError):  # no ntuple table (veth, virtio): none listed
                keys += [Key.ntuple(ifname, loc) for loc in rule_locations(io)]
        return keys

    def _sysctl_keys(self) -> list[Key]:
        out = []
        for e in catalog.SYSCTLS:
            if not e.writable or not e.readable or e.kind == "trigger":
                continue
            if self.root.netns is not None and e.scope == "host":
                continue
            if self.root.proc_path(sysctl_path(e.key)).exists():
                out.append(Key.sysctl(e.key))
        return out

    def _feature_keys(self, ifname: str, name: str) -> list[Key]:
        et = self.ethtool(ifname)
        if et is None:
            return [Key.feature(ifname, name)]
        feats = et.features()
        if isinstance(feats, Unavailable) or any(f.name == name for f in feats):
            return [Key.feature(ifname, name)]
        pattern = LEGACY_FEATURE_ALIASES.get(name)
        if pattern is None:
            return [Key.feature(ifname, name)]  # validation names the unknown feature
        members = [f for f in feats if fnmatch.fnmatchcase(f.name, pattern)]
        # Like `ethtool -K`: an alias moves its changeable members; all fixed -> refused later.
        chosen = [f for f in members if not f.fixed] or members
        return [Key.feature(ifname, f.name) for f in chosen]

    def nic_irqs(self, ifname: str) -> list[NicIrq]:
        try:
            interrupts = parse_interrupts(self.root.read_proc("interrupts"))
        except OSError:
            return []
        placement = read_placement(self.root, ifname)
        return list(
            nic_irqs(
                interrupts,
                ifname,
                msi_irqs=placement.msi_irqs or None,
                bus_info=placement.bus,
                virtio_dev=placement.virtio_dev,
            )
        )

    def _irq_key(self, ifname: str, queue: str) -> Key | None:
        for q in self.nic_irqs(ifname):
            if q.name == queue:
                return Key.irq(q.irq, q.name, ifname)
        return None


def _direct(fn: Callable[..., T], *args: object) -> T:
    """Run on the calling thread (the host side of a namespace session)."""
    return fn(*args)


def _catalog_keys() -> list[Key]:
    return [Key.sysctl(e.key) for e in catalog.SYSCTLS]


__all__ = [
    "NOT_RECORDED",
    "NO_CPUS",
    "EthtoolLike",
    "FileWriter",
    "HostAccess",
    "Values",
    "WriteRefused",
    "refusal",
    "write_file",
]
