"""The `pcie-degraded` rule: the NIC's PCIe link (core/host/pcie_link.py) below what it can
do, the `lspci -vv` LnkSta/LnkCap check Red Hat and mlnx_tune make."""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise.facts import Facts, Outcome
from tuitune.core.advise.model import Finding, Note, SourceRef
from tuitune.core.host.pcie_link import PcieLink, link_of
from tuitune.core.values import Unavailable


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
