"""Reading the udev rules' steering and sending lines back for `tuitune verify` (issue 33):
the RSS table (`ethtool -X`), the hash fields and ntuple rules (`ethtool -N`) and the root
qdisc's `tc` lines. Their handlers write them (kinds/rss.py, ntuple.py, qdisc.py:
`udev_lines`): a table of ascending runs as the weights that give exactly its slots.
"""

from __future__ import annotations

import re

from tuitune.core.host.ntuple import RuleError, parse_rule
from tuitune.core.host.qdisc_spec import OPTIONAL, OPTIONS, RATE, Leaf, check_value
from tuitune.core.host.rss import DEFAULT, MAX_SLOTS, table_value
from tuitune.core.session.settings import Key

# ---- reading them back (tuitune verify) ---------------------------------------------------------


def parse_x(args: list[str], ifname: str) -> list[tuple[Key, str]]:
    """`ethtool -X $name equal 2 | weight 16 16 | default` -> the table's canonical value."""
    if args == [DEFAULT] or (len(args) == 2 and args[0] == "equal" and args[1].isdigit()):
        return [(Key.rss(ifname), " ".join(args))]
    if args[:1] == ["weight"] and all(w.isascii() and w.isdigit() for w in args[1:]):
        weights = [int(w) for w in args[1:]]
        if not 0 < sum(weights) <= MAX_SLOTS:
            return []
        # tuitune writes each queue's slot count as its weight: the table is their runs.
        indir = [q for q, n in enumerate(weights) for _ in range(n)]
        return [(Key.rss(ifname), table_value(indir, None))]
    return []


def parse_n(args: list[str], ifname: str) -> list[tuple[Key, str]]:
    """`ethtool -N $name flow-type ... action Q loc L` -> the rule at L; `ethtool -N $name
    rx-flow-hash tcp4 sdfn` -> the fields of tcp4."""
    if len(args) == 3 and args[0] == "rx-flow-hash":
        return [(Key.flow_hash(ifname, args[1]), args[2])]
    if len(args) < 2 or args[-2] != "loc" or not (args[-1].isascii() and args[-1].isdigit()):
        return []
    try:
        value = parse_rule(" ".join(args[:-2]), None)
    except RuleError:
        value = " ".join(args[:-2])  # never what the kernel reads: a difference
    return [(Key.ntuple(ifname, int(args[-1])), value)]


_CHILD = re.compile(r"\+ 1\)\)\) ([a-z_]+(?: [a-z_]+(?: [0-9]+(?:bit|us|ns)?)?)*); done")


def tc_leaf(words: list[str]) -> str | None:
    """`tc qdisc` words of one leaf (tc_args) -> its canonical text, or None."""
    if not words or words[0] not in OPTIONS:
        return None
    flags = {"horizon_drop": ["horizon_drop", "1"], "horizon_cap": ["horizon_drop", "0"]}
    words = [words[0], *(w for word in words[1:] for w in flags.get(word, [word]))]
    kind, given = words[0], dict(zip(words[1::2], words[2::2], strict=False))
    opts: list[tuple[str, int | str]] = []
    for name, form in OPTIONS[kind]:
        raw = given.get(name)
        if raw is None:
            if name != "maxrate":
                return None
            opts.append((name, "unlimited"))  # tc_args leaves out an unlimited maxrate
            continue
        raw = raw.removesuffix("bit") if form == RATE else raw
        if not (raw.isascii() and raw.isdigit()):
            return None
        opts.append((name, int(raw)))
    for name, unit, _default, *_ in OPTIONAL.get(kind, ()):
        raw = given.get(name)
        if raw is not None:
            raw = raw.removesuffix(unit) if unit else raw
            if not (raw.isascii() and raw.isdigit()):
                return None
            opts.append((name, int(raw)))
    return Leaf(kind, tuple(opts)).text()


def parse_tc(command: str, ifname: str) -> tuple[Key, str, bool] | None:
    """(root qdisc key, value, whether it is an mq's children line) of one RUN, or None."""
    child = _CHILD.search(command)
    if child is not None and "qdisc replace dev $name parent" in command:
        leaf = tc_leaf(child.group(1).split())
        return (Key.qdisc(ifname), f"mq {leaf}", True) if leaf else None
    words = command.split()
    if len(words) < 7 or not words[0].endswith("/tc") or words[1:6] != [
        "qdisc", "replace", "dev", "$name", "root",
    ]:  # fmt: skip
        return None
    rest = words[6:]
    if rest == ["handle", "1:", "mq"]:
        return Key.qdisc(ifname), "mq", False
    leaf = tc_leaf(rest)
    if leaf is None:
        return None
    try:
        check_value(leaf)
    except ValueError:
        return None
    return Key.qdisc(ifname), leaf, False
