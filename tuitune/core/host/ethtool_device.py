"""What tuitune asks of one interface's ethtool device: the real `Ethtool`, a capture's
recorded device (core/capture/device.py: it refuses every write), or a fake in tests. One
protocol for both sides: the host reader reads through it, and the session's kind handlers
read and write through it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, TypeVar

from tuitune.core.host.ethtool_ioctl import EthtoolIoctl
from tuitune.core.host.ethtool_types import (
    Channels,
    Coalesce,
    DriverInfo,
    Feature,
    FeatureChange,
    Pause,
    Rings,
)
from tuitune.core.values import Unavailable

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class IoctlRead(Protocol[T_co]):
    """A kind's own SIOCETHTOOL read (its handler's: the command and its struct are the
    kind's), so that a new ethtool command needs no method here. `kind`: where a capture
    keeps its answer (the kind's `KindRead`, host/platform.py); `what`: a refusal's words."""

    @property
    def kind(self) -> str: ...
    @property
    def what(self) -> str: ...
    def run(self, eth: EthtoolIoctl) -> T_co:
        """The read (OSError: the kernel's refusal, made a state by the device)."""
        ...

    def recorded(self, kept: str | Unavailable) -> T_co | Unavailable:
        """The answer a capture kept (as the kind's `KindValue.kept`), or its state."""
        ...


class IoctlWrite(Protocol):
    """A kind's own SIOCETHTOOL write; `refused()`: why it must not reach the kernel (a value
    no driver takes), None when it may."""

    @property
    def what(self) -> str: ...
    def refused(self) -> str | None: ...
    def run(self, eth: EthtoolIoctl) -> None: ...


class EthtoolLike(Protocol):
    """A device: what a HostReader reads (driver_info .. stats), and what the kind handlers
    read and write too (through `KernelPort.ethtool`)."""

    def driver_info(self) -> DriverInfo | Unavailable: ...
    def features(self) -> tuple[Feature, ...] | Unavailable: ...
    def rings(self) -> Rings | Unavailable: ...
    def coalesce(self) -> Coalesce | Unavailable: ...
    def channels(self) -> Channels | Unavailable: ...
    def pause(self) -> Pause | Unavailable: ...
    def stats(self) -> tuple[tuple[str, int], ...] | Unavailable: ...
    def close(self) -> None: ...
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
    def priv_flags(self) -> tuple[tuple[str, bool], ...] | Unavailable: ...
    def set_priv_flags(self, wanted: Mapping[str, bool]) -> None: ...
    def ioctl_read(self, op: IoctlRead[T]) -> T | Unavailable: ...
    def ioctl_write(self, op: IoctlWrite) -> None: ...
