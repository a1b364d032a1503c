"""Rules about the connections themselves (inet_diag) and how the host sends (the qdisc)."""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise.facts import Facts, Outcome
from tuitune.core.advise.model import Change, Finding, Note, SourceRef
from tuitune.core.host.qdisc_spec import LEAVES, parse_spec
from tuitune.core.session.settings import Key

_LOFAR_WSCALE = SourceRef(
    "lofar-wan",
    "its checklist reads the SYNs (tcpdump) for the wscale each end offered: the window can "
    "only grow to 64 KiB x 2^wscale, so 4.7 MB buffers need a wscale of at least 9",
)
_KERNEL_FQ = SourceRef(
    "kernel-doc",
    "tc-fq(8) and Documentation/networking/ip-sysctl.rst (tcp_pacing_ss_ratio): fq paces each "
    "flow at the rate TCP computes, spreading a window's segments instead of bursting them; "
    "ESnet's fasterdata host-tuning page (linked from the ESnet report, not the report "
    "itself) recommends fq for 100G WAN senders (not from the seeds)",
)


def connection_no_wscale(f: Facts) -> Iterator[Outcome]:
    rule = "connection-no-wscale"
    if f.connections is None:
        # The live screen reads them only while the view is open or a benchmark runs.
        yield Note(rule, "connections not read (inet_diag; live: C open, or during a benchmark)")
        return
    off = [c for c in f.connections if c.wscale_off]
    if not off:
        return
    shown = ", ".join(f"{c.local}:{c.lport} -> {c.remote}:{c.rport}" for c in off[:4])
    yield Finding(
        id=rule,
        severity="bottleneck" if f.context.kind == "wan" else "risk",
        title=(
            f"{len(off)} connection(s) on {f.ifname} without window scaling: "
            "their window cannot exceed 64 KiB"
        ),
        evidence=(
            f"{shown}{' ...' if len(off) > 4 else ''} (inet_diag tcp_info: no wscale option)",
            "both ends must offer it in the SYN: net.ipv4.tcp_window_scaling on each host, "
            "and nothing on the path that strips the option",
        ),
        change=(),
        sources=(_LOFAR_WSCALE,),
        context="wan",
    )


def no_pacing_wan(f: Facts) -> Iterator[Outcome]:
    rule = "no-pacing-wan"
    tree = _qdisc_kinds(f)
    if f.connections is None or tree is None:
        yield Note(rule, "connections or the qdisc not read")
        return
    if f.context.kind != "wan":
        if f.context.kind == "any":
            yield Note(rule, "pacing is judged on a WAN path: --context wan (or --rtt)")
        return
    if "fq" in tree:
        return
    retrans = [c for c in f.connections if c.retrans]
    if not retrans:
        return
    total = sum(c.retrans or 0 for c in retrans)
    kinds = tree or ["noqueue"]
    yield Finding(
        id=rule,
        severity="risk",
        title=(
            f"{f.ifname} sends without fq pacing on a WAN path, and {len(retrans)} "
            "connection(s) retransmit"
        ),
        evidence=(
            f"qdisc: {', '.join(kinds)} (tc qdisc show)",
            f"{total} segments retransmitted on {len(retrans)} connection(s) (inet_diag)",
            f"fq under mq: tc qdisc replace dev {f.ifname} root mq, then fq on each child "
            "(or net.core.default_qdisc=fq before the device comes up)",
        ),
        # The root qdisc as one journaled step (kinds/qdisc.py): fq on each tx queue under
        # mq where the kernel's tree already has mq (a multi-queue device), else fq alone.
        change=_fq_change(f, "mq" in kinds),
        sources=(_KERNEL_FQ,),
        context="wan",
    )


# Link kinds the kernel gives no queue (IFF_NO_QUEUE: their default root is noqueue).
_NO_QUEUE = frozenset({"veth", "vlan", "macvlan", "ipvlan", "bridge", "bond", "dummy", "vxlan"})


def _qdisc_kinds(f: Facts) -> list[str] | None:
    """The kinds in the interface's qdisc tree: the tree read (`advise`, `show`), else what
    the NIC state's root qdisc value says (the live screen reads that each time the NIC state
    is read, not the tree): "mq fq ..." is mq and fq; "default" is the kernel's own root,
    net.core.default_qdisc (under mq on a multi-queue device); a tree tuitune cannot name
    ("other: ...") or no value is not read (None)."""
    if f.qdiscs is not None:
        return sorted({q.kind for q in f.qdiscs})
    value = f.nic.qdisc if f.nic is not None else None
    if not isinstance(value, str) or value.startswith("other"):
        return None
    words = value.split()
    if words[:1] == ["default"]:
        if f.nic is not None and f.nic.link.kind in _NO_QUEUE:
            return ["noqueue"]
        leaf = f.sysctl("net.core.default_qdisc")
        if leaf is None:
            return None
        tx = sum(1 for q in f.nic.queues if q.name.startswith("tx-")) if f.nic else 0
        return sorted({"mq", leaf.strip()} if tx > 1 else {leaf.strip()})
    # "mq LEAF ..." or "KIND ...": the kind words the journal's value starts with
    return sorted({w for w in words[:2] if w in LEAVES or w == "mq"})


def _fq_change(f: Facts, multiqueue: bool) -> tuple[Change, ...]:
    """fq (under mq on a multi-queue device) in its canonical form, filled with the kernel's
    defaults for the interface's MTU (qdisc_spec.py), as the journal will read it back."""
    if f.nic is None:
        return ()
    link = f.nic.link
    value = parse_spec("mq fq" if multiqueue else "fq", link.mtu or 1500, 0, multiqueue)
    return (Change(Key.qdisc(f.ifname), value),)
