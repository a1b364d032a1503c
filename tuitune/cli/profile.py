"""`tuitune profile list | show NAME | diff NAME [IFACE]`: the shipped profiles, each value
with the report and the context (LAN/WAN) it comes from (docs/autotune.md, Profiles)."""

from __future__ import annotations

import argparse

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err


def register(subparsers: _common.Subparsers) -> None:
    p = _common.command(subparsers, "profile", cmd_profile)
    p.add_argument("action", choices=("list", "show", "diff"), help="what to do")
    p.add_argument("name", nargs="?", help="the profile (show, diff)")
    _common.iface_arg(p, "diff: the interface (default: the default route's)")
    p.add_argument("--netns", type=_common.netns, metavar="NAME", help="diff: in namespace NAME")


def cmd_profile(args: argparse.Namespace) -> int:
    """the shipped profiles built from the reports: list them, show one, diff one with a host

    Each value is a catalog entry's own advice: the report it comes from and whether it was
    LAN or WAN advice. `diff NAME IFACE` reads the host and prints what would change.
    Applying is `tuitune apply` of a profile file, or autotune's job: not done here yet.
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
    return _diff(args, prof)


def _diff(args: argparse.Namespace, prof: object) -> int:
    from tuitune.core.profiles import ShippedProfile
    from tuitune.core.session import Session
    from tuitune.core.session.profile import resolve
    from tuitune.core.session.profile_model import Profile
    from tuitune.core.values import Unavailable

    assert isinstance(prof, ShippedProfile)
    opened = _common.reader_on(args.netns, args.iface, "the profile is compared with")
    if opened is None:
        return EXIT_USAGE
    reader, ifname = opened
    changes = problems = 0
    with reader, Session(reader.root, call=reader.call, handles=reader.handles) as session:
        access = session.access()
        whole = prof.to_profile()
        for pick, request in zip(prof.picks, whole.requests, strict=True):
            cite = f"[{pick.advice.source}, {pick.advice.context}]"
            one = Profile(None, (request,), whole.source)
            pairs, errors = resolve(access, one, ifname)
            for line in errors:
                problems += 1
                print(f"  {pick.setting}: cannot here: {line} {cite}")
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
