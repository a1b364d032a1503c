"""The NIC's PCIe link as sysfs gives it (current vs maximum speed and width), for the
`pcie-degraded` rule: the `lspci -vv` LnkSta/LnkCap check Red Hat and mlnx_tune make."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tuitune.core.advise.facts import Facts, Outcome
from tuitune.core.advise.model import Finding, Note, SourceRef
from tuitune.core.host.pcie import PciFunction
from tuitune.core.host.root import HostRoot, read_value
from tuitune.core.values import Unavailable


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


def _from_platform(f: Facts) -> PcieLink | None:
    chain = f.platform.pcie if f.platform is not None else None
    return link_of(chain[0]) if chain and not isinstance(chain, Unavailable) else None


def pcie_degraded(f: Facts) -> Iterator[Outcome]:
    rule = "pcie-degraded"
    link = f.pcie or _from_platform(f)
    if link is None:
        yield Note(rule, "no PCIe link state for this interface (not a PCI device, or not read)")
        return
    if link.speed_gts >= link.max_speed_gts and link.width >= link.max_width:
        return
    yield Finding(
        id=rule,
        severity="bottleneck",
        title=f"{f.ifname}'s PCIe link runs at {link.speed_gts:g} GT/s x{link.width}, below its "
        f"{link.max_speed_gts:g} GT/s x{link.max_width}: a slot, riser or BIOS matter",
        evidence=(
            f"current {link.speed_gts:g} GT/s x{link.width}, maximum {link.max_speed_gts:g} GT/s "
            f"x{link.max_width} (sysfs current_/max_link_speed, _width)",
        ),
        change=(),
        sources=(
            SourceRef(
                "cern-10g",
                "the NIC in a half-speed PCI-X slot did about 470 MB/s for one stream; moved to "
                "the full-speed slot, 750 MB/s",
            ),
            SourceRef("nasa-40g", "its 40 GbE cards sat in PCIe Gen3 slots"),
            SourceRef("redhat-10g", "check with lspci -vv that the PCIe link negotiated right"),
        ),
        context="any",
    )
