"""Which /proc and /sys files `--root` reads: the tree reading code itself, run on this
machine, lists them (`root.TRACE`). A capture then holds exactly what `show`, `advise` and the
live screen read from a tree, and a reader that starts reading a new file is captured with it.
"""

from __future__ import annotations

import os
from pathlib import Path

from tuitune.core.host import root as host_root
from tuitune.core.host.platform import read_platform
from tuitune.core.host.root import HostRoot
from tuitune.core.procs.discover import read_nic_processes
from tuitune.core.watch.hostreader import HostReader


class TraceRoot(HostRoot):
    """This machine read as a tree is (`live` False: files only, no netlink), its /proc/net
    the kernel thread's (a --netns host's), which build.py stores as the tree's proc/net."""

    __slots__ = ()

    def _net_rel(self, rel: str) -> str:
        return f"thread-self/net/{rel}"


def trace_root(netns: str | None) -> TraceRoot:
    return TraceRoot(netns=netns, live=False, jail="/")


def traced_reads(netns: str | None, ifname: str | None) -> list[tuple[Path, bool]]:
    """(path, is a directory) of every open the tree readers made for `ifname`'s host, in
    order, on the host's kernel thread (whose /sys and /proc/net are the namespace's)."""
    seen: list[tuple[Path, bool]] = []
    host_root.TRACE = seen
    try:
        with HostReader(trace_root(netns)) as reader:
            reader.interface_summaries()  # the live screen's picker
            snap = reader.snapshot(ifname)  # show, advise: the whole /proc/interrupts
            if ifname is not None and snap.nic is not None:
                # The live screen's ticks: the NIC's IRQs from their own files.
                reader.counters(ifname, [q.irq for q in snap.nic.irqs])
                reader.call(lambda: read_nic_processes(reader.root, ifname))
            reader.call(lambda: read_platform(reader.root, ifname))
            links: list[tuple[Path, bool]] = reader.call(device_links, ifname) if ifname else []
    finally:
        host_root.TRACE = None
    return seen + links


def device_links(ifname: str) -> list[tuple[Path, bool]]:
    """The links the readers resolve or read rather than open (read_placement, the platform
    view's module and IOMMU group), for the device and, a virtio one, its PCI parent."""
    dev = Path(f"/sys/class/net/{ifname}/device")
    if not dev.exists():
        return []
    real = Path(os.path.realpath(dev))
    out = [(dev / "subsystem", False), (dev / "driver" / "module", False)]
    for d in (real, real.parent):
        out += [(d / "iommu_group", False), (d / "driver" / "module", False)]
    return out
