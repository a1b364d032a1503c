"""Test support for the session tests: a writable in-memory NIC and recorded host trees.

`FakeDevice` stands for what this machine lacks (rings, coalescing, pause on a real NIC) with
the same methods `HostAccess` uses on `Ethtool`; every setter call is logged, so a test can
assert that no write reached the "device". TUI tests may import it to edit a fixture host.
"""

from __future__ import annotations

import ctypes
import errno
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tests.support.hosttree import TreeSpec, build_tree
from tuitune.core.host.ethtool import (
    Channels,
    Coalesce,
    EthtoolWriteError,
    Feature,
    FeatureChange,
    Pause,
    Rings,
)
from tuitune.core.host.ethtool_device import IoctlRead, IoctlWrite
from tuitune.core.session.kinds import fec as fec_kind
from tuitune.core.session.kinds.fec import Fec
from tuitune.core.values import Unavailable

TSO = "tx-tcp-segmentation"
NO_PRIV_FLAGS = Unavailable("unsupported", "private flags: none on fake")
NO_FEC = Unavailable("unsupported", "FEC: not supported by fake")
CSUM = "tx-checksum-ip-generic"


def _features() -> tuple[Feature, ...]:
    names = [
        ("rx-checksum", True),
        (CSUM, True),
        ("tx-checksum-ipv4", False),  # fixed, like on most virtual devices
        ("tx-scatter-gather", True),
        (TSO, True),
        ("tx-generic-segmentation", True),
        ("rx-gro", True),
        ("rx-lro", True),
    ]
    return tuple(
        Feature(name, i, available=ok, requested=ok, active=ok, never_changed=False)
        for i, (name, ok) in enumerate(names)
    )


@dataclass
class FakeDevice:
    """A NIC with every ethtool group. TSO needs tx checksumming, as on Linux 6.x."""

    ifname: str
    rings_: Rings = field(default_factory=lambda: Rings(512, 0, 0, 512, 4096, 0, 0, 4096))
    channels_: Channels = field(default_factory=lambda: Channels(0, 0, 1, 4, 0, 0, 1, 8))
    pause_: Pause = field(default_factory=lambda: Pause(True, True, True))
    coalesce_: dict[str, int] = field(
        default_factory=lambda: {"rx-usecs": 50, "tx-usecs": 50, "adaptive-rx": 1}
    )
    features_: tuple[Feature, ...] = field(default_factory=_features)
    # A device without private flags or FEC by default (like veth); tests give them from the
    # captures (tests/support/fakes/ethtool_driver_text.py).
    priv_flags_: tuple[tuple[str, bool], ...] | Unavailable = NO_PRIV_FLAGS
    fec_: Fec | Unavailable = NO_FEC
    writes: list[tuple[str, object]] = field(default_factory=list)
    refuse: str | None = None  # a group whose setter fails like a driver would (EINVAL)

    def close(self) -> None:
        pass

    # reads
    def features(self) -> tuple[Feature, ...] | Unavailable:
        return self.features_

    def rings(self) -> Rings | Unavailable:
        return self.rings_

    def channels(self) -> Channels | Unavailable:
        return self.channels_

    def pause(self) -> Pause | Unavailable:
        return self.pause_

    def coalesce(self) -> Coalesce | Unavailable:
        return Coalesce(tuple(self.coalesce_.items()), "netlink")

    def priv_flags(self) -> tuple[tuple[str, bool], ...] | Unavailable:
        return self.priv_flags_

    # A kind's own ioctl (kinds/fec.py's FecGet and FecSet): run on this device's answers.
    def ioctl_read(self, op: IoctlRead[Any]) -> Any:
        try:
            return op.run(_Ioctl(self))  # type: ignore[arg-type]
        except _Said as said:
            return said.state

    def ioctl_write(self, op: IoctlWrite) -> None:
        why = op.refused()
        if why is not None:
            raise EthtoolWriteError(op.what, Unavailable("error", f"{op.what}: {why}"))
        op.run(_Ioctl(self))  # type: ignore[arg-type]

    # writes
    def _log(self, group: str, what: object) -> None:
        self.writes.append((group, what))
        if self.refuse == group:
            raise EthtoolWriteError(group, Unavailable("error", f"{group}: fake rejected"))

    def set_features(self, wanted: Mapping[str, bool]) -> FeatureChange:
        self._log("features", dict(wanted))
        before = {f.name: f for f in self.features_}
        req = {
            n: (wanted.get(n, f.requested) if not f.fixed else f.requested)
            for n, f in before.items()
        }
        out = []
        for f in self.features_:
            active = req[f.name] if not f.fixed else f.active
            if f.name == TSO and not req[CSUM]:
                active = False
            out.append(replace(f, requested=req[f.name], active=active))
        self.features_ = tuple(out)
        now = {f.name: f.active for f in out}
        return FeatureChange(
            refused=tuple(n for n, v in wanted.items() if now.get(n) != v),
            changed=tuple((n, now[n]) for n, f in before.items() if now[n] != f.active),
            features=self.features_,
            kernel_wish=False,
        )

    def set_rings(
        self,
        rx: int | None = None,
        tx: int | None = None,
        rx_mini: int | None = None,
        rx_jumbo: int | None = None,
    ) -> None:
        self._log("rings", (rx, tx, rx_mini, rx_jumbo))
        r = self.rings_
        self.rings_ = replace(
            r,
            rx=r.rx if rx is None else rx,
            tx=r.tx if tx is None else tx,
            rx_mini=r.rx_mini if rx_mini is None else rx_mini,
            rx_jumbo=r.rx_jumbo if rx_jumbo is None else rx_jumbo,
        )

    def set_channels(
        self,
        rx: int | None = None,
        tx: int | None = None,
        other: int | None = None,
        combined: int | None = None,
    ) -> None:
        self._log("channels", (rx, tx, other, combined))
        c = self.channels_
        self.channels_ = replace(
            c,
            rx=c.rx if rx is None else rx,
            tx=c.tx if tx is None else tx,
            other=c.other if other is None else other,
            combined=c.combined if combined is None else combined,
        )

    def set_pause(
        self, autoneg: bool | None = None, rx: bool | None = None, tx: bool | None = None
    ) -> None:
        self._log("pause", (autoneg, rx, tx))
        p = self.pause_
        self.pause_ = Pause(
            p.autoneg if autoneg is None else autoneg,
            p.rx if rx is None else rx,
            p.tx if tx is None else tx,
        )

    def set_coalesce(self, values: Mapping[str, int]) -> None:
        self._log("coalesce", dict(values))
        self.coalesce_.update(values)

    def set_priv_flags(self, wanted: Mapping[str, bool]) -> None:
        flags = self.priv_flags_
        assert not isinstance(flags, Unavailable), "the kind writes only what it read"
        self._log("priv_flags", dict(wanted))
        self.priv_flags_ = tuple((n, wanted.get(n, on)) for n, on in flags)

    def set_fec(self, modes: int) -> None:
        """What ETHTOOL_SFECPARAM does to the device (tests set a drifted state with it)."""
        self._log("fec", modes)
        # Like a driver: auto (bit 1) lets the link pick; the fake's link picks RS (bit 3).
        active = 1 << 3 if modes & 2 else modes & -modes
        self.fec_ = Fec(modes, active)


class _Said(Exception):
    def __init__(self, state: Unavailable) -> None:
        self.state = state


@dataclass
class _Ioctl:
    """SIOCETHTOOL on a FakeDevice: the commands the kinds send through the port's
    ioctl_read/ioctl_write, answered from (and written to) the device's fields."""

    dev: FakeDevice

    def call(self, buf: ctypes.Array[ctypes.c_char]) -> int:
        (cmd,) = struct.unpack_from("=I", buf.raw)
        fec = self.dev.fec_
        if cmd == fec_kind.ETHTOOL_GFECPARAM:
            if isinstance(fec, Unavailable):
                raise _Said(fec)
            struct.pack_into("=2I", buf, 4, fec.active, fec.configured)
        elif cmd == fec_kind.ETHTOOL_SFECPARAM:
            self.dev.set_fec(fec_kind.FECPARAM.unpack_from(buf.raw)[2])
        else:
            raise OSError(errno.EOPNOTSUPP, "not a command the fake knows")
        return 0


# IRQ 101 is a queue of eno49 (ixgbe capture); 150 and 151 are made up as "managed" queues.
INTERRUPTS = """\
            CPU0       CPU1       CPU2       CPU3
 101:       1000          0          0          0  IR-PCI-MSI 1-edge      eno49-TxRx-0
 102:          0       2000          0          0  IR-PCI-MSI 2-edge      eno49-TxRx-1
 103:          0          0          0          0  IR-PCI-MSI 3-edge      eno49
 150:          5          0          0          0  IR-PCI-MSI 4-edge      nvme0q1
"""
HOST_SYSCTLS = {
    "net.core.netdev_max_backlog": "1000",
    "net.core.rmem_max": "212992",
    "net.core.wmem_max": "212992",
    "net.ipv4.tcp_mem": "18951\t25269\t37902",
    "net.core.default_qdisc": "pfifo_fast",
    "net.core.somaxconn": "4096",
    "net.ipv4.tcp_rmem": "4096\t131072\t6291456",
    "net.ipv4.tcp_sack": "1",
    "net.ipv4.tcp_congestion_control": "cubic",
    "net.ipv4.tcp_available_congestion_control": "reno cubic",
}


def build_host(dest: Path, *, online: str = "0-2") -> Path:
    """A 4-CPU host (CPU 3 offline by default) with eno49 (2 rx, 2 tx queues) and IRQs."""
    tree = build_tree(
        dest,
        TreeSpec(
            ncpus=4,
            interrupts=INTERRUPTS,
            ifname="eno49",
            rx_queues=2,
            tx_queues=2,
            irq_affinity={"101": "0-3", "102": "1", "103": "0", "150": "0-3"},
            sysctls=HOST_SYSCTLS,
        ),
    )
    (tree / "sys/devices/system/cpu/online").write_text(online + "\n")
    (tree / "sys/devices/system/cpu/present").write_text("0-3\n")
    (tree / "proc/sys/kernel/random").mkdir(parents=True, exist_ok=True)
    (tree / "proc/sys/kernel/random/boot_id").write_text("boot-1\n")
    return tree


def eio_on(*paths: Path) -> Callable[[Path, str], None]:
    """A file writer that refuses `paths` with EIO, as the kernel does for a managed IRQ."""
    from tuitune.core.session.access import write_file

    refused = {p.resolve() for p in paths}

    def writer(path: Path, text: str) -> None:
        if path.resolve() in refused:
            raise OSError(errno.EIO, "Input/output error")
        write_file(path, text)

    return writer
