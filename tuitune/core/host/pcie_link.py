"""The NIC's PCIe link as numbers: current vs maximum speed (GT/s) and width (lanes), from
the interface's sysfs device files or from one function of the platform's PCIe path
(pcie.py). The advisor's `pcie-degraded` rule judges it (core/advise/pcie.py); it reads
nothing itself, as no rule does.
"""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.host.pcie import PciFunction
from tuitune.core.host.root import HostRoot, read_value


@dataclass(frozen=True, slots=True)
class PcieLink:
    speed_gts: float  # current_link_speed, GT/s
    max_speed_gts: float
    width: int  # current_link_width, lanes
    max_width: int


def _gts(text: str) -> float | None:
    # "8.0 GT/s PCIe" (5.x kernels and later), "8 GT/s" (older), "Unknown" (no link)
    word = text.split()[0] if text.split() else ""
    try:
        value = float(word)
    except ValueError:
        return None
    return value if 0 < value < 1000 else None


def _lanes(text: str) -> int | None:
    word = text.strip().lstrip("x")
    return int(word) if word.isascii() and word.isdigit() and 0 < int(word) <= 64 else None


def read_pcie(root: HostRoot, ifname: str) -> PcieLink | None:
    """None when the interface has no PCI device or the files are absent or unreadable."""
    values = []
    for name in ("current_link_speed", "max_link_speed", "current_link_width", "max_link_width"):
        text = read_value(root, root.sys_path(f"class/net/{ifname}/device/{name}"), name)
        if not isinstance(text, str):
            return None
        values.append(text)
    speeds = _gts(values[0]), _gts(values[1])
    widths = _lanes(values[2]), _lanes(values[3])
    if None in speeds or None in widths:
        return None
    return PcieLink(speeds[0], speeds[1], widths[0], widths[1])  # type: ignore[arg-type]


def link_of(fn: PciFunction) -> PcieLink | None:
    """The link of one function of the platform's PCIe path (core/host/pcie.py)."""
    texts = (fn.speed, fn.max_speed, fn.width, fn.max_width)
    if not all(isinstance(x, str) for x in texts):
        return None
    s, ms, w, mw = (str(x) for x in texts)
    speeds, widths = (_gts(s), _gts(ms)), (_lanes(w), _lanes(mw))
    if None in speeds or None in widths:
        return None
    return PcieLink(speeds[0], speeds[1], widths[0], widths[1])  # type: ignore[arg-type]
