"""The settings a run ran with, by readable names, and what changed between two runs.

Names are what a tuner writes in a results table: offloads by their `ethtool -K` short names
where one exists (tso, gso, sg, tx ...) and by kernel name otherwise, "mtu", "rings rx",
"coalesce rx-usecs", "channels combined", "pause rx", "rx-0 rps_cpus", "eth2-TxRx-3
affinity" (IRQs by queue name: their numbers change across boots), and sysctls by their
dotted key. Values are the canonical strings of tuitune.core.session.settings.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping

from tuitune.core.host.ethtool import LEGACY_FEATURE_ALIASES
from tuitune.core.session import HostAccess, Key
from tuitune.core.values import Unavailable

# The short names in the order tables list them: the seeds' offload table first.
SHORT_ORDER = ("tso", "gso", "gro", "lro", "sg", "tx", "rx", "ufo")
SHORT_NAMES = SHORT_ORDER + tuple(n for n in LEGACY_FEATURE_ALIASES if n not in SHORT_ORDER)
GONE = "(gone)"
PEER = "peer "  # the prefix of the far end's settings in a run's record
_GROUP_NAMES = {"ring": "rings", "coalesce": "coalesce", "channels": "channels", "pause": "pause"}
_DEVICE_RANK = {"mtu": 0, "txqueuelen": 1, "rings": 2, "channels": 3, "coalesce": 4, "pause": 5}
# After the queues' RPS/XPS (6), before the IRQs (9): the sending and steering settings.
_DEVICE_RANK |= {"qdisc": 7, "rss": 7, "ntuple": 8}
_NUMBER = re.compile(r"(\d+)")


def capture(access: HostAccess, ifname: str, *, host_wide: bool = True) -> dict[str, str]:
    """Every readable setting of `ifname` and every catalog sysctl of the host, by name.
    Unavailable values (unsupported, not recorded) are left out."""
    # Host-wide sysctls too from a namespace: the same key set as a run from the screen (whose
    # session may write them), or runs side by side show differences that are not there.
    keys = access.device_keys(ifname) + access.sysctl_keys(host_wide=host_wide)
    values = access.read_many(keys)
    out: dict[str, str] = {}
    features: dict[str, str] = {}
    for key, value in values.items():
        if isinstance(value, Unavailable):
            continue
        if key.kind == "feature":
            features[key.name] = value
        else:
            out[setting_name(key)] = value
    active = _active_features(access, ifname) if features else None
    out.update(feature_settings(features, active))
    return dict(sorted(out.items(), key=lambda kv: order_key(kv[0])))


def capture_peer(netns: str, ifname: str) -> dict[str, str]:
    """The far end's settings when this machine holds it (the lab's peer namespace), named
    "peer mtu", "peer tso"...: its device and its namespace's sysctls (the host-wide ones are
    this host's, already in the run's own settings)."""
    from tuitune.core.host.root import HostRoot

    with HostAccess(HostRoot(netns=netns)) as access:
        got = capture(access, ifname, host_wide=False)
    return {PEER + name: value for name, value in got.items()}


def setting_name(key: Key) -> str:
    """The readable name of a non-feature setting."""
    k = key.kind
    if k == "sysctl":
        return key.name
    if k in _GROUP_NAMES:
        return f"{_GROUP_NAMES[k]} {key.name}"
    if k in ("mtu", "txqueuelen", "qdisc", "rss"):
        return k
    if k == "ntuple":
        return f"ntuple {key.name}"  # the rule's location
    if k == "flow_hash":
        return f"rss {key.name} hash"  # rss tcp4 hash: beside the table
    if k == "irq_affinity":
        return f"{key.queue} affinity" if key.queue else f"irq {key.name} affinity"
    return f"{key.name} {k}"  # rx-0 rps_cpus, tx-1 xps_cpus, rx-0 rps_flow_cnt


def feature_settings(
    requested: Mapping[str, str], active: Mapping[str, bool] | None = None
) -> dict[str, str]:
    """Features (kernel name -> requested "on"/"off") folded under their short names.

    A short name covers several kernel features (tso: tx-tcp-segmentation, tx-tcp6-...). Its
    value is theirs when they agree, with `ethtool -k`'s "[requested on]" where the kernel
    overrode the request (tx off also stops TSO), and names the members that disagree."""
    out: dict[str, str] = {}
    covered: set[str] = set()
    for short in SHORT_NAMES:
        pattern = LEGACY_FEATURE_ALIASES[short]
        members = sorted(n for n in requested if fnmatch.fnmatchcase(n, pattern))
        if not members:
            continue
        covered.update(members)
        out[short] = _folded(members, requested, active)
    for name in sorted(set(requested) - covered):
        out[name] = _folded([name], requested, active)
    return out


def _folded(
    members: list[str], requested: Mapping[str, str], active: Mapping[str, bool] | None
) -> str:
    def state(name: str) -> str:
        if active is not None and name in active:
            return "on" if active[name] else "off"
        return requested[name]

    states = [state(n) for n in members]
    main = max(("on", "off"), key=states.count)  # ties: "on", as ethtool prints a mixed group
    wanted = [requested[n] for n in members]
    text = main
    if all(w != main for w in wanted):
        text += f" [requested {'off' if main == 'on' else 'on'}]"
    odd = [n for n, s in zip(members, states, strict=True) if s != main]
    if odd:
        text += f" ({', '.join(odd)} {'off' if main == 'on' else 'on'})"
    return text


def _active_features(access: HostAccess, ifname: str) -> dict[str, bool] | None:
    """What each feature does now (the requested bit is what HostAccess reads): live only."""
    if not access.root.live:
        return None

    def read() -> dict[str, bool] | None:
        from tuitune.core.host.ethtool import Ethtool

        et = Ethtool(ifname)
        try:
            feats = et.features()
        finally:
            et.close()
        if isinstance(feats, Unavailable):
            return None
        return {f.name: f.active for f in feats}

    try:
        return access.run(read)
    except OSError:
        return None


# -- order and differences -------------------------------------------------------------------
def kind_of(name: str) -> str:
    """ "feature", "device" or "sysctl", from a readable name alone."""
    if name in _DEVICE_RANK or " " in name:
        return "device"
    if "." in name:
        return "sysctl"
    return "feature"


def _natural(text: str) -> tuple[object, ...]:
    return tuple(int(p) if p.isdigit() else p for p in _NUMBER.split(text))


def order_key(name: str) -> tuple[object, ...]:
    """Features (short names in table order, then kernel names), then the device (link,
    rings, channels, coalescing, pause, queues, IRQs), then sysctls."""
    kind = kind_of(name)
    if kind == "feature":
        rank = SHORT_NAMES.index(name) if name in SHORT_NAMES else len(SHORT_NAMES)
        return (0, rank, _natural(name))
    if kind == "device":
        first = name.split(" ", 1)[0]
        if name.endswith(" affinity"):
            rank = 9
        elif first in _DEVICE_RANK:
            rank = _DEVICE_RANK[first]
        else:
            rank = 6  # per-queue RPS/XPS
        return (1, rank, _natural(name))
    return (2, 0, _natural(name))


def diff(base: Mapping[str, str], other: Mapping[str, str]) -> list[tuple[str, str]]:
    """(name, value in `other`) for every setting that differs; GONE where `other` lacks it."""
    out = [(n, v) for n, v in other.items() if base.get(n) != v]
    out += [(n, GONE) for n in base if n not in other]
    return sorted(out, key=lambda nv: order_key(nv[0]))


def changes(base: Mapping[str, str], other: Mapping[str, str]) -> list[str]:
    """What `other` changed against `base`: ["tso off", "gso off", "mtu 9000", "x (gone)"]."""
    return [f"{name} {value}" for name, value in diff(base, other)]
