"""`tuitune profile list | show NAME | diff NAME [IFACE]`: the shipped profiles, each value
with the report and the context (LAN/WAN) it comes from (docs/autotune.md, Profiles)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tuitune.core.profiles import ShippedProfile
    from tuitune.core.profiles.scale import Scaled


def register(subparsers: _common.Subparsers) -> None:
    p = _common.command(subparsers, "profile", cmd_profile)
    p.add_argument("action", choices=("list", "show", "diff", "apply"), help="what to do")
    p.add_argument("name", nargs="?", help="the profile (show, diff, apply)")
    _common.iface_arg(p, "diff, apply: the interface (default: the default route's)")
    p.add_argument(
        "--netns", type=_common.netns, metavar="NAME", help="diff, apply: in namespace NAME"
    )
    p.add_argument(
        "--dry-run", action="store_true", help="apply: print what would change; change nothing"
    )
    p.add_argument(
        "--host-wide",
        action="store_true",
        help="apply with --netns: also change the profile's host-wide settings (sysctls such as "
        "net.core.*, CPU power, module parameters), one value for the whole machine (skipped "
        "without it, each said)",
    )
    p.add_argument(
        "--rtt",
        type=_rtt,
        metavar="MS",
        help="diff, apply: a WAN profile's buffers sized for this round trip and the link's "
        "speed (as `tuitune recommend` shows them)",
    )
    p.add_argument(
        "--as-written",
        action="store_true",
        help="diff, apply: the reports' values as written, not scaled to this host's rings, "
        "queues and link",
    )
    _common.journal_dir_arg(p)

    r = _common.command(subparsers, "recommend", cmd_recommend)
    _common.iface_arg(r, "the interface (default: the default route's)")
    rtt = r.add_mutually_exclusive_group()
    rtt.add_argument("--rtt", type=_rtt, metavar="MS", help="the path's round trip in ms (ping's)")
    rtt.add_argument(
        "--peer",
        type=_common.peer,
        metavar="HOST",
        help="measure the round trip to HOST (5 pings, their average), from --netns if given",
    )
    r.add_argument(
        "--goal", choices=("throughput", "latency"), default="throughput", help="what to tune for"
    )
    _common.host_args(r)


def _rtt(text: str) -> float:
    from tuitune.core.profiles.recommend import parse_rtt

    try:
        return parse_rtt(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_recommend(args: argparse.Namespace) -> int:
    """which shipped profile fits this host, why, and its buffers scaled to it

    From the link speed, the NUMA layout, the CPUs, the goal and (--rtt) the path's round
    trip: the profile whose report measured a host like this one (LAN or WAN), why, and for a
    WAN path the socket buffers sized from link speed x RTT (LOFAR's bandwidth-delay sizing).
    Works on a recorded tree too (--root DIR). Changes nothing: `tuitune profile diff` and
    `apply` come next.
    """
    from tuitune.core.host.netdev import default_route_interface, interface_exists, list_interfaces
    from tuitune.core.host.netns import NetnsError
    from tuitune.core.names import ifname_problem
    from tuitune.core.profiles.placement import irq_placement
    from tuitune.core.profiles.platform import governors, platform_settings
    from tuitune.core.profiles.recommend import host_facts, nic_limits, recommend
    from tuitune.core.text import printable
    from tuitune.core.watch.hostreader import HostReader

    root = _common.host_root(args)
    if root is None:
        return EXIT_USAGE
    try:
        reader = HostReader(root)  # inside --netns: its /sys is the namespace's
    except NetnsError as exc:
        err(str(exc))
        return EXIT_USAGE
    with reader:
        ifname = args.iface or reader.call(default_route_interface, root)
        if ifname is None:
            err("no default route: name the interface (tuitune recommend IFACE)")
            return EXIT_USAGE
        problem = ifname_problem(ifname)
        if problem is not None:
            err(problem)
            return EXIT_USAGE
        if not reader.call(interface_exists, root, ifname):
            names = reader.call(list_interfaces, root)
            known = ", ".join(printable(n) for n in names) or "none"
            err(f"no interface {printable(ifname)}; interfaces here: {known}")
            return EXIT_USAGE
        facts = reader.call(host_facts, root, ifname)
        limits = nic_limits(reader, ifname)
        snap = reader.snapshot(ifname)  # its queue IRQs and irqbalance: the placement
        govs = reader.call(governors, root)  # the CPU governor (profiles/platform.py)
    rtt = args.rtt
    if args.peer is not None:
        if not root.live:
            err("--peer measures from this machine: not with --root (give --rtt MS)")
            return EXIT_USAGE
        rtt = _measured_rtt(args.peer, args.netns)
        if rtt is None:
            return EXIT_FAILED
    rec = recommend(facts, rtt, args.goal, limits)
    prof = rec.profile
    print(f"{prof.name}: {prof.title} ({prof.goal}, {prof.context})")
    for line in rec.why:
        print(f"  why: {line}")
    # Each queue IRQ with its old affinity and its NIC-local core, as `profile diff` says them.
    _, irq_lines, irq_kept = irq_placement(prof, facts, snap.nic, snap.host)
    _, cpu_lines, cpu_kept = platform_settings(prof, govs, snap.host, root.netns)
    scaled = [*rec.scaled, *cpu_lines, *irq_lines]
    _say_scaling(scaled, [*rec.kept, *cpu_kept, *irq_kept], ifname)
    flag = f" --netns {args.netns}" if args.netns else ""
    rtt_flag = f" --rtt {rtt:g}" if rtt is not None and prof.context == "WAN" else ""
    if root.live:
        print(f"next: tuitune profile diff {prof.name} {ifname}{flag}{rtt_flag}")
    return EXIT_OK


def _measured_rtt(host: str, netns: str | None) -> float | None:
    """The round trip to `host` by ping (ICMP echo, as LOFAR measured its path and as the
    advisor's --peer does: no listening port is needed and no accept queue is timed), said
    as measured; None after one line saying why it could not be."""
    from tuitune.core.advise.peer import BadPeer, probe_peer

    try:
        probe = probe_peer(host, netns, None)
    except BadPeer as exc:
        err(str(exc))
        return None
    if probe.rtt_ms is None:
        err(f"{probe.evidence()}: give the round trip with --rtt MS")
        return None
    print(f"measured: {probe.evidence()}")
    return probe.rtt_ms


def _say_scaling(scaled: Sequence[Scaled], kept: Sequence[str], ifname: str) -> None:
    """What the host changes in the profile, and what it leaves as the report has it."""
    if scaled:
        print(f"  scaled to {ifname} (in place of the report's values):")
    for s in scaled:
        was = f"{s.was} -> " if s.was is not None else "+ "
        print(f"    {s.setting}: {was}{s.value}")
        print(f"      because {s.why}")
    for line in kept:
        print(f"  as the report: {line}")


def cmd_profile(args: argparse.Namespace) -> int:
    """the shipped profiles built from the reports: list them, show one, diff one with a host

    Each value is a catalog entry's own advice: the report it comes from and whether it was
    LAN or WAN advice. `diff NAME IFACE` reads the host and prints what would change.
    `apply NAME IFACE` applies it through the change journal as `tuitune apply` does (every
    value checked first, one step, `tuitune restore` puts it back); on this machine's own
    link, what can cut it (MTU, rings, the SSH session's interface) goes on trial: kept only
    when you confirm within 30 s.
    """
    from tuitune.core.profiles import find, shipped

    if args.action == "list":
        for p in shipped():
            print(f"{p.name:14} {p.goal:10} {p.context}  {p.title}")
        return EXIT_OK
    if not args.name:
        err(f"name a profile: {', '.join(p.name for p in shipped())}")
        return EXIT_USAGE
    prof = find(args.name)
    if prof is None:
        err(f"no profile {args.name[:40]!r}; profiles: {', '.join(p.name for p in shipped())}")
        return EXIT_USAGE
    if args.action == "show":
        print(f"{prof.name}: {prof.title} ({prof.goal}, {prof.context})")
        for pick in prof.picks:
            a = pick.advice
            print(f"  {pick.setting} = {pick.value}   [{a.source}, {a.context}]")
            print(f"      {a.finding}")
        return EXIT_OK
    if args.action == "apply":
        return _apply(args, prof)
    return _diff(args, prof)


def _apply(args: argparse.Namespace, prof: ShippedProfile) -> int:
    from tuitune.cli.profile_trial import make_trial
    from tuitune.cli.session import apply_loaded
    from tuitune.core.host.root import HostRoot

    if args.iface is None:
        err(f"name the interface: tuitune profile apply {prof.name} IFACE")
        return EXIT_USAGE
    root = HostRoot(netns=args.netns)
    args.root, args.other_users = None, False  # apply_loaded's options `profile` has not
    got = _scaled(args, prof)
    if got is None:
        return EXIT_USAGE
    prof = got
    label = f"profile {prof.name}"
    # A shipped profile names knobs some drivers lack: those are skipped, one line each.
    trial = make_trial(root)
    return apply_loaded(args, root, prof.to_profile(), args.iface, label, trial, True)


def _scaled(args: argparse.Namespace, prof: ShippedProfile) -> ShippedProfile | None:
    """The profile scaled to this host (rings, queue count, NIC-local CPUs, and with --rtt a
    WAN profile's buffers), each scaled value said with why before anything is compared or
    applied; the report's values with --as-written. None (said) when the host cannot be read."""
    from tuitune.core.profiles.placement import with_placement
    from tuitune.core.profiles.platform import governors, with_platform
    from tuitune.core.profiles.recommend import host_facts, nic_limits
    from tuitune.core.profiles.scale import scale_to_host

    if args.as_written:
        print(f"{prof.name}: the reports' values as written (--as-written), not scaled")
        return prof
    opened = _common.reader_on(args.netns, args.iface, "the profile is scaled for")
    if opened is None:
        return None
    reader, ifname = opened
    with reader:
        facts = reader.call(host_facts, reader.root, ifname)
        limits = nic_limits(reader, ifname)
        snap = reader.snapshot(ifname)
        govs = reader.call(governors, reader.root)
    got = scale_to_host(prof, facts, limits, args.rtt)
    placed, irq_lines, irq_kept = with_placement(got.profile, facts, snap.nic, snap.host)
    placed, cpu_lines, cpu_kept = with_platform(placed, govs, snap.host, args.netns)
    scaled = [*got.scaled, *cpu_lines, *irq_lines]
    if not scaled:
        print(f"{prof.name} on {ifname}: nothing to scale, the reports' values")
    _say_scaling(scaled, [*got.kept, *cpu_kept, *irq_kept], ifname)
    return placed


def _diff(args: argparse.Namespace, prof: ShippedProfile) -> int:
    from tuitune.core.profiles.platform import extra_parts
    from tuitune.core.session import Session
    from tuitune.core.session.profile import resolve
    from tuitune.core.session.profile_model import Profile, Request
    from tuitune.core.values import Unavailable

    written = {p.setting: p.value for p in prof.picks}
    got = _scaled(args, prof)
    if got is None:
        return EXIT_USAGE
    prof = got
    opened = _common.reader_on(args.netns, args.iface, "the profile is compared with")
    if opened is None:
        return EXIT_USAGE
    reader, ifname = opened
    changes = problems = 0
    with reader, Session(reader.root, call=reader.call, handles=reader.handles) as session:
        access = session.access()
        whole = prof.to_profile()
        each: list[tuple[str, str, tuple[Request, ...]]] = []
        for pick, request in zip(prof.picks, whole.requests, strict=False):
            scaled = ", scaled to this host" if written.get(pick.setting) != pick.value else ""
            each.append((pick.setting, f"[{pick.advice.source}, {pick.advice.context}{scaled}]",
                         (request,)))  # fmt: skip
        # The host's additions: the CPU governor (profiles/platform.py) and the IRQ placement
        # onto the NIC-local cores (profiles/placement.py).
        for part, cite, reqs in extra_parts(prof):
            each.append((part, f"[{cite}, scaled to this host]", reqs))
        for setting, cite, reqs in each:
            one = Profile(None, reqs, whole.source)
            pairs, errors = resolve(access, one, ifname)
            for line in errors:
                problems += 1
                print(f"  {setting}: cannot here: {line} {cite}")
            now = access.read_many([k for k, _ in pairs])
            for key, text in pairs:
                have = now[key]
                if isinstance(have, Unavailable):
                    problems += 1
                    print(f"  {key.label}: cannot here: {have.reason} {cite}")
                elif have == text:
                    print(f"  {key.label}: {text} (as the profile) {cite}")
                else:
                    changes += 1
                    print(f"* {key.label}: {have} -> {text} {cite}")
    print(f"{prof.name} on {ifname}: {changes} change(s), {problems} not possible here")
    return EXIT_FAILED if problems else EXIT_OK
