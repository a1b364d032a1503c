"""Where autotune's candidates come from besides the advisor: a shipped profile scaled to this
host (`--profile`, and `T` in the live screen with the recommended one), and a sweep spec's
values one at a time (`--spec`); and the report kept beside the notebook. Shared by the CLI
and the live screen so both try the same things (docs/autotune.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tuitune.core.autotune.search import Candidate
from tuitune.core.profiles import ShippedProfile
from tuitune.core.session import Key, Session
from tuitune.core.sweep.spec import SweepSpec


def host_wide(key: Key) -> bool:
    """A sysctl that is one value for the whole machine (catalog scope `host`), or one the
    catalog does not know: never mirrored to the far end (the same value for both); any other
    setting its handler calls host-wide (CPU power, SMT, a module parameter)."""
    from tuitune.core.catalog import entry
    from tuitune.core.session.kinds.table import handler

    if key.kind != "sysctl":
        return handler(key.kind).host_wide(key) is not None
    try:
        return entry(key.name).scope == "host"
    except KeyError:
        return True


def new_keys(
    have: Sequence[Candidate[Any]], more: Sequence[Candidate[Any]]
) -> list[Candidate[Any]]:
    """Candidates of `more` that set something no earlier candidate sets (the advisor's tso
    fix and a profile's tso pick are one candidate, tried once)."""
    seen = {k for c in have for k, _ in c.changes}
    out = []
    for c in more:
        if not any(k in seen for k, _ in c.changes):
            out.append(c)
            seen.update(k for k, _ in c.changes)
    return out


def unknown_profile(name: str) -> str:
    """What `--profile NAME` (and the `T` form) says of a name no shipped profile has."""
    from tuitune.core.profiles import shipped

    names = ", ".join(p.name for p in shipped())
    return f"no profile {name[:40]!r}; profiles: {names}, or auto"


def scaled_profile(
    reader: Any,
    ifname: str,
    netns: str | None,
    peer: str | None,
    goal: str,
    name: str,
    say: Callable[[str], None],
) -> ShippedProfile:
    """Profile `name` (or `auto`: the one `tuitune recommend` picks, the round trip pinged to
    the peer), scaled to this host as `profile diff` shows it, each scaled value said.
    KeyError (its message: the names there are) for an unknown name."""
    from tuitune.core.advise.peer import BadPeer, probe_peer
    from tuitune.core.profiles import find
    from tuitune.core.profiles.placement import with_placement
    from tuitune.core.profiles.platform import governors, with_platform
    from tuitune.core.profiles.recommend import host_facts, nic_limits, recommend
    from tuitune.core.profiles.scale import scale_to_host

    if name != "auto" and find(name) is None:
        raise KeyError(unknown_profile(name))
    facts = reader.call(host_facts, reader.root, ifname)
    limits = nic_limits(reader, ifname)
    rtt = None
    if peer:
        try:
            probe = probe_peer(peer, netns, None)
            rtt = probe.rtt_ms
            say(f"profile: {probe.evidence()}")
        except BadPeer as exc:
            say(f"profile: no round trip to {peer} ({exc}): a LAN is assumed")
    if name == "auto":
        prof = recommend(facts, rtt, goal, limits).profile
        say(f"profile: {prof.name} (as `tuitune recommend` picks it)")
    else:
        got = find(name)
        assert got is not None  # checked above
        prof = got
    scaled = scale_to_host(prof, facts, limits, rtt)
    snap = reader.snapshot(ifname)
    placed, irq_lines, _ = with_placement(scaled.profile, facts, snap.nic, snap.host)
    govs = reader.call(governors, reader.root)
    placed, cpu_lines, _ = with_platform(placed, govs, snap.host, netns)
    for s in (*scaled.scaled, *cpu_lines, *irq_lines):
        say(f"profile: {s.setting} scaled to {s.value} ({s.why})")
    return placed


def spec_candidates(
    session: Session, spec: SweepSpec, ifname: str, allow_trial: bool, ssh_iface: str | None = None
) -> tuple[list[Candidate[Key]], list[str]]:
    """Each value a sweep spec names, one at a time (`spec:DIMENSION=LABEL`), resolved on this
    host as the sweep's runner resolves a cell; a value that is the host as found, a test
    parameter (streams, a pin) or an IRQ plan is not a host change to keep; what cannot be set
    here, can cut the link headless, or is already so is a line or skipped, as for a profile."""
    from tuitune.core.autotune.host import cuts, refused
    from tuitune.core.session.profile import resolve
    from tuitune.core.session.profile_model import Profile
    from tuitune.core.sweep.runner_cpus import irq_plan_of
    from tuitune.core.sweep.spec import requests

    access = session.access()
    out: list[Candidate[Key]] = []
    skipped: list[str] = []
    for dim in spec.dimensions:
        for value in dim.values:
            cid = f"spec:{dim.name}={value.label}"
            if irq_plan_of(value.settings) is not None:
                skipped.append(f"{cid}: an IRQ plan is a sweep's placement, not a candidate")
                continue
            wanted = requests(value.settings)
            if not wanted:
                continue  # as found, or a test parameter: nothing on the host to keep
            pairs, errors = resolve(access, Profile(None, tuple(wanted), spec.name), ifname)
            if errors or not pairs:
                skipped.append(f"{cid}: {errors[0] if errors else 'nothing to set here'}")
                continue
            why = refused(access, pairs)
            if why is not None:
                skipped.append(f"{cid}: {why}")
                continue
            cut = cuts([k for k, _ in pairs], allow_trial, ssh_iface)
            if cut is not None:
                skipped.append(f"{cid}: {cut}")
                continue
            now = access.read_many([k for k, _ in pairs])
            if all(now[k] == t for k, t in pairs):
                continue
            title = f"{spec.name}'s {dim.name} = {value.label}"
            out.append(Candidate(cid, title, tuple(pairs)))
    return out, skipped


def save_report(notebook: Path, run_id: str, text: str) -> Path:
    """The report beside the notebook (`<notebook>.<run_id>.md`), where `tuitune runs` and `N`
    name it for the runs tagged `sweep: <run_id>`."""
    from tuitune.core.bench.notebook import write_beside

    return write_beside(notebook, f".{run_id}.md", text)


def report_path(notebook: Path, run_id: str) -> Path:
    return notebook.with_suffix(f".{run_id}.md")
