"""udev rules: the interface's MTU, queue length, ethtool settings and per-queue RPS/XPS, set
every time the device appears (boot, driver reload, hotplug).

Order matters and udev gives it: on the device's own "add" event, `ATTR{}` writes happen while
the rules are read and `RUN` programs (ethtool, by full path, channels first) after all rules;
each queue (rx-N, tx-N) then gets its own "add" event, which udevd only handles once the
device's event is done (events of a parent and its children never run at once). So the
per-queue attributes are set on the queue's event, after `ethtool -L` has made the queues,
including the ones it creates. A queue event finds its device through its parent: the
device's ID_PATH imported from the udev database, its MAC, or its name.

Every value passes `safe` first; `$name` is the only substitution and is udev's own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from tuitune.core.cpulist import format_mask
from tuitune.core.export.common import by_kind, heading, mark, was, word_check
from tuitune.core.export.context import ExportContext
from tuitune.core.export.device import DeviceMatch
from tuitune.core.export.model import Change, ExportFile, Generated
from tuitune.core.session.kinds import safe
from tuitune.core.session.kinds.base import EthtoolSet, UdevRun
from tuitune.core.session.kinds.safe import Checker, comment
from tuitune.core.session.kinds.table import HANDLERS, handler
from tuitune.core.session.settings import (
    GROUP_OF,
    NO_CPUS,
    QUEUE_KINDS,
    Key,
    Kind,
    cpus_value,
)


def _set_of(kind: Kind) -> EthtoolSet:
    got = handler(kind).ethtool_set
    assert got is not None
    return got


def _attr(key: Key) -> str | None:
    return handler(key.kind).sysfs_attr(key)


# The kinds `ethtool` sets, in the order their commands run (each handler's `ethtool_set`,
# kinds/base.py, says its option and its step), and its option's kind (read back by verify).
ETHTOOL_KINDS: tuple[Kind, ...] = tuple(
    sorted(
        (k for k, h in HANDLERS.items() if h.ethtool_set is not None),
        key=lambda k: _set_of(k).step,
    )
)
KIND_OF_OPTION: dict[str, Kind] = {_set_of(k).option: k for k in ETHTOOL_KINDS}
# A device's own attributes (ATTR{mtu}); its queues' are settings.QUEUE_KINDS
# (ATTR{queues/rx-0/rps_cpus}).
DEVICE_ATTR_KINDS: tuple[Kind, ...] = tuple(
    k for k, h in HANDLERS.items() if k not in QUEUE_KINDS and h.sysfs_attr(Key(k, "")) is not None
)
DEVICE_KINDS = (*DEVICE_ATTR_KINDS, *ETHTOOL_KINDS)


def _turn(kind: Kind) -> int:
    got = handler(kind).udev_turn
    assert got is not None
    return got


# The kinds that write their own lines (the handler's `udev_lines`), in their turn after every
# ATTR and ethtool command: the RSS table, its hash fields, the ntuple rules, the root qdisc.
OWN_LINES_KINDS: tuple[Kind, ...] = tuple(
    sorted((k for k, h in HANDLERS.items() if h.udev_turn is not None), key=_turn)
)
_PAIR = re.compile(r'(\w+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"')


def path_for(ctx: ExportContext) -> Path:
    return ctx.etc / f"udev/rules.d/90-tuitune-{ctx.ifname}.rules"


def device_keys(match: DeviceMatch) -> list[str]:
    """Keys that select the device on its own event (all must match)."""
    if match.kind == "path":
        keys = [f'ENV{{ID_PATH}}=="{match.value}"']
        if match.dev_port is not None:
            keys.append(f'ATTR{{dev_port}}=="{match.dev_port}"')
        return keys
    if match.kind == "mac":
        return [f'ATTR{{address}}=="{match.value}"']
    if match.kind == "driver":
        # What 80-net-setup-link.rules' net_setup_link put there: the driver ethtool names,
        # as .link's Driver= matches it (a parent DRIVERS key could not be negated below).
        return [f'ENV{{ID_NET_DRIVER}}=="{match.value}"']
    return [f'KERNEL=="{match.value}"']


def _negated(key: str) -> str:
    return key.replace("==", "!=", 1)


def device_section(match: DeviceMatch, end: str) -> list[str]:
    """Lines that skip every event but this device's: GOTO `end` otherwise."""
    lines = [f'SUBSYSTEM!="net", GOTO="{end}"']
    if match.kind == "path":
        # 80-net-setup-link.rules imports it too; do it here in case that file is not used.
        lines.append('ENV{ID_PATH}=="", IMPORT{builtin}="path_id"')
    lines += [f'{_negated(k)}, GOTO="{end}"' for k in device_keys(match)]
    return lines


def _queue_keys(match: DeviceMatch) -> tuple[list[str], list[str]]:
    """(lines before the queue rules, keys on each queue rule) that tie a queue event to the
    device: parent keys (ATTRS, KERNELS) only work positively, so they go on every line."""
    if match.kind == "path":
        keys = [f'ATTRS{{dev_port}}=="{match.dev_port}"'] if match.dev_port is not None else []
        return ['IMPORT{parent}="ID_PATH"', f'ENV{{ID_PATH}}!="{match.value}", GOTO="%END%"'], keys
    if match.kind == "mac":
        return [], [f'ATTRS{{address}}=="{match.value}"']
    if match.kind == "driver":
        env = f'ENV{{ID_NET_DRIVER}}!="{match.value}", GOTO="%END%"'
        return ['IMPORT{parent}="ID_NET_DRIVER"', env], []
    return [], [f'KERNELS=="{match.value}"']


def checked_match(match: DeviceMatch, check: Checker) -> DeviceMatch | None:
    """The match with its value checked (None when it is not safe to write)."""
    checker = {
        "path": safe.id_path,
        "mac": safe.mac,
        "name": safe.ifname,
        "driver": safe.driver,
    }[match.kind]
    value = check(checker, match.value)
    port = match.dev_port
    if port is not None and check(safe.number, "dev_port", port) is None:
        return None
    return None if value is None else DeviceMatch(match.kind, value, port, match.warning)


def device_value(c: Change, check: Checker) -> str | None:
    """The value as ethtool or sysfs takes it."""
    form = handler(c.key.kind).form(c.key)
    if form == "count":
        return check(safe.count, c.key, c.current)
    if form == "switch":
        return check(safe.switch, c.key, c.current)
    return None  # CPU lists and text are not ethtool's or a sysfs count


def _ethtool_command(ctx: ExportContext, kind: Kind, changes: list[Change], check: Checker) -> str:
    how = _set_of(kind)
    args = []
    if how.words == "encoding":  # one value per device: ethtool --set-fec DEV encoding auto rs
        assert how.encoding is not None  # the handler's check of its one value
        modes = check(how.encoding, changes[-1].key, changes[-1].current)
        args = ["encoding", modes] if modes is not None else []
    else:
        for c in changes:
            name = check(word_check(kind), c.key)
            value = device_value(c, check)
            if name is not None and value is not None:
                args += [name, value]
    return f"{ctx.ethtool} {how.option} $name {' '.join(args)}"


def generate(changes: Sequence[Change], ctx: ExportContext, check: Checker) -> Generated:
    out = Generated()
    mine = [c for c in changes if c.key.ifname == ctx.ifname]
    device = [c for c in mine if c.key.kind in DEVICE_KINDS]
    queues = by_kind(mine, *QUEUE_KINDS)
    own = [c for kind in OWN_LINES_KINDS for c in by_kind(mine, kind)]  # kind by kind
    if not device and not queues and not own:
        return out
    match = checked_match(ctx.match, check)
    check(safe.abs_path, "ethtool", ctx.ethtool)
    if match is None:
        return out
    # Labels named for the interface: each file's GOTOs stay inside it on any udev version.
    end, qlabel = f"tuitune_{ctx.ifname}_end", f"tuitune_{ctx.ifname}_queues"
    lines = [
        *heading("udev rules", ctx, "the settings tuitune changed"),
        f"# Matches the device by {match.describe}.",
        "# Applied when the device appears (boot, driver load, hotplug); the values are live",
        "# already. `udevadm control --reload` makes udevd read this file; `tuitune verify FILE`",
        "# compares the live state with it.",
        '# Only "add" events run these rules: a reload alone changes nothing on a device that',
        "# is already there. To run them now (it replays every rule of the device, naming and",
        "# .link files included, and ethtool -L resets the queues):",
        f"#   udevadm trigger --action=add /sys/class/net/{ctx.ifname}",
        f"# 10-tuitune-{ctx.ifname}.link, if installed too, sets the same values earlier in the",
        "# same event (udev's net_setup_link builtin, from 80-net-setup-link.rules); these rules",
        "# run after it, so where the two ever differ, the value here is the one that stays.",
        mark("udev", ctx),
        "",
        f'ACTION!="add", GOTO="{end}"',
    ]
    if queues:
        lines.append(f'SUBSYSTEM=="queues", GOTO="{qlabel}"')
    lines += device_section(match, end)
    for kind in DEVICE_ATTR_KINDS:
        for c in by_kind(device, kind):
            value = device_value(c, check)
            lines += [f"# {kind}: {was(c)}", f'ATTR{{{_attr(c.key)}}}="{value}"']
            out.covered.add(c.key)
    if queues:
        # A device present before udevd starts (most NICs at boot) is replayed by `udevadm
        # trigger`, but its queues are not: they have no uevent file. So the queues that
        # exist are set here too; queues made later (ethtool -L) get their own events below.
        lines.append("# queues as the device appears (a coldplugged device gets no queue events)")
        for c in queues:
            check(safe.queue, c.key)
            value = queue_value(c, ctx, check)
            lines.append(f'ATTR{{queues/{c.key.name}/{_attr(c.key)}}}="{value}"')
    for kind in ETHTOOL_KINDS:
        group = by_kind(device, kind)
        if not group:
            continue
        lines.append(f"# {GROUP_OF[kind]}{_set_of(kind).note}")
        lines += [f"#   {c.key.name or 'modes'}: {was(c)}" for c in group]
        lines.append(f'RUN+="{_ethtool_command(ctx, kind, group, check)}"')
        out.covered.update(c.key for c in group)
    if queues and by_kind(device, "channels"):
        # RUN programs run after every rule, so `ethtool -L` comes after the ATTR writes
        # above, and a driver may spread XPS again when its channels change (virtio_net
        # does, seen after a reboot in the VM bench); the queues it keeps get no event of
        # their own. So they are written once more after it. Values passed safe.* checks.
        writes = [
            f"echo {queue_value(c, ctx, check)} > "
            f"/sys/class/net/$name/queues/{c.key.name}/{_attr(c.key)}"
            for c in queues
        ]
        lines.append("# the queues again, after ethtool -L (a driver may re-spread XPS)")
        lines.append(f"RUN+=\"/bin/sh -c '{'; '.join(writes)}'\"")
    for c in own:  # after ethtool -L: the table and the rules name rx queues
        run = UdevRun(c.key, c.current, was(c), ctx.ethtool, ctx.tc)
        got, why = handler(c.key.kind).udev_lines(run, check)
        lines += got
        if why is None:
            out.covered.add(c.key)
        else:
            out.left_out[c.key] = why
    if queues:
        lines += [
            f'GOTO="{end}"',
            "",
            "# Each queue on its own event, which comes after the device's (and its ethtool -L).",
            f'LABEL="{qlabel}"',
        ]
        prelude, keys = _queue_keys(match)
        lines += [p.replace("%END%", end) for p in prelude]
        for qname in dict.fromkeys(c.key.name for c in queues):
            mine_q = [c for c in queues if c.key.name == qname]
            assigns = []
            for c in mine_q:
                check(safe.queue, c.key)
                value = queue_value(c, ctx, check)
                assigns.append(f'ATTR{{{_attr(c.key)}}}="{value}"')
                lines.append(f"# {qname} {c.key.kind}: {was(c)}" + _cpus_note(c))
                out.covered.add(c.key)
            lines.append(", ".join([f'KERNEL=="{qname}"', *keys, *assigns]))
    lines += ["", f'LABEL="{end}"']
    warnings = [match.warning] if match.warning else []
    if ctx.netns:
        warnings.append(
            f"{ctx.ifname} is in network namespace {ctx.netns}: the host's udevd only sees "
            "devices in the initial namespace, so these rules apply when the device is created "
            "there (and moved) or by a udevd running inside the namespace"
        )
    text = "\n".join(lines) + "\n"
    out.files.append(ExportFile("udev", path_for(ctx), text, warnings=tuple(warnings)))
    return out


def queue_value(c: Change, ctx: ExportContext, check: Checker) -> str | None:
    if handler(c.key.kind).form(c.key) == "count":  # rps_flow_cnt: a count, not CPUs
        return device_value(c, check)
    cpus = check(safe.cpus, c.key, c.current)
    return None if cpus is None else format_mask(cpus, ctx.ncpus)


def _cpus_note(c: Change) -> str:
    if handler(c.key.kind).form(c.key) == "count":
        return ""
    return " (now none)" if c.current == NO_CPUS else f" (now CPUs {comment(c.current)})"


# ---- reading a rules file back (tuitune verify) ------------------------------------------------

# The attribute files back to their kinds.
_DEVICE_ATTR: dict[str, Kind] = {str(_attr(Key(k, ""))): k for k in DEVICE_ATTR_KINDS}
_QUEUE_ATTR: dict[str, Kind] = {str(_attr(Key(k, ""))): k for k in QUEUE_KINDS}


def parse(text: str, ifname: str) -> list[tuple[Key, str, int]]:
    """(key, canonical value, line) of each setting in rules tuitune wrote for `ifname`."""
    from tuitune.core.cpulist import CpuListError, parse_mask

    out: list[tuple[Key, str, int]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pairs = _PAIR.findall(line)
        queue = next((v for k, _, op, v in pairs if k == "KERNEL" and op == "=="), None)
        for key, attr, op, value in pairs:
            if key == "ATTR" and op == "=":
                if attr in _DEVICE_ATTR:
                    out.append((Key(_DEVICE_ATTR[attr], ifname), value, n))
                elif attr in _QUEUE_ATTR and queue is not None:
                    qkey = Key(_QUEUE_ATTR[attr], ifname, queue)
                    if handler(qkey.kind).form(qkey) == "count":  # rps_flow_cnt
                        out.append((qkey, value, n))
                        continue
                    try:
                        cpus = parse_mask(value)
                    except CpuListError:
                        cpus = frozenset({-1})  # never what the kernel says: a difference
                    out.append((qkey, cpus_value(cpus), n))
            elif key == "RUN" and op in ("+=", "="):
                out += [(k, v, n) for k, v in parse_ethtool(value, ifname)]
                for kind in OWN_LINES_KINDS:  # the steering and the qdisc: their handlers'
                    for got in handler(kind).udev_readback(value, ifname):
                        if got.after is None:
                            out.append((got.key, got.value, n))
                        elif out and out[-1][0] == got.key and out[-1][1] == got.after:
                            out[-1] = (got.key, got.value, out[-1][2])  # the line it completes
    return out


def parse_ethtool(command: str, ifname: str) -> list[tuple[Key, str]]:
    """Settings of one `ethtool -X $name field value ...` command line."""
    words = command.split()
    if len(words) < 3 or not words[0].endswith("ethtool"):
        return []
    kind = KIND_OF_OPTION.get(words[1])
    args = words[3:]
    if kind is None:  # not the ethtool table's: maybe a handler's own line (OWN_LINES_KINDS)
        return []
    if _set_of(kind).words == "encoding":
        return [(Key(kind, ifname), " ".join(args[1:]))] if args[:1] == ["encoding"] else []
    return [
        (Key(kind, ifname, name), value) for name, value in zip(args[::2], args[1::2], strict=False)
    ]
