"""Read, validate and write settings of one host: the only kernel writer in tuitune.

Each kind of `Key` is a row in a small table (how to read its group, how to check a typed value,
how to write it) rather than a class per knob. Every kernel call runs on the host's kernel
thread (inside its netns), through `call`; on a recorded host tree (`HostRoot.fixture`) the
same code reads and writes the tree's files, and the ethtool groups are "not recorded" unless a
device fake is given.

Reads give canonical strings (see settings.py) or an `Unavailable`; `validate` raises
`InvalidValue` (the user's input is wrong) or `WriteRefused` (the setting cannot be changed
here: unsupported, fixed, gone); `write` raises `WriteRefused` with the kernel's answer.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import functools
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from tuitune.core import catalog
from tuitune.core.cpulist import CpuListError, format_cpulist, format_mask, parse_cpulist
from tuitune.core.host.cpus import possible_cpus
from tuitune.core.host.ethtool import (
    LEGACY_FEATURE_ALIASES,
    Channels,
    Coalesce,
    Ethtool,
    EthtoolWriteError,
    Feature,
    FeatureChange,
    Pause,
    Rings,
    requested_snapshot,
)
from tuitune.core.host.ethtool_netlink import COALESCE_BY_NAME
from tuitune.core.host.handles import KernelHandles
from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.irqmap import nic_irqs
from tuitune.core.host.netdev import read_placement, read_queues
from tuitune.core.host.netns import KernelThread
from tuitune.core.host.root import HostRoot, KernelFileError, open_in_tree, read_int, read_value
from tuitune.core.host.sysctl import read_sysctl, sysctl_path
from tuitune.core.session import kernel_said
from tuitune.core.session import validate as v
from tuitune.core.session.kernel_said import ALLOWED_CC, CONGESTION, value_refused
from tuitune.core.session.outcome import Effect
from tuitune.core.session.proc_affinity import ProcAffinity, ProcRefused
from tuitune.core.session.service import ServiceRefused, Services
from tuitune.core.session.settings import (
    CHANNEL_FIELDS,
    ETHTOOL_GROUPS,
    NO_CPUS,
    PAUSE_FIELDS,
    QUEUE_KINDS,
    RING_FIELDS,
    Key,
    cpus_of,
    cpus_value,
    ring_minimum,
)
from tuitune.core.values import Unavailable

T = TypeVar("T")

NOT_RECORDED = Unavailable("missing", "not recorded in this host tree")
RPS_FLOW_CNT_MAX = 1 << 30  # the largest power of two the kernel accepts (count <= INT_MAX)
MTU_MIN_IPV4 = 68
_FLAGS = frozenset(n for n, (_, flag) in COALESCE_BY_NAME.items() if flag)


class WriteRefused(Exception):
    """The setting cannot be changed (now, here); `state` says why in plain words."""

    def __init__(self, key: Key, state: Unavailable) -> None:
        state = _labelled(key, state)
        super().__init__(state.reason)
        self.key = key
        self.state = state


def _labelled(key: Key, state: Unavailable) -> Unavailable:
    """Name the setting in the reason: "rings: not supported by veth" -> "eth2 rings rx: not
    supported by veth", so a list of refusals says which line each is about."""
    if state.reason.startswith(key.label):
        return state
    head, sep, rest = state.reason.partition(": ")
    reason = rest if sep and head in (key.group, key.kind) else state.reason
    return Unavailable(state.kind, f"{key.label}: {reason}")


class EthtoolLike(Protocol):
    """What `HostAccess` needs of a device: `Ethtool`, or a fake in tests."""

    def features(self) -> tuple[Feature, ...] | Unavailable: ...
    def rings(self) -> Rings | Unavailable: ...
    def coalesce(self) -> Coalesce | Unavailable: ...
    def channels(self) -> Channels | Unavailable: ...
    def pause(self) -> Pause | Unavailable: ...
    def set_features(self, wanted: Mapping[str, bool]) -> FeatureChange: ...
    def set_rings(
        self,
        rx: int | None = None,
        tx: int | None = None,
        rx_mini: int | None = None,
        rx_jumbo: int | None = None,
    ) -> None: ...
    def set_channels(
        self,
        rx: int | None = None,
        tx: int | None = None,
        other: int | None = None,
        combined: int | None = None,
    ) -> None: ...
    def set_pause(
        self, autoneg: bool | None = None, rx: bool | None = None, tx: bool | None = None
    ) -> None: ...
    def set_coalesce(self, values: Mapping[str, int]) -> None: ...
    def close(self) -> None: ...


Values = dict[Key, str]
GroupRead = Values | Unavailable
FileWriter = Callable[[Path, str], None]


def write_file(path: Path, text: str, jail: str | None = None) -> None:
    """One write(2) of a /proc or /sys value (or a fixture tree's file): the kernel's answer
    comes back as the OSError of that write. Never creates a file. In a --root tree (`jail`)
    the file must be inside the tree: a linked directory never leads the write out of it."""
    fd = open_in_tree(path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW, jail, str(path))
    try:
        os.write(fd, text.encode() + b"\n")
    finally:
        os.close(fd)


def refusal(key: Key, exc: OSError, value: str | None = None) -> Unavailable:
    """A kernel's errno on a write, in plain words."""
    code, label = exc.errno, key.label
    if isinstance(exc, KernelFileError):  # not the kernel's answer: the tree's file was refused
        return Unavailable(exc.state.kind, f"{label}: {exc.state.reason}")
    shown = f" {value}" if value is not None else ""
    if code == errno.EIO and key.kind == "irq_affinity":
        return Unavailable(
            "unsupported", f"{label}: managed by the kernel (its affinity is fixed by the driver)"
        )
    if code in (errno.EPERM, errno.EACCES):
        # As root with the capability, the kernel refused the value, not tuitune's right.
        said = kernel_said.privileged_refusal(key, code, value)
        return said or Unavailable("permission", f"{label}: changing it needs root")
    if code in (errno.ENOENT, errno.ENODEV, errno.ENXIO):
        return Unavailable("missing", f"{label}: not present (gone?)")
    if code in (errno.EOPNOTSUPP, errno.ENOTSUP):
        return Unavailable("unsupported", f"{label}: not supported here")
    if code in (errno.EINVAL, errno.ERANGE):
        return Unavailable("error", f"{label}: the kernel rejected{shown}")
    if code == errno.ENOMEM:
        return Unavailable("error", f"{label}: the kernel could not allocate memory for{shown}")
    if code == errno.EBUSY:
        return Unavailable("error", f"{label}: busy, try again")
    return Unavailable("error", f"{label}: {exc.strerror or exc}")


def _switch(b: bool) -> str:
    return "on" if b else "off"


def _rings_values(ifname: str, r: Rings) -> Values:
    f = Key.field
    return {
        f(ifname, "ring", "rx"): str(r.rx),
        f(ifname, "ring", "rx-mini"): str(r.rx_mini),
        f(ifname, "ring", "rx-jumbo"): str(r.rx_jumbo),
        f(ifname, "ring", "tx"): str(r.tx),
    }


def _ring_max(r: Rings, field: str) -> int:
    return {"rx": r.rx_max, "rx-mini": r.rx_mini_max, "rx-jumbo": r.rx_jumbo_max, "tx": r.tx_max}[
        field
    ]


def _channel_max(c: Channels, field: str) -> int:
    return {"rx": c.rx_max, "tx": c.tx_max, "other": c.other_max, "combined": c.combined_max}[field]


class HostAccess:
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
    the host's namespace. Without `host_writes` they are refused: a namespace session changes
    the whole machine only when the user agreed (the TUI asks; `apply --host-wide`; `restore`).

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
        handles: KernelHandles[Any] | None = None,
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
        self.handles: KernelHandles[Any] = handles or KernelHandles(
            True, ethtool or (Ethtool if root.live else None)
        )
        self._writer = writer or functools.partial(write_file, jail=root.jail)
        # IRQ -> its queue names, kept for the length of one read_many (None: not read yet,
        # {}: not inside read_many). Kernel thread only.
        self._irq_parts: dict[str, list[str]] | None = {}
        self.host_writes = host_writes
        self._host: HostAccess | None = None
        if root.netns is not None:
            host = host or (HostRoot() if root.live else replace(root, netns=None))
            if host.netns is not None:
                raise ValueError("host: the host's own tree, not a namespace")
            self._host = HostAccess(host, call=_direct, writer=self._writer)

    # ---- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        if self._own_handles:
            self._call(self.handles.close)
        if self._host is not None:
            self._host.close()
        if self._own_kt is not None:
            self._own_kt.close()

    def __enter__(self) -> HostAccess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        if self._host_wide(key):
            return self._writable_host(key).validate(key, text)
        if key.kind == "service":
            return self._validate_service(key, text)  # see write
        return self.run(self._validate, key, text)

    def write(self, key: Key, value: str) -> tuple[Effect, ...]:
        """Write a canonical (validated) value; raises WriteRefused. No journal: use Journal.

        A service is stopped and started from the calling thread, not the kernel thread: a
        daemon started from a thread that joined a network namespace would run inside it."""
        if self._host_wide(key):
            return self._writable_host(key).write(key, value)
        if key.kind == "service":
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
        channel fields the device has, coalescing parameters, pause, MTU, txqueuelen, each
        queue's RPS/XPS, the NIC's IRQs)."""
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

    def _writable_host(self, key: Key) -> HostAccess:
        if not self.host_writes:
            reason = (
                f"{key.label} is host-wide: not changed from inside network namespace "
                f"{self.root.netns!r} without agreeing that it changes the whole machine"
            )
            raise WriteRefused(key, Unavailable("unsupported", reason))
        return self._on_host

    # ---- kernel thread: device objects -----------------------------------------------------
    def _eth(self, ifname: str) -> EthtoolLike | None:
        et: EthtoolLike | None = self.handles.ethtool(ifname)
        return et

    def _iproute(self) -> Any:
        return self.handles.iproute()

    def _cpus(self) -> tuple[frozenset[int], frozenset[int]]:
        """(online, present) CPUs of the host (see _possible for the bound of a typed list)."""

        def one(name: str) -> frozenset[int]:
            text = read_value(self.root, self.root.sys_path(f"devices/system/cpu/{name}"), name)
            try:
                return parse_cpulist(text) if isinstance(text, str) else frozenset()
            except CpuListError:
                return frozenset()

        online, present = one("online"), one("present")
        return online, present | online

    def _possible(self) -> int | None:
        """The host's nr_cpu_ids: a typed CPU list is bounded by it before it is expanded."""
        return possible_cpus(self.root)

    # ---- kernel thread: reads --------------------------------------------------------------
    def _read(self, key: Key) -> str | Unavailable:
        group = self._read_group(key)
        if isinstance(group, Unavailable):
            return group
        value = group.get(key)
        if value is None:
            return self._absent(key)
        return value

    def _read_many(self, keys: list[Key]) -> dict[Key, str | Unavailable]:
        cache: dict[tuple[object, ...], GroupRead] = {}
        out: dict[Key, str | Unavailable] = {}
        # One parse of /proc/interrupts for every IRQ asked for (a big host's is megabytes).
        self._irq_parts = None if any(k.kind == "irq_affinity" for k in keys) else {}
        try:
            for key in keys:
                gid = _group_id(key)
                if gid not in cache:
                    cache[gid] = self._read_group(key)
                group = cache[gid]
                if isinstance(group, Unavailable):
                    out[key] = group
                else:
                    value = group.get(key)
                    out[key] = self._absent(key) if value is None else value
        finally:
            self._irq_parts = {}
        return out

    def _absent(self, key: Key) -> Unavailable:
        if key.kind == "feature":
            return Unavailable("missing", f"{key.label}: no such feature")
        if key.kind in QUEUE_KINDS:
            return Unavailable("missing", f"{key.label}: no queue {key.name} (now)")
        if key.kind in ETHTOOL_GROUPS:
            return Unavailable("unsupported", f"{key.label}: not supported by this device")
        return Unavailable("missing", f"{key.label}: not present")  # sysctl, link, IRQ, service

    def _read_group(self, key: Key) -> GroupRead:
        k, dev = key.kind, key.ifname or ""
        if k == "sysctl":
            return self._read_sysctl(key)
        if k == "irq_affinity":
            return self._read_irq(key)
        if k == "service":
            value = self.services.read(key)
            return value if isinstance(value, Unavailable) else {key: value}
        if k == "proc_affinity":
            return self.procs.read_group(key)
        if k in ("mtu", "txqueuelen"):
            return self._read_link(dev)
        if k in QUEUE_KINDS:
            return self._read_queues(dev)
        et = self._eth(dev)
        if et is None:
            return NOT_RECORDED
        if k == "feature":
            feats = et.features()
            if isinstance(feats, Unavailable):
                return feats
            return {Key.feature(dev, f.name): _switch(f.requested) for f in feats}
        if k == "ring":
            r = et.rings()
            return r if isinstance(r, Unavailable) else _rings_values(dev, r)
        if k == "channels":
            c = et.channels()
            if isinstance(c, Unavailable):
                return c
            counts = (c.rx, c.tx, c.other, c.combined)
            return {
                Key.field(dev, "channels", n): str(x)
                for n, x in zip(CHANNEL_FIELDS, counts, strict=True)
            }
        if k == "pause":
            p = et.pause()
            if isinstance(p, Unavailable):
                return p
            flags = (p.autoneg, p.rx, p.tx)
            return {
                Key.field(dev, "pause", n): _switch(b)
                for n, b in zip(PAUSE_FIELDS, flags, strict=True)
            }
        co = et.coalesce()
        if isinstance(co, Unavailable):
            return co
        return {
            Key.field(dev, "coalesce", n): _switch(bool(x)) if n in _FLAGS else str(x)
            for n, x in co.params
        }

    def _read_sysctl(self, key: Key) -> GroupRead:
        raw = read_sysctl(self.root, key.name)
        if isinstance(raw, Unavailable):
            return raw
        try:
            entry = catalog.entry(key.name)
        except KeyError:
            return {key: raw}
        return {key: v.canonical_sysctl(entry, raw)}

    def _link(self, ifname: str) -> dict[str, int | None] | Unavailable:
        """mtu, min_mtu, max_mtu, txqlen, index: rtnetlink on a live host, sysfs on a tree."""
        if self.root.live:
            from pyroute2.netlink.exceptions import NetlinkError

            try:
                msg = self._iproute().link("get", ifname=ifname)[0]
            except NetlinkError as exc:
                if exc.code == errno.ENODEV:
                    return Unavailable("missing", f"{ifname}: no such interface")
                return Unavailable("error", f"{ifname}: {exc}")
            return {
                "mtu": msg.get("mtu"),
                "min_mtu": msg.get("min_mtu") or None,
                "max_mtu": msg.get("max_mtu") or None,  # 0: no maximum reported (lo)
                "txqlen": msg.get("txqlen"),
                "index": int(msg["index"]),
            }
        base = f"class/net/{ifname}"
        mtu = read_int(self.root, self.root.sys_path(f"{base}/mtu"), f"{ifname} mtu")
        if isinstance(mtu, Unavailable):
            return mtu
        txq = read_int(
            self.root, self.root.sys_path(f"{base}/tx_queue_len"), f"{ifname} txqueuelen"
        )
        return {
            "mtu": mtu,
            "min_mtu": None,
            "max_mtu": None,
            "txqlen": txq if isinstance(txq, int) else None,
            "index": None,
        }

    def _read_link(self, ifname: str) -> GroupRead:
        link = self._link(ifname)
        if isinstance(link, Unavailable):
            return link
        out: Values = {}
        if link["mtu"] is not None:
            out[Key.mtu(ifname)] = str(link["mtu"])
        if link["txqlen"] is not None:
            out[Key.txqueuelen(ifname)] = str(link["txqlen"])
        return out

    def _read_queues(self, ifname: str) -> GroupRead:
        if not self.root.sys_path(f"class/net/{ifname}").exists():
            return Unavailable("missing", f"{ifname}: no such interface")
        out: Values = {}
        for q in read_queues(self.root, ifname):
            rx = q.name.startswith("rx-")
            if not isinstance(q.cpus, Unavailable):
                key = Key.rps_cpus(ifname, q.name) if rx else Key.xps_cpus(ifname, q.name)
                out[key] = cpus_value(q.cpus)
            if isinstance(q.rps_flow_cnt, int):
                out[Key.rps_flow_cnt(ifname, q.name)] = str(q.rps_flow_cnt)
        return out

    def _irq_number(self, key: Key) -> str:
        """Where the queue of `key` is now: IRQ numbers change across driver reloads, queue
        names do not. Raises WriteRefused if the queue has no IRQ any more."""
        if key.queue is None:
            return key.name
        parts = self._irq_parts or None  # {} outside read_many: read now
        if parts is None:
            try:
                rows = parse_interrupts(self.root.read_proc("interrupts")).rows
            except OSError:
                return key.name
            parts = {r.irq: [p.strip() for p in r.name.split(", ")] for r in rows if r.numeric}
            if self._irq_parts is None:
                self._irq_parts = parts
        if key.queue in parts.get(key.name, ()) or key.queue == key.name:
            return key.name
        for irq, names in parts.items():
            if key.queue in names:
                return irq
        raise WriteRefused(
            key, Unavailable("missing", f"{key.label}: no IRQ serves {key.queue} now")
        )

    def _read_irq(self, key: Key) -> GroupRead:
        try:
            irq = self._irq_number(key)
        except WriteRefused as exc:
            return exc.state
        text = read_value(self.root, self.root.proc_path(f"irq/{irq}/smp_affinity_list"), key.label)
        if isinstance(text, Unavailable):
            return text
        try:
            return {key: format_cpulist(parse_cpulist(text))}
        except CpuListError as exc:
            return Unavailable("error", f"{key.label}: {exc}")

    # ---- kernel thread: validation ---------------------------------------------------------
    def _current(self, key: Key) -> str:
        """The current value, or WriteRefused with the reason it cannot be read."""
        value = self._read(key)
        if isinstance(value, Unavailable):
            raise WriteRefused(key, value)
        return value

    def _validate_service(self, key: Key, text: str) -> str:
        try:
            return self.services.validate(key, text)
        except ServiceRefused as exc:
            raise WriteRefused(key, exc.state) from None

    def _validate(self, key: Key, text: str) -> str:
        k = key.kind
        if k == "sysctl":
            return self._validate_sysctl(key, text)
        if k == "service":
            return self._validate_service(key, text)
        if k == "proc_affinity":
            try:
                online, present = self._cpus()
                return self.procs.validate(
                    key, text, online=online, present=present, possible=self._possible()
                )
            except ProcRefused as exc:
                raise WriteRefused(key, exc.state) from None
        if k in ("rps_cpus", "xps_cpus", "irq_affinity"):
            current = self._current(key)  # the queue / IRQ must exist
            online, present = self._cpus()
            return v.parse_cpus(
                key,
                text,
                online=online,
                present=present,
                allow_empty=k != "irq_affinity",
                current=current,
                possible=self._possible(),
            )
        if k == "rps_flow_cnt":
            self._current(key)
            return v.parse_power_of_two(key, text, RPS_FLOW_CNT_MAX)
        if k in ("mtu", "txqueuelen"):
            link = self._link(key.ifname or "")
            if isinstance(link, Unavailable):
                raise WriteRefused(key, link)
            if k == "txqueuelen":
                return v.parse_count(key, text, maximum=v.U32_MAX)
            low = link["min_mtu"] or MTU_MIN_IPV4
            return v.parse_count(key, text, minimum=low, maximum=link["max_mtu"] or v.U32_MAX)
        et = self._eth(key.ifname or "")
        if et is None:
            raise WriteRefused(key, NOT_RECORDED)
        if k == "feature":
            return self._validate_feature(key, et, text)
        if k == "pause":
            self._current(key)
            return v.parse_switch(key, text)
        if k == "coalesce":
            if key.name not in COALESCE_BY_NAME:
                known = ", ".join(sorted(COALESCE_BY_NAME))
                raise v.InvalidValue(key, f"{key.label}: no such parameter (known: {known})")
            self._current(key)
            if key.name in _FLAGS:
                return v.parse_switch(key, text)
            return v.parse_count(key, text, maximum=v.U32_MAX)
        if k == "ring":
            return self._validate_ring(key, et, text)
        return self._validate_channels(key, et, text)

    def _validate_sysctl(self, key: Key, text: str) -> str:
        try:
            entry = catalog.entry(key.name)
        except KeyError as exc:
            raise v.InvalidValue(key, str(exc.args[0])) from None
        if not entry.writable or entry.kind == "trigger" or not entry.readable:
            why = "a write-only trigger" if entry.kind == "trigger" else "read-only"
            raise WriteRefused(
                key, Unavailable("unsupported", f"{key.label}: {why}; tuitune does not change it")
            )
        self._current(key)
        choices = None
        if entry.choices_key:
            listed = read_sysctl(self.root, entry.choices_key)
            if isinstance(listed, str):
                choices = catalog.split_choices(listed)
        return v.parse_sysctl(key, entry, text, choices)

    def _validate_feature(self, key: Key, et: EthtoolLike, text: str) -> str:
        feats = et.features()
        if isinstance(feats, Unavailable):
            raise WriteRefused(key, feats)
        found = next((f for f in feats if f.name == key.name), None)
        if found is None:
            raise v.InvalidValue(key, f"{key.label}: no such feature on {key.ifname}")
        if found.fixed:
            # Asking for the value it has is no error (`lro = false` where LRO is fixed off).
            with contextlib.suppress(v.InvalidValue):
                if v.parse_switch(key, text) == _switch(found.requested):
                    return _switch(found.requested)
            state = Unavailable("unsupported", f"{key.label}: fixed, the device cannot change it")
            raise WriteRefused(key, state)
        return v.parse_switch(key, text)

    def _validate_ring(self, key: Key, et: EthtoolLike, text: str) -> str:
        if key.name not in RING_FIELDS:
            raise v.InvalidValue(key, f"{key.label}: no such ring ({', '.join(RING_FIELDS)})")
        r = et.rings()
        if isinstance(r, Unavailable):
            raise WriteRefused(key, r)
        top = _ring_max(r, key.name)
        if top == 0:
            raise WriteRefused(key, Unavailable("unsupported", f"{key.label}: not on this device"))
        return v.parse_count(key, text, minimum=ring_minimum(key.name), maximum=top)

    def _validate_channels(self, key: Key, et: EthtoolLike, text: str) -> str:
        if key.name not in CHANNEL_FIELDS:
            known = ", ".join(CHANNEL_FIELDS)
            raise v.InvalidValue(key, f"{key.label}: no such channel kind ({known})")
        c = et.channels()
        if isinstance(c, Unavailable):
            raise WriteRefused(key, c)
        top = _channel_max(c, key.name)
        if top == 0:
            raise WriteRefused(key, Unavailable("unsupported", f"{key.label}: not on this device"))
        value = v.parse_count(key, text)
        if int(value) > top:
            raise v.BeyondDevice(key, f"{key.label}: {value} is above the maximum {top}")
        counts = {"rx": c.rx, "tx": c.tx, "other": c.other, "combined": c.combined}
        counts[key.name] = int(value)
        # The kernel's own rule (ethtool_set_channels): something must still receive and send.
        if counts["combined"] == 0 and (counts["rx"] == 0 or counts["tx"] == 0):
            raise v.InvalidValue(
                key, f"{key.label}: {value} would leave no rx or no tx channel (needs at least one)"
            )
        return value

    # ---- kernel thread: writes -------------------------------------------------------------
    def _write(self, key: Key, value: str) -> tuple[Effect, ...]:
        k = key.kind
        try:
            if k == "sysctl":
                self._writer(self.root.proc_path(sysctl_path(key.name)), value)
            elif k == "irq_affinity":
                irq = self._irq_number(key)
                self._writer(self.root.proc_path(f"irq/{irq}/smp_affinity_list"), value)
            elif k in ("rps_cpus", "xps_cpus"):
                _, present = self._cpus()
                mask = format_mask(cpus_of(value), max(present, default=0) + 1)
                self._writer(self._queue_path(key), mask)
            elif k == "rps_flow_cnt":
                self._writer(self._queue_path(key), value)
            elif k in ("mtu", "txqueuelen"):
                self._write_link(key, int(value))
            elif k == "service":
                self.services.write(key, value)
            elif k == "proc_affinity":
                self.procs.write(key, value)
            else:
                return self._write_device(key, value)
        except (ServiceRefused, ProcRefused) as exc:
            raise WriteRefused(key, exc.state) from exc
        except OSError as exc:
            if k == "sysctl" and key.name == CONGESTION and exc.errno == errno.EPERM:
                raise WriteRefused(key, self._congestion_refused(key, value)) from exc
            raise WriteRefused(key, refusal(key, exc, value)) from exc
        return ()

    def _congestion_refused(self, key: Key, value: str) -> Unavailable:
        """EPERM on tcp_congestion_control: the namespace's allowed list, named."""
        if not kernel_said.privileged():
            return refusal(key, OSError(errno.EPERM, "not permitted"), value)
        allowed = read_sysctl(self.root, ALLOWED_CC)
        listed = allowed if isinstance(allowed, str) else None
        return Unavailable("error", value_refused(key, errno.EPERM, value, listed))

    def _queue_path(self, key: Key) -> Path:
        return self.root.sys_path(f"class/net/{key.ifname}/queues/{key.name}/{key.kind}")

    def _write_link(self, key: Key, value: int) -> None:
        attr = "mtu" if key.kind == "mtu" else "txqlen"
        if not self.root.live:
            sysfs = "mtu" if key.kind == "mtu" else "tx_queue_len"
            self._writer(self.root.sys_path(f"class/net/{key.ifname}/{sysfs}"), str(value))
            return
        from pyroute2.netlink.exceptions import NetlinkError

        ipr = self._iproute()
        try:
            index = ipr.link_lookup(ifname=key.ifname)
            if not index:
                raise OSError(errno.ENODEV, "no such interface")
            ipr.link("set", index=index[0], **{attr: value})
        except NetlinkError as exc:
            raise OSError(exc.code, os.strerror(exc.code)) from exc

    def _write_device(self, key: Key, value: str) -> tuple[Effect, ...]:
        dev = key.ifname or ""
        et = self._eth(dev)
        if et is None:
            raise WriteRefused(key, NOT_RECORDED)
        try:
            if key.kind == "feature":
                change = et.set_features({key.name: value == "on"})
                return tuple(
                    Effect(Key.feature(dev, name), _switch(not active), _switch(active))
                    for name, active in change.changed
                    if name != key.name
                )
            if key.kind == "ring":
                et.set_rings(**{key.name.replace("-", "_"): int(value)})
            elif key.kind == "channels":
                et.set_channels(**{key.name: int(value)})
            elif key.kind == "pause":
                et.set_pause(**{key.name: value == "on"})
            else:
                number = int(value == "on") if key.name in _FLAGS else int(value)
                et.set_coalesce({key.name: number})
        except EthtoolWriteError as exc:
            raise WriteRefused(key, exc.state) from exc
        return ()

    # ---- kernel thread: what a write touches -------------------------------------------------
    def _related(self, key: Key) -> dict[Key, str | None]:
        group = self._read_group(key)
        out: dict[Key, str | None] = {key: None}
        if isinstance(group, Unavailable):
            return out
        if key.kind in (*ETHTOOL_GROUPS, "proc_affinity"):  # a process: each thread's too
            out.update(group)
        else:
            out[key] = group.get(key)
        if key.kind == "channels":
            queues = self._read_queues(key.ifname or "")
            if not isinstance(queues, Unavailable):
                out.update(queues)
            # Drivers re-create (or re-spread) their queue IRQs on a channel change: their
            # affinity moves with it, and absent ones are IRQs of queues the change removes.
            outer, self._irq_parts = self._irq_parts, None  # one parse for all of them
            try:
                for q in self._nic_irqs(key.ifname or ""):
                    irq = Key.irq(q.irq, q.name, key.ifname)
                    got = self._read_irq(irq)
                    out[irq] = None if isinstance(got, Unavailable) else got.get(irq)
            finally:
                self._irq_parts = outer
        return out

    # ---- kernel thread: enumeration --------------------------------------------------------
    def _device_keys(self, ifname: str) -> list[Key]:
        keys: list[Key] = []
        link = self._read_link(ifname)
        if not isinstance(link, Unavailable):
            keys += list(link)
        et = self._eth(ifname)
        if et is not None:
            feats = et.features()
            if not isinstance(feats, Unavailable):
                keys += [Key.feature(ifname, n) for n in requested_snapshot(feats)]
            r = et.rings()
            if not isinstance(r, Unavailable):
                keys += [Key.field(ifname, "ring", f) for f in RING_FIELDS if _ring_max(r, f)]
            c = et.channels()
            if not isinstance(c, Unavailable):
                keys += [
                    Key.field(ifname, "channels", f) for f in CHANNEL_FIELDS if _channel_max(c, f)
                ]
            for group in ("coalesce", "pause"):
                got = self._read_group(Key(group, ifname))
                if not isinstance(got, Unavailable):
                    keys += list(got)
        queues = self._read_queues(ifname)
        if not isinstance(queues, Unavailable):
            keys += list(queues)
        keys += [
            Key.irq(q.irq, q.name, ifname)
            for q in self._nic_irqs(ifname)
            if self.root.proc_path(f"irq/{q.irq}/smp_affinity_list").exists()
        ]
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
        et = self._eth(ifname)
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

    def _nic_irqs(self, ifname: str) -> list[Any]:
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
        for q in self._nic_irqs(ifname):
            if q.name == queue:
                return Key.irq(q.irq, q.name, ifname)
        return None


def _direct(fn: Callable[..., T], *args: object) -> T:
    """Run on the calling thread (the host side of a namespace session)."""
    return fn(*args)


def _catalog_keys() -> list[Key]:
    return [Key.sysctl(e.key) for e in catalog.SYSCTLS]


def _group_id(key: Key) -> tuple[object, ...]:
    """Keys read together: every feature of a device, every field of an ethtool struct, the
    MTU and txqueuelen of a link, every queue of a device."""
    if key.kind in ("sysctl", "irq_affinity", "service", "proc_affinity"):
        return (key.kind, key.name, key.queue)
    if key.kind in ("mtu", "txqueuelen"):
        return ("link", key.ifname)
    if key.kind in QUEUE_KINDS:
        return ("queues", key.ifname)
    return (key.kind, key.ifname)


__all__ = [
    "NO_CPUS",
    "EthtoolLike",
    "HostAccess",
    "WriteRefused",
    "refusal",
    "write_file",
]
