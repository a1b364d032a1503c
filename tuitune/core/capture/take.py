"""`tuitune capture`: trace what the tree readers open, gather it, the interface's ethtool
state and a few seconds of recording, anonymise, write the tar.gz (docs/capture.md)."""

from __future__ import annotations

import ipaddress
import queue
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tuitune import __version__
from tuitune.core import catalog
from tuitune.core.capture.anon import HOSTNAME, Anonymiser
from tuitune.core.capture.build import RECORDING, Tree, anonymise, gather, read_file, write
from tuitune.core.capture.device import (
    DIR,
    DeviceCapture,
    LinkExtra,
    QueueCounters,
    capture_json,
    request_text,
)
from tuitune.core.capture.trace import trace_root, traced_reads
from tuitune.core.host.conns import Connection
from tuitune.core.host.platform import DriverPlatform, read_driver
from tuitune.core.host.pmqos import LatencyRequest, read_request
from tuitune.core.host.qdisc import Qdisc
from tuitune.core.host.root import HostRoot
from tuitune.core.host.rss import RssState
from tuitune.core.host.sysctl import sysctl_path
from tuitune.core.record.recorder import Recorder
from tuitune.core.session.kinds.table import PLATFORM_READS
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.sampler import Sample, Sampler
from tuitune.core.watch.snapshot import HostState, NicState


@dataclass(frozen=True, slots=True)
class Captured:
    path: Path
    bytes: int
    files: int
    samples: int
    replaced: tuple[str, ...]


def device_of(
    nic: NicState,
    driver: DriverPlatform,
    qdiscs: tuple[Qdisc, ...] | Unavailable,
    rss: RssState | None = None,
    pm_qos: LatencyRequest = None,
) -> DeviceCapture:
    link = nic.link
    return DeviceCapture(
        driver=nic.driver,
        features=nic.features,
        rings=nic.rings,
        coalesce=nic.coalesce,
        channels=nic.channels,
        pause=nic.pause,
        stats=nic.driver_stats,
        link=LinkExtra(link.kind, link.perm_address, link.min_mtu, link.max_mtu),
        priv_flags=driver.priv_flags,
        kinds={kind: value.kept for kind, value in driver.kinds.items()},
        optics=driver.optics,
        qdiscs=qdiscs,
        rss=rss,
        pm_qos_request=request_text(pm_qos),
    )


class _Identity:
    """The recording's and the device file's share of anonymising (the tree's is anon.py)."""

    def __init__(self, anon: Anonymiser | None) -> None:
        self.anon = anon

    def host(self, h: HostState) -> HostState:
        return h if self.anon is None else replace(h, hostname=HOSTNAME)

    def mac(self, m: str | None) -> str | None:
        return m if self.anon is None or m is None else self.anon.mac(m.encode()).decode()

    def nic(self, n: NicState) -> NicState:
        link = replace(
            n.link, address=self.mac(n.link.address), perm_address=self.mac(n.link.perm_address)
        )
        return replace(n, link=link)

    def ip(self, text: str) -> str:
        """An address replaced as the tree's /proc/net files replace it (anon.py), so that a
        connection and the socket in /proc/net/tcp keep the same address."""
        if self.anon is None:
            return text
        ip = ipaddress.ip_address(text)
        if isinstance(ip, ipaddress.IPv4Address):
            return str(ipaddress.IPv4Address(self.anon.ipv4(int(ip))))
        return str(ipaddress.IPv6Address(self.anon.ipv6(ip.packed)))

    def connections(
        self, conns: tuple[Connection, ...] | Unavailable
    ) -> tuple[Connection, ...] | Unavailable:
        if isinstance(conns, Unavailable):
            return conns
        return tuple(replace(c, local=self.ip(c.local), remote=self.ip(c.remote)) for c in conns)

    def sample(self, s: Sample) -> Sample:
        return replace(
            s,
            host=None if s.host is None else self.host(s.host),
            nic=None if s.nic is None else self.nic(s.nic),
        )


def _queue_counters(
    reader: HostReader, ifname: str, record: Callable[[], tuple[bytes, int]]
) -> tuple[bytes, int, QueueCounters | None]:
    """`record()` with the per-queue counters read just before and just after it."""
    then, start = reader.queue_stats(ifname), time.monotonic()
    got, samples = record()
    now, seconds = reader.queue_stats(ifname), time.monotonic() - start
    if isinstance(then, Unavailable) or isinstance(now, Unavailable) or not then[0]:
        return got, samples, None
    return got, samples, QueueCounters(then[0], now[0], seconds, now[1])


def _record(
    reader: HostReader, ifname: str, netns: str | None, seconds: float, ident: _Identity
) -> tuple[bytes, int]:
    """`seconds` of the live screen's samples, as a recording's bytes (a private temp file)."""
    interval = 1.0 if seconds >= 2 else max(0.1, seconds / 2)
    work = tempfile.mkdtemp(prefix="tuitune-capture-")
    try:
        path = Path(work) / RECORDING
        recorder = Recorder(
            path,
            iface=ifname,
            netns=netns,
            interval=interval,
            host=ident.host(reader.host_state()),
            started=time.time(),
        )
        got: queue.Queue[Sample] = queue.Queue()
        limit = max(1, round(seconds / interval)) + 1
        sampler = Sampler(reader, ifname, got.put, interval=interval, limit=limit)
        sampler.record_affinity = True  # every IRQ's affinity, as every recording's sampler
        try:
            sampler.start()
            while recorder.samples < limit:
                recorder.sample(ident.sample(got.get(timeout=seconds + 30)))
                sampler.ack()
        finally:
            sampler.stop()
            recorder.close()
        with open(path, "rb") as f:
            return f.read(), recorder.samples
    finally:
        shutil.rmtree(work, ignore_errors=True)


def take(
    path: Path,
    ifname: str,
    netns: str | None,
    *,
    keep_identity: bool = False,
    seconds: float = 3.0,
) -> Captured:
    """Capture `ifname`'s host to a new file `path` (OSError: not written; RecordError: the
    recording failed)."""
    anon = None if keep_identity else Anonymiser()
    ident = _Identity(anon)
    reads = traced_reads(netns, ifname)
    with HostReader(trace_root(netns)) as traced:
        tree: Tree = traced.call(gather, reads)  # on the kernel thread: the netns's /sys
    with HostReader(HostRoot(netns=netns)) as live:
        snap = live.snapshot(ifname)
        driver = read_driver(live.root, ifname, live.call, PLATFORM_READS)
        pm_qos = read_request(live.root.live)  # host-wide: /dev is not in the tree
        qdiscs = live.qdiscs(ifname)
        rss = live.rss(ifname)
        conns = ident.connections(live.connections(ifname))
        samples_bytes, samples, queues = (
            _queue_counters(live, ifname, lambda: _record(live, ifname, netns, seconds, ident))
            if seconds > 0
            else (b"", 0, None)
        )
    if netns is not None:  # host-wide sysctls: the host's (hostreader's _host_wide_sysctls)
        for e in catalog.SYSCTLS:
            rel = "proc/" + sysctl_path(e.key)
            if e.scope == "host" and (data := read_file("/" + rel)) is not None:
                tree.put(rel, data)
    if snap.nic is not None:
        tree.extra[f"{DIR}/{ifname}.json"] = capture_json(
            replace(
                device_of(ident.nic(snap.nic), driver, qdiscs, rss, pm_qos),
                queues=queues,
                connections=conns,
            )
        )
    if samples_bytes:
        tree.extra[RECORDING] = samples_bytes
    if anon is not None:
        anonymise(tree, anon)
    replaced = () if anon is None else tuple(sorted(anon.replaced | {"host name"}))
    about: dict[str, Any] = {
        "tuitune": __version__,
        "captured": time.time(),
        "iface": ifname,
        "netns": netns,
        "kernel": snap.host.kernel,
        "cpus": len(snap.host.topology.online),
        "anonymised": anon is not None,
        "replaced": list(replaced),
        "recording_seconds": seconds if samples_bytes else 0,
    }
    size = write(path, tree, about)
    files = sum(1 for v in tree.files.values() if isinstance(v, bytes))
    return Captured(path, size, files, samples, replaced)
