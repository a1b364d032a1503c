"""`tuitune advise IFACE`: sample a window, say what holds the host back, and (`--apply ID`)
apply a finding's change as one journaled step that `tuitune restore` (or `u` in the screen)
puts back.

Exit status: 0 no bottleneck found (or the change was applied), 1 at least one bottleneck (or
the change could not be applied), 2 a usage error (unknown interface, namespace, finding id).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err
from tuitune.core.text import printable

if TYPE_CHECKING:
    from tuitune.core.advise import Advice, ContextKind, Finding
    from tuitune.core.advise.facts import Facts
    from tuitune.core.advise.model import Context
    from tuitune.core.advise.window import Window
    from tuitune.core.host.conns import Connection
    from tuitune.core.host.pcie_link import PcieLink
    from tuitune.core.host.platform import Platform
    from tuitune.core.host.qdisc import Qdisc
    from tuitune.core.host.root import HostRoot
    from tuitune.core.host.rss import RssState
    from tuitune.core.procs.model import NicProcess
    from tuitune.core.session.settings import Key
    from tuitune.core.watch.hostreader import HostReader
    from tuitune.core.watch.snapshot import HostState, NicState

MAX_SECONDS = 300


def register(subparsers: _common.Subparsers) -> None:
    p = _common.command(subparsers, "advise", cmd_advise)
    _common.report_args(p)
    _common.count_option(
        p,
        "--seconds",
        high=MAX_SECONDS,
        default=5,
        help="length of the window sampled, one sample a second (default 5)",
    )
    p.add_argument(
        "--context",
        choices=("lan", "wan", "latency", "any"),
        default=None,
        help="the traffic: LAN and WAN advice conflict (default: the one remembered for the "
        "interface by the live screen's c, else inferred from the RTT, else any)",
    )
    p.add_argument(
        "--rate",
        type=_common.bounded_float(0.001, 10000, "Gb/s"),
        metavar="GBITS",
        help="the path's rate in Gb/s, for the bandwidth-delay product",
    )
    p.add_argument(
        "--rtt",
        type=_common.bounded_float(0.001, 10000, "milliseconds"),
        metavar="MS",
        help="round-trip time to the peer in ms (ping), for the bandwidth-delay product",
    )
    p.add_argument(
        "--peer",
        type=_common.peer,
        metavar="HOST",
        help="measure the RTT to HOST (ping; it feeds the bandwidth-delay product when --rtt is "
        "not given) and probe the path with don't-fragment packets of the interface's MTU",
    )
    p.add_argument(
        "--apply",
        metavar="ID",
        nargs="+",
        help="apply these findings' changes as one journaled step (needs root)",
    )
    p.add_argument("--dry-run", action="store_true", help="with --apply: print what would change")
    p.add_argument(
        "--host-wide",
        action="store_true",
        help="with --netns: also change host-wide settings (refused without it)",
    )
    p.add_argument(
        "--other-users",
        action="store_true",
        help="with --apply: also change the affinity of a process that belongs to another "
        "user (refused without it; root only), as `tuitune apply --other-users`",
    )
    _common.host_args(p, journal=True)
    from tuitune.cli.record import recording_args

    recording_args(p, window=True)


def cmd_advise(args: argparse.Namespace) -> int:
    """sample a few seconds and say what holds the interface back, why, and what the reports
    measured (docs/advise.md)

    Sample the host for --seconds, then print each finding: its evidence, the change it
    proposes and the reports behind it (LAN or WAN advice). --apply ID applies that finding's
    change through the change journal as one step.
    """
    from tuitune.core.advise import RULES, Context, advise, infer_context
    from tuitune.core.advise.document import advise_document
    from tuitune.core.watch.hostreader import UnknownInterface

    if args.recording is None and args.root is not None and not (args.apply or args.peer):
        # A capture's few seconds of recording: the rules that need traffic get a window.
        tree = _common.host_tree(args.root)
        if tree is None:
            return EXIT_USAGE
        from tuitune.core.record.replay import captured_recording

        found = captured_recording(tree)  # a capture, or the directory it unpacked to
        if found is not None:
            args.recording = args.root if tree != args.root else found
    if args.recording is not None:
        from tuitune.cli.record import advise_recording

        return advise_recording(args)
    unknown = [i for i in args.apply or () if i not in RULES]
    if unknown:
        err(f"no rule {unknown[0]!r}; rules: {', '.join(RULES)}")
        return EXIT_USAGE
    if args.apply and args.json:
        err("--apply prints what it changed: leave out --json")
        return EXIT_USAGE
    if args.peer and args.root:
        err("--peer measures from this machine: not with --root (give --rtt instead)")
        return EXIT_USAGE
    reader = _common.open_reader(args.root, args.netns, 1.0)
    if reader is None:
        return EXIT_USAGE
    root = reader.root
    with reader:
        try:
            ifname = _common.pick_interface(reader, args.iface)
            if ifname is None:
                err("no interface named and no default route: name one")
                return EXIT_USAGE
            sampled = sample_facts(reader, ifname, args.seconds)
        except UnknownInterface as exc:
            err(str(exc))
            return EXIT_USAGE
    window, nic = sampled.window, sampled.nic
    probe = None
    if args.peer:
        from tuitune.core.advise.peer import BadPeer, probe_peer

        mtu = nic.link.mtu if isinstance(nic.link.mtu, int) else None
        try:
            probe = probe_peer(args.peer, args.netns, mtu)
        except BadPeer as exc:
            err(str(exc))
            return EXIT_FAILED
    rtt = args.rtt if args.rtt is not None else (probe.rtt_ms if probe else None)
    remembered = _remembered(ifname) if args.context is None else "any"
    stated = args.context or remembered
    context = Context(infer_context(stated, rtt), args.rate, rtt, peer=probe)
    # Say where a context the command line did not state came from: the screen's `c` choice
    # was reused quietly, and a user reading "context lan" could not know why.
    origin = ""
    if args.context is None and remembered != "any":
        origin = " (chosen in the screen)"
    elif args.context is None and context.kind != "any":
        origin = " (from the RTT)"
    advice = advise(sampled.facts(context, _held(args, root)))
    if args.apply:
        return _apply(args, root, ifname, advice)
    if args.json:
        doc = advise_document(advice, ifname, context, window.seconds, window.loaded)
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from tuitune.report.advise import print_advice

        if probe is not None:  # the peer's answers: escaped
            print(printable(probe.evidence(), 2000))
            if (df := probe.df_evidence()) is not None:
                print(printable(df, 2000))
        print_advice(advice, ifname, context.kind + origin, window.seconds, window.loaded)
    return EXIT_FAILED if advice.bottlenecks else EXIT_OK


@dataclass(frozen=True, slots=True)
class Sampled:
    """A sampled window of one interface and everything the rules read beside it."""

    window: Window
    host: HostState
    nic: NicState
    pcie: PcieLink | None
    procs: tuple[NicProcess, ...] | None
    platform: Platform | None
    rss: RssState | None
    qdiscs: tuple[Qdisc, ...] | None
    connections: tuple[Connection, ...] | None

    def facts(self, context: Context, held: frozenset[Key] = frozenset()) -> Facts:
        from tuitune.core.advise.facts import Facts

        return Facts(
            self.host,
            self.nic,
            self.window,
            context,
            self.pcie,
            held,
            self.procs,
            platform=self.platform,
            rss=self.rss,
            qdiscs=self.qdiscs,
            connections=self.connections,
        )


def sample_facts(reader: HostReader, ifname: str, seconds: int) -> Sampled:
    """A window of `seconds` one-second samples of `ifname` and what the rules read beside it
    (the host, the NIC, PCIe, the platform, the NIC's processes, its queues' counters, RSS,
    qdiscs and connections). Raises UnknownInterface."""
    from tuitune.cli.live import nic_procs_reading
    from tuitune.core.advise import window_of
    from tuitune.core.host.pcie_link import read_pcie
    from tuitune.core.host.platform import read_platform
    from tuitune.core.procs.discover import window as window_procs
    from tuitune.core.session.kinds.table import PLATFORM_READS
    from tuitune.core.values import Unavailable

    root = reader.root
    before = reader.nic_state(ifname, with_stats=True)
    # Per-queue counters (qstats where the kernel has them, else ethtool -S) at both ends.
    queues_then = reader.queue_stats(ifname) if root.live else None
    procs_then = nic_procs_reading(reader, ifname)
    samples = [reader.counters(ifname)]
    # A recorded tree is read twice: a window is real only if its files moved.
    for _ in range(seconds if root.live else 1):
        if root.live:
            time.sleep(1.0)
        samples.append(reader.counters(ifname))
    host = reader.host_state()
    nic = reader.nic_state(ifname, with_stats=True, interrupts=samples[-1].interrupts)
    pcie = reader.call(read_pcie, root, ifname)
    platform = read_platform(root, ifname, reader.call, PLATFORM_READS)
    queues_now = reader.queue_stats(ifname) if root.live else None
    rss = reader.rss(ifname) if root.live else None
    qdiscs = reader.qdiscs(ifname) if root.live else None
    # A capture holds the connections inet_diag gave when it was taken (core/capture).
    conns = reader.connections(ifname) if root.live or reader.captured(ifname) else None
    procs_now = nic_procs_reading(reader, ifname)

    def stats(value: object) -> tuple[tuple[str, int], ...] | None:
        return None if isinstance(value, Unavailable) else value  # type: ignore[return-value]

    first, last = stats(before.driver_stats), stats(nic.driver_stats)
    if isinstance(queues_then, tuple) and isinstance(queues_now, tuple):
        first, last = queues_then[0], queues_now[0]
    window = window_of(samples, {q.irq for q in nic.irqs}, first, last)
    node = nic.placement.numa_node
    local = host.topology.nodes.get(node) if node is not None else nic.placement.local_cpus
    procs = (
        window_procs(procs_then if root.live else None, procs_now, local_cpus=local)
        if procs_now is not None
        else None
    )
    return Sampled(
        window,
        host,
        nic,
        pcie,
        procs,
        platform,
        rss,
        qdiscs if isinstance(qdiscs, tuple) else None,
        conns if isinstance(conns, tuple) else None,
    )


def _remembered(ifname: str) -> ContextKind:
    """The context the live screen remembers for `ifname` (its `c` key), else "any"."""
    from tuitune.core.advise import CONTEXTS
    from tuitune.core.config import config_path, load_config

    found = dict(load_config(config_path()).contexts).get(ifname, "any")
    return next((c for c in CONTEXTS if c == found), "any")


def _held(args: argparse.Namespace, root: HostRoot) -> frozenset[Key]:
    """The settings an earlier tuitune on this host left recorded (IRQs it placed...)."""
    from tuitune.core.session import JournalError, list_journals
    from tuitune.core.session.journal_file import host_id

    try:
        found = list_journals(args.journal_dir)
    except JournalError:
        return frozenset()  # unreadable here: the rules go without it
    me = host_id(root)
    return frozenset(k for j in found if j.host == me for k in j.originals)


def _apply(args: argparse.Namespace, root: HostRoot, ifname: str, advice: Advice) -> int:
    import os

    from tuitune.cli.session import apply_or_preview, ns_flag, open_session, refusal_hint
    from tuitune.core.session import InvalidValue, WriteRefused

    chosen: list[Finding] = []
    for rid in dict.fromkeys(args.apply):
        found = [f for f in advice.findings if f.id == rid]
        if not found:
            err(f"{rid}: not found on {ifname} now; nothing was changed")
            return EXIT_FAILED
        chosen += found
    no_change = [f.id for f in chosen if not f.change]
    if no_change:
        err(f"{no_change[0]}: proposes no change tuitune can make; nothing was changed")
        return EXIT_FAILED
    trial = [f.id for f in chosen if f.trial]
    if trial:
        err(
            f"{trial[0]}: its change can cut the link: apply it from the live screen, where it "
            "runs on trial; nothing was changed"
        )
        return EXIT_FAILED
    if root.live and os.geteuid() != 0 and not args.dry_run:
        err("not root: changes need root (run it with sudo); nothing was changed")
        return EXIT_FAILED
    changes: dict[object, str] = {}
    pairs = []
    for f in chosen:
        for c in f.change:
            if c.key not in changes:
                changes[c.key] = c.value
                pairs.append((c.key, c.value))
    opened = open_session(args, root)
    if opened is None:
        return EXIT_USAGE
    session, access = opened
    access.procs.agree_all = args.other_users  # the same consent as `apply --other-users`
    with session:
        targets = {}
        errors = []
        for key, text in pairs:
            try:
                targets[key] = access.validate(key, text)
            except InvalidValue as exc:
                errors.append(exc.message)
            except WriteRefused as exc:
                # apply's hints: "--host-wide" only for what its handler calls host-wide
                # (a process's affinity is host-scoped too; --other-users allows it)
                errors.append(exc.state.reason + refusal_hint(root, key, exc.state))
        if errors:
            for line in errors:
                err(line)
            err(f"nothing was changed: {len(errors)} problem(s)")
            return EXIT_FAILED
        current = access.read_many([k for k, _ in pairs])
        todo = [(k, targets[k]) for k, _ in pairs if current[k] != targets[k]]
        if not todo:
            print("nothing to change: every setting already has the finding's value")
            return EXIT_OK
        outcomes = apply_or_preview(session, todo, current, args.dry_run)
    if isinstance(outcomes, int):
        return outcomes
    names = ", ".join(f.id for f in chosen)
    if all(o.ok for o in outcomes):
        print(f"applied {names} as one step; `tuitune restore{ns_flag(root)}` puts it back")
        return EXIT_OK
    print(f"{names} was not applied (see above); anything changed was put back")
    return EXIT_FAILED
