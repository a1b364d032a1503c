"""The udev rules' steering and sending lines (issue 33): the RSS table (`ethtool -X`) and the
ntuple rules (`ethtool -N`), run after `ethtool -L` (a channel change resets the table on most
drivers, and a rule names an rx queue), and reading them and the root qdisc's `tc` lines back
for `tuitune verify`.

`ethtool -X` takes `equal N`, `weight W0 W1 ...` (contiguous runs of slots, ethtool.c's
fill_indir_table) or `default`; a table of ascending runs is written as the weights that give
exactly its slots; any other table is left out of the file with the reason (`ethtool -X` could
not make it). Values are re-checked word by word before they land in a file.
"""

from __future__ import annotations

import re

from tuitune.core.export.common import was
from tuitune.core.export.context import ExportContext
from tuitune.core.export.model import Change
from tuitune.core.export.safe import Checker, UnsafeValue
from tuitune.core.host.ntuple import NONE, RuleError, parse_rule
from tuitune.core.host.qdisc_spec import OPTIONAL, OPTIONS, RATE, Leaf, check_value
from tuitune.core.host.rss import DEFAULT, FIELD_LETTERS, FLOW_TYPES, MAX_SLOTS, table_value
from tuitune.core.session.settings import Key

_RUN = r"[0-9]{1,5}(\*[0-9]{1,5})?"
_RSS = re.compile(rf"default|equal [0-9]{{1,5}}|table {_RUN}( {_RUN}){{0,4095}}")
NOT_WEIGHTS = (
    "not exported: ethtool -X takes equal N or weights (contiguous runs of slots), and this "
    "table is neither; tuitune keeps it for the session"
)


def rss_args(key: Key, value: str) -> list[str] | None:
    """`ethtool -X` words giving exactly the table `value` (None: ethtool cannot make it);
    UnsafeValue when the value is not one tuitune writes."""
    if not _RSS.fullmatch(value):
        raise UnsafeValue(f"{key.label}: not an RSS table as tuitune writes it")
    words = value.split()
    if words[0] in (DEFAULT, "equal"):
        return words
    indir: list[int] = []
    for run in words[1:]:
        q, _, n = run.partition("*")
        indir += [int(q)] * int(n or 1)
        if len(indir) > MAX_SLOTS:
            raise UnsafeValue(f"{key.label}: more slots than any driver has")
    # weights: queue j gets its run; a queue never sent to, weight 0. Exact only when each
    # queue holds one run and the runs ascend (what fill_indir_table makes).
    runs = [q for i, q in enumerate(indir) if i == 0 or indir[i - 1] != q]
    if runs != sorted(set(runs)):
        return None
    return ["weight", *(str(indir.count(q)) for q in range(max(runs) + 1))]


def rss_lines(c: Change, ctx: ExportContext, check: Checker) -> tuple[list[str], str | None]:
    """(rule lines, None) or ([], why it is left out)."""
    head = [f"# RSS table, after ethtool -L (a channel change resets it): {was(c)}"]
    args = check(rss_args, c.key, c.current)
    if args is None:
        return ([], NOT_WEIGHTS) if c.current.startswith("table") else ([], None)
    if args == [DEFAULT]:
        return [*head, "#   the driver's default: nothing to run when the device appears"], None
    return [*head, f'RUN+="{ctx.ethtool} -X $name {" ".join(args)}"'], None


def _fields(key: Key, value: str) -> str:
    if key.name not in FLOW_TYPES or not re.fullmatch(f"[{FIELD_LETTERS}]{{1,8}}", value):
        raise UnsafeValue(f"{key.label}: not hash fields as tuitune writes them")
    return value


def flow_hash_lines(c: Change, ctx: ExportContext, check: Checker) -> list[str]:
    head = [f"# RSS hash fields of {c.key.name}: {was(c)}"]
    fields = check(_fields, c.key, c.current)
    if fields is None:
        return head
    return [*head, f'RUN+="{ctx.ethtool} -N $name rx-flow-hash {c.key.name} {fields}"']


def _rule(key: Key, value: str) -> str:
    try:
        if parse_rule(value, None) != value:
            raise UnsafeValue(f"{key.label}: not an ntuple rule as tuitune writes it")
    except RuleError as exc:
        raise UnsafeValue(f"{key.label}: {exc}") from None
    if not (key.name.isascii() and key.name.isdigit() and len(key.name) <= 7):
        raise UnsafeValue(f"{key.label}: not a rule location")
    return value


def ntuple_lines(c: Change, ctx: ExportContext, check: Checker) -> list[str]:
    head = [f"# ntuple rule at location {c.key.name}: {was(c)}"]
    if c.current == NONE:
        return [*head, "#   none: nothing to run when the device appears"]
    rule = check(_rule, c.key, c.current)
    if rule is None:
        return head
    words = rule.replace("action drop", "action -1")
    return [
        *head,
        "#   needs ntuple filtering on (ethtool -K $name ntuple on, exported with the features)",
        f'RUN+="{ctx.ethtool} -N $name {words} loc {c.key.name}"',
    ]


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
