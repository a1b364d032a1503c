"""Which IRQs of /proc/interrupts belong to a network interface, and which queue each serves.

Three kinds of evidence, used together by :func:`nic_irqs`:

1. **Device membership** (exact, when the caller has it): the IRQ numbers listed in
   ``/sys/class/net/IF/device/msi_irqs`` (for virtio-net that directory is on the PCI parent,
   ``/sys/class/net/IF/device/../msi_irqs``), and, when ``bus_info`` is given, rows whose chip
   is a per-device MSI domain of that device (``PCI-MSIX-0000:00:03.0``, kernel 6.2+).
   Members are classified by name; a member with an unknown name is ``"misc"``.
2. **Names that carry the interface name** as a whole token (``em1`` never matches ``em10-*``,
   ``eth0`` never matches ``veth0`` or ``eth0.100``)::

       IF-TxRx-N  IF-txrx-N  IF-Tx-Rx-N  IF-rxtx-N  IF-fp-N  IF-qN  IF-N     -> combined N
       IF-rx-N    IF-tx-N                                                    -> rx N / tx N
       IF-tx-M-rx-N (qlcnic: a tx ring sharing the vector of rx ring N)      -> combined N
       DRV-IF-TxRx-N (i40e/ice/iavf: ``i40e-eth0-TxRx-0``, ``ice-lan1-TxRx-2``) -> as above
       IF alone                         -> misc (link/other vector), or combined when the
                                           interface has no other queue vector (single-IRQ
                                           NICs such as e1000e ``enp0s25`` or INTx ``eth0``)
       IF-misc, IF-err, IF-notify, IF-event-N, IF-lsc, IF-other ...          -> misc

       IF:rx-N IF:tx-N IF:slice-N (stmmac, myri10ge)  IF_qpN IF_rxqN (hinic3, hinic)
       IF[N] (old qlcnic)
       IF TXQ N / IF CQ N (bna)  IF (queue N) (old cxgb4)  IF-RxN (cxgb4)  IF-qN-tx (xen)
       a name cut short by the driver's buffer (tg3 ``enp129s0f0-txrx``) -> kind, index None

   Every driver's format, with the kernel file it comes from: docs/irq-names.md.
   Schemes by driver: ixgbe/igb/i40e/ice/bnxt/hns3 ``TxRx``; igb/e1000e/tg3/bnxt split
   ``rx-N``/``tx-N``; ena ``Tx-Rx-N``; bnx2/sfc/mlx4_en ``IF-N``; tg3 ``IF-N``, ``IF-txrx-N``,
   ``IF-tx-0`` + ``IF-rx-1..4`` (the number is the vector, as the driver prints it);
   be2net ``IF-qN``; bnx2x/qede ``IF-fp-N``; nfp/vmxnet3 ``IF-rxtx-N``.
3. **Names that carry the PCI address** (``bus_info`` from ``ethtool -i``)::

       mlx5_compN@pci:BDF  mlx4-comp-N@pci:BDF  mlx4-N@pci:BDF
       gve-ntfy-blkN@pci:BDF  mana_qN@pci:BDF                               -> combined N
       mlx5_async0@pci:BDF  mlx5_pages_eq@pci:BDF  mlx5_cmd_eq@pci:BDF  mlx5_async_eq@pci:BDF
       mlx4-async@pci:BDF  ena-mgmnt@pci:BDF  gve-mgmnt@pci:BDF  (any other X@pci:BDF)  -> misc
       DRV-BDF:misc  DRV-BDF:fdir-TxRx-N  DRV-BDF:ctrl-TxRx-N (i40e/ice side-band)   -> misc
       DRV-BDF-TxRx-N (hns3)                                                -> combined N
       BDF alone                                                            -> misc

   and, with ``virtio_dev`` (``virtio2``, the basename of ``/sys/class/net/IF/device``)::

       virtio2-input.M -> rx M    virtio2-output.M -> tx M    virtio2-virtqueues -> combined
       virtio2-config and any other virtio2-* -> misc

A row may carry several action names (``ehci_hcd:usb1, uhci_hcd:usb8``): each is tried.

Device-pool completion vectors (``mlx4-comp-N@pci``) are counted as ``combined`` queues only
when the interface has no vectors named after itself; old mlx4_en gives each port its own
``eth2-N`` vectors, and then the pool vectors are reported as ``misc`` (index None). Members
of the device whose name is clearly another netdev's queue (``eth3-0`` on the shared PCI
function of a dual-port mlx4) are left out.

hv_netvsc has no IRQ rows at all (it uses VMBus channels); the result is empty.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Final, Literal

from tuitune.core.host.interrupts import Interrupts

__all__ = ["NicIrq", "QueueKind", "classify", "nic_irqs"]

QueueKind = Literal["rx", "tx", "combined", "misc"]

_KIND_ORDER: Final[dict[str, int]] = {"rx": 0, "tx": 1, "combined": 2, "misc": 3}

# Where a match came from; decides the two adjustments made by nic_irqs.
_BARE: Final = 0  # the interface (or virtio device) name alone
_NAMED: Final = 1  # a vector named after the interface (or its virtio device / hns3 BDF)
_POOL: Final = 2  # a device-wide completion vector: mlx4-comp-N@pci, mlx5_compN@pci, ...
_DEVICE: Final = 3  # any other vector of the device (misc)

_Match = tuple[QueueKind, int | None, int]


@dataclass(frozen=True, slots=True)
class NicIrq:
    irq: str
    """IRQ number as in /proc/interrupts."""
    name: str
    """The action name that matched (one part of a shared ``a, b`` name), or the row's whole
    name for a device member whose name says nothing."""
    kind: QueueKind
    index: int | None
    """Queue (or vector) index when the name tells it."""


_N = r"[0-9]{1,9}"  # a queue number; bounded so int() never sees a huge literal

# What follows ``IF-`` (or ``IF:``, ``IF_``, ``IF ``): one alternative per driver scheme in
# docs/irq-names.md. Names come from /proc/interrupts (hostile): everything is bounded.
_SUFFIX_RE: Final = re.compile(
    rf"""
      (?:tx-?rx|rx-?tx|fp|qp|q|queue|combined|slice)[-\ ]?(?P<c>{_N})
    | \(queue\ ?(?P<paren>{_N})\)
    | (?P<dir>rx|tx|rxq|txq|sq|txc|cq)[-\ ]?(?P<d>{_N})
    | tx-?{_N}-rx-?(?P<txrx>{_N})
    | rx-?(?P<rxtx>{_N})-tx-?{_N}
    | q(?P<xq>{_N})-(?P<xdir>rx|tx)
    | g(?P<g>{_N})_(?P<gdir>rx|tx)
    | ch{_N}:(?P<rdir>rx|tx)_(?P<rq>be|nc)
    | l{_N}-(?P<ldir>rx|tx|txrx)(?P<l>{_N})
    | (?P<n>{_N})
    | (?P<trunc>tx-?rx|rx-?tx|rx|tx)-?
    | rx-txc
    | (?:misc|other|lsc|link|err|error|notify|event|mgmt|mgmnt|mbx|mailbox|async|ctrl|admin
         |aenq|cmd|exn|ptp|xdp|fweventq|ofld|rdma|traceq|unused|qerr|rbdr|qset-err|mac|wol
         |lpi|safety-ce|safety-ue|l{_N}-(?:adminq|admin|notifyq|notif)|epf_[a-z0-9_]{{1,32}}
         |g{_N}_er|ch{_N}:(?:multi|emac)|err_a|mgmt_a)
      (?:-?{_N})?
    """,
    re.IGNORECASE | re.VERBOSE | re.ASCII,
)
# Direction words of the (?P<dir>) alternative: sq is a ThunderX send queue, txc an X-Gene
# tx-completion ring, cq a Brocade bna rx completion queue.
_DIR_KIND: Final[dict[str, QueueKind]] = {
    "rx": "rx",
    "rxq": "rx",
    "cq": "rx",
    "tx": "tx",
    "txq": "tx",
    "sq": "tx",
    "txc": "tx",
}
_LDIR_KIND: Final[dict[str, QueueKind]] = {"rx": "rx", "tx": "tx", "txrx": "combined"}
# What may follow the interface name in a queue vector's name: ``eth0-TxRx-0``,
# ``eth0:rx-0`` (stmmac, myri10ge), ``eth0_qp3`` (hinic3), ``eth0_rxq3`` (hinic),
# ``eth0 TXQ 0`` / ``eth0 (queue 3)`` (bna, old cxgb4), ``eth0[2]`` (qlcnic/netxen before 3.x).
_SEPARATORS: Final = frozenset("-:_ [")
_BRACKET_RE: Final = re.compile(rf"\[(?P<b>{_N})\]", re.ASCII)
# Kernel IRQ names are short (the drivers' buffers are 16..64 bytes); anything longer is not
# a NIC vector name, and refusing it keeps the work per name bounded.
_MAX_NAME: Final = 128


_POOL_LABEL_RE: Final = re.compile(
    r"(?:mlx5_comp|mlx4-comp-|mlx4-|gve-ntfy-blk|mana_q)([0-9]{1,9})", re.ASCII
)
# Vectors of a device named after neither the interface nor the PCI address; recognised only
# for rows known to belong to the device (msi_irqs or a per-device MSI chip).
_DEVICE_LABEL_RE: Final = re.compile(
    rf"""
      liquidio{_N}-[pv]f{_N}-rxtx-(?P<lio>{_N})
    | liquidio{_N}-[pv]f{_N}-aux
    | idpf-mailbox-{_N}
    """,
    re.IGNORECASE | re.VERBOSE | re.ASCII,
)
_VIRTIO_DEV_RE: Final = re.compile(r"(virtio[0-9]{1,9})-", re.ASCII)
_PCI_AT: Final = "@pci:"


def _classify_suffix(suffix: str) -> tuple[QueueKind, int | None] | None:
    """What follows ``IF-``: ``TxRx-3`` -> (combined, 3), ``rx-1`` -> (rx, 1), ``misc``..."""
    m = _SUFFIX_RE.fullmatch(suffix)
    if m is None:
        return None
    for group in ("c", "paren", "txrx", "rxtx", "n"):
        if m[group] is not None:
            return "combined", int(m[group])
    if m["dir"] is not None:
        return _DIR_KIND[m["dir"].lower()], int(m["d"])
    if m["xdir"] is not None:  # xen-netfront split event channels: eth0-q1-tx
        return ("rx" if m["xdir"].lower() == "rx" else "tx"), int(m["xq"])
    if m["gdir"] is not None:  # gianfar interrupt group: eth0_g0_rx
        return ("rx" if m["gdir"].lower() == "rx" else "tx"), int(m["g"])
    if m["rdir"] is not None:  # ravb: best-effort queue 0, network-control queue 1
        return ("rx" if m["rdir"].lower() == "rx" else "tx"), int(m["rq"].lower() == "nc")
    if m["ldir"] is not None:  # ionic: ionic-eth0-L0-rx3
        return _LDIR_KIND[m["ldir"].lower()], int(m["l"])
    if m["trunc"] is not None:  # a name cut by the driver's buffer: tg3 "enp129s0f0-txrx"
        t = m["trunc"].lower().replace("-", "")
        return ("rx" if t == "rx" else "tx" if t == "tx" else "combined"), None
    if suffix.lower() == "rx-txc":  # X-Gene rx ring that also completes tx
        return "combined", None
    return "misc", None


def _classify_rest(rest: str) -> tuple[QueueKind, int | None] | None:
    """``rest`` is what follows the interface name, starting with its separator."""
    sep = rest[:1]
    if sep not in _SEPARATORS:
        return None  # "eth01", "eth0.100": another interface
    if sep == "[":
        m = _BRACKET_RE.fullmatch(rest)
        return ("combined", int(m["b"])) if m is not None else None
    return _classify_suffix(rest[1:])


def _classify_pool_label(label: str) -> _Match:
    """The part before ``@pci:BDF``."""
    m = _POOL_LABEL_RE.fullmatch(label)
    if m is not None:
        return "combined", int(m[1]), _POOL
    return "misc", None, _DEVICE


def _by_ifname(part: str, ifname: str) -> _Match | None:
    if part == ifname:
        return "misc", None, _BARE
    n = len(ifname)
    if part.startswith(ifname):
        r = _classify_rest(part[n:])
        if r is not None:
            return r[0], r[1], _NAMED
    # Driver prefix: "i40e-eth0-TxRx-0", "ice-lan1-TxRx-2", "idpf-eth0-Rx-3", "ionic-eth0-L0-rx0".
    driver, dash, remainder = part.partition("-")
    if dash and driver and remainder.startswith(ifname) and remainder[n : n + 1] == "-":
        r = _classify_suffix(remainder[n + 1 :])
        if r is not None:
            return r[0], r[1], _NAMED
    return None


def _by_bus_info(part: str, bus_info: str) -> _Match | None:
    at = _PCI_AT + bus_info
    if part.endswith(at):
        return _classify_pool_label(part[: -len(at)])
    if part == bus_info:
        return "misc", None, _DEVICE
    n = len(bus_info)
    i = part.find(bus_info)
    while i >= 0:
        before = part[i - 1 : i]
        after = part[i + n : i + n + 1]
        if before in ("", "-", ":", "@") and after in ("", "-", ":"):
            if after == "-":  # hns3: "hns3-0000:7d:00.0-TxRx-0"
                r = _classify_suffix(part[i + n + 1 :])
                if r is not None:
                    return r[0], r[1], _NAMED
            # i40e/ice: "i40e-0000:01:00.0:misc", ":fdir-TxRx-0", ":ctrl-TxRx-0"
            return "misc", None, _DEVICE
        i = part.find(bus_info, i + 1)
    return None


def _by_virtio(part: str, virtio_dev: str) -> _Match | None:
    if part == virtio_dev:
        return "misc", None, _BARE  # INTx: one vector named after the device
    prefix = virtio_dev + "-"
    if not part.startswith(prefix):
        return None
    vq = part[len(prefix) :]
    queue, dot, num = vq.partition(".")
    if dot and num.isascii() and num.isdigit() and len(num) <= 9:
        if queue == "input":
            return "rx", int(num), _NAMED
        if queue == "output":
            return "tx", int(num), _NAMED
    if vq == "virtqueues":  # one vector shared by all queues
        return "combined", None, _NAMED
    return "misc", None, _DEVICE  # config, control, ...


def _classify_part(
    part: str, ifname: str, bus_info: str | None, virtio_dev: str | None
) -> _Match | None:
    if ifname:
        r = _by_ifname(part, ifname)
        if r is not None:
            return r
    if bus_info:
        r = _by_bus_info(part, bus_info)
        if r is not None:
            return r
    if virtio_dev:
        return _by_virtio(part, virtio_dev)
    return None


def _name_parts(name: str) -> list[str]:
    """``'ehci_hcd:usb1, uhci_hcd:usb8'`` -> both; kernel joins shared actions with ', '."""
    return [p for p in (q.strip() for q in name.split(", ")) if p and len(p) <= _MAX_NAME]


def classify(
    name: str,
    ifname: str,
    *,
    bus_info: str | None = None,
    virtio_dev: str | None = None,
) -> tuple[QueueKind, int | None] | None:
    """Queue kind and index of an IRQ action name for interface ``ifname``; None if unrelated.

    ``bus_info`` (``0000:01:00.0``) and ``virtio_dev`` (``virtio2``) enable the schemes that do
    not carry the interface name. A bare ``ifname`` is ``("misc", None)`` here;
    :func:`nic_irqs` turns it into ``combined`` when it is the interface's only vector.
    For a shared name (``a, b``) the first part that matches decides.
    """
    for part in _name_parts(name):
        r = _classify_part(part, ifname, bus_info, virtio_dev)
        if r is not None:
            return r[0], r[1]
    return None


def _other_netdev_queue(part: str) -> bool:
    """``eth3-0``, ``eth3-TxRx-1``: a queue vector of some netdev (not ours: already tried)."""
    i = part.find("-")
    while i > 0:
        r = _classify_suffix(part[i + 1 :])
        if r is not None and r[0] != "misc":
            return True
        i = part.find("-", i + 1)
    return False


def _classify_member(
    name: str, ifname: str, bus_info: str | None, virtio_dev: str | None
) -> tuple[str, _Match] | None:
    """A row known to belong to the device whose name matched nothing above."""
    parts = _name_parts(name)
    for part in parts:
        if virtio_dev is None:
            m = _VIRTIO_DEV_RE.match(part)
            if m is not None:
                r = _by_virtio(part, m[1])
                if r is not None:
                    return part, r
        label, at, _ = part.partition(_PCI_AT)
        if at:
            return part, _classify_pool_label(label)
        m = _DEVICE_LABEL_RE.fullmatch(part)
        if m is not None:
            if m["lio"] is not None:
                return part, ("combined", int(m["lio"]), _POOL)
            return part, ("misc", None, _DEVICE)
    if any(_other_netdev_queue(p) for p in parts):
        return None
    return name, ("misc", None, _DEVICE)


def _sort_key(q: NicIrq) -> tuple[int, bool, int, bool, int, str]:
    numeric = q.irq.isascii() and q.irq.isdigit() and len(q.irq) < 19
    return (
        _KIND_ORDER[q.kind],
        q.index is None,
        q.index if q.index is not None else 0,
        not numeric,
        int(q.irq) if numeric else 0,
        q.irq,
    )


def nic_irqs(
    interrupts: Interrupts,
    ifname: str,
    *,
    msi_irqs: Collection[str] | None = None,
    bus_info: str | None = None,
    virtio_dev: str | None = None,
) -> tuple[NicIrq, ...]:
    """The IRQs of interface ``ifname``, ordered by kind (rx, tx, combined, misc), index, IRQ.

    ``msi_irqs``: the IRQ numbers in ``/sys/class/net/IF/device/msi_irqs`` (every one of them
    belongs to the device). ``bus_info``: the PCI address (``ethtool -i`` bus-info, or the
    basename of the device's PCI directory). ``virtio_dev``: ``virtio2`` for virtio-net.
    Each is optional; name matching on ``ifname`` is always done.
    """
    members = frozenset(msi_irqs) if msi_irqs is not None else frozenset[str]()
    chip_suffix = "-" + bus_info if bus_info else None
    found: list[tuple[NicIrq, int]] = []
    for row in interrupts.rows:
        if not row.numeric:
            continue
        match: tuple[str, _Match] | None = None
        for part in _name_parts(row.name):
            r = _classify_part(part, ifname, bus_info, virtio_dev)
            if r is not None:
                match = part, r
                break
        if match is None and (
            row.irq in members or (chip_suffix is not None and row.chip.endswith(chip_suffix))
        ):
            match = _classify_member(row.name, ifname, bus_info, virtio_dev)
        if match is not None:
            part, (kind, index, origin) = match
            found.append((NicIrq(row.irq, part, kind, index), origin))

    own_queues = any(q.kind != "misc" and o in (_NAMED, _BARE) for q, o in found)
    any_queue = any(q.kind != "misc" for q, _ in found)
    result: list[NicIrq] = []
    for q, origin in found:
        if origin == _POOL and own_queues:
            q = NicIrq(q.irq, q.name, "misc", None)
        elif origin == _BARE and not any_queue:
            q = NicIrq(q.irq, q.name, "combined", None)
        result.append(q)
    result.sort(key=_sort_key)
    return tuple(result)
