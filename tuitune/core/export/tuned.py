"""A tuned profile (tuned.conf(5)) for shops standardised on tuned: /etc/tuned/tuitune-IFACE/.

Only tuned's documented plugins and options (tuned's own plugin documentation, not the seed
reports): [sysctl] takes `name=value` per sysctl; [net] takes `devices=` and the device's
`mtu=`, `txqueuelen=`, and ethtool's `features=`, `coalesce=`, `ring=`, `channels=`, `pause=`
as "name value name value ..."; [sysfs] takes `/sys/...=value` (RPS/XPS masks per queue).
`tuned-adm profile tuitune-IFACE` activates it; tuned puts the old values back when another
profile replaces it. IRQ and process placement are left out: tuned's [irq] and [scheduler]
plugins place by CPU mask for every IRQ or process they match, not by queue name (the
affinity export does that).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from tuitune.core.export.common import (
    by_kind,
    heading,
    ini_settings,
    mark,
    was,
    word_check,
    words_of,
)
from tuitune.core.export.context import ExportContext
from tuitune.core.export.model import Change, ExportFile, Generated
from tuitune.core.export.udev import device_value, queue_value
from tuitune.core.session.kinds import safe
from tuitune.core.session.kinds.safe import IFACE_SYSCTL_TREES, Checker
from tuitune.core.session.kinds.table import handler
from tuitune.core.session.settings import QUEUE_KINDS, Key, Kind, cpus_value

# tuitune's kind -> tuned [net] option taking "name value ..." pairs (ethtool's -K/-C/-G/-L/-A)
NET_PAIRS: dict[Kind, str] = {
    "channels": "channels",
    "ring": "ring",
    "coalesce": "coalesce",
    "pause": "pause",
    "feature": "features",
}
NET_SINGLE = ("mtu", "txqueuelen")
# tuned (2.20, plugin_net `_parse_device_parameters`) takes a `features=` name only if it is a
# key of `ethtool -k`'s output, where ethtool prints these kernel features under its legacy
# long names, which tuned shortens: the name tuned takes for each (ethtool.c off_flag_def).
# Found by the real daemon: `features=rx-gro on` was "not supported by device" and not set.
TUNED_FEATURE = {
    "rx-checksum": "rx",
    "tx-udp-fragmentation": "ufo",
    "tx-generic-segmentation": "gso",
    "rx-gro": "gro",
    "rx-lro": "lro",
    "rx-vlan-hw-parse": "rxvlan",
    "tx-vlan-hw-insert": "txvlan",
    "rx-ntuple-filter": "ntuple",
    "rx-hashing": "rxhash",
}
KERNEL_FEATURE = {v: k for k, v in TUNED_FEATURE.items()}
# The members of ethtool's wildcard groups are printed indented under the group's line, and
# tuned keeps the indentation in the key, so it matches none of them: tuned can set them only
# as the whole group (`tso` turns every tx-tcp*-segmentation), which is not the one change.
GROUPED = re.compile(r"tx-checksum-.*|tx-scatter-gather.*|tx-tcp.*-segmentation")
GROUP_OF = (("tx-checksum-", "tx"), ("tx-scatter-gather", "sg"), ("tx-tcp", "tso"))
LEFT_OUT = (
    "not in the tuned profile: tuned places IRQs and processes by CPU mask, not by queue "
    "name (--format affinity, process)"
)


def profile_name(ifname: str) -> str:
    return f"tuitune-{ifname}"


def path_for(ctx: ExportContext) -> Path:
    return ctx.etc / f"tuned/{profile_name(ctx.ifname)}/tuned.conf"


def _sysctl_lines(changes: Sequence[Change], check: Checker, out: Generated) -> list[str]:
    lines: list[str] = []
    for c in changes:
        name = c.key.name
        tree = next((t for t in IFACE_SYSCTL_TREES if name.startswith(t)), None)
        if tree is not None and "." in name[len(tree) :].rpartition(".")[0]:
            # tuned turns every dot into a slash: an interface name with a dot breaks the path
            out.left_out[c.key] = "tuned cannot name a sysctl of an interface with a dot in it"
            continue
        key = check(safe.sysctl_key, name)
        value = check(safe.sysctl_value, name, c.current)
        if key is None or value is None:
            continue
        lines += [f"# {was(c)}", f"{key}={value}"]
        out.covered.add(c.key)
    return lines


def _net_lines(
    changes: Sequence[Change], ctx: ExportContext, check: Checker, out: Generated
) -> list[str]:
    lines: list[str] = []
    for kind in NET_SINGLE:
        for c in (c for c in changes if c.key.kind == kind):
            value = device_value(c, check)
            if value is not None:
                lines += [f"# {kind}: {was(c)}", f"{kind}={value}"]
                out.covered.add(c.key)
    for kind, option in NET_PAIRS.items():
        group, words = by_kind(changes, kind), words_of(kind)
        pairs: list[str] = []
        for c in group:
            if words == "feature" and GROUPED.fullmatch(c.key.name):
                whole = next(g for p, g in GROUP_OF if c.key.name.startswith(p))
                out.left_out[c.key] = (
                    f"tuned cannot set {c.key.name} alone (`ethtool -k` lists it under "
                    f"`{whole}`, and tuned's features= sets only whole groups): use --format "
                    "udev, link or nm"
                )
                continue
            name = check(word_check(kind), c.key)
            value = device_value(c, check)
            if name is None or value is None:
                continue
            if words == "feature":
                name = TUNED_FEATURE.get(name, name)
            lines.append(f"# {c.key.label}: {was(c)}")
            pairs += [name, value]
            out.covered.add(c.key)
        if pairs:
            lines.append(f"{option}={' '.join(pairs)}")
    return lines


def _sysfs_lines(
    changes: Sequence[Change], ctx: ExportContext, check: Checker, out: Generated
) -> list[str]:
    lines: list[str] = []
    for c in by_kind(changes, *QUEUE_KINDS):
        queue = check(safe.queue, c.key)
        value = queue_value(c, ctx, check)
        if queue is None or value is None:
            continue
        path = f"/sys/class/net/{ctx.ifname}/queues/{queue}/{handler(c.key.kind).sysfs_attr(c.key)}"
        lines += [f"# {c.key.label}: {was(c)}", f"{path}={value}"]
        out.covered.add(c.key)
    return lines


def generate(changes: Sequence[Change], ctx: ExportContext, check: Checker) -> Generated:
    out = Generated()
    sysctls = [c for c in changes if c.key.kind == "sysctl"]
    device = [c for c in changes if c.key.ifname == ctx.ifname]
    net = [c for c in device if c.key.kind in (*NET_SINGLE, *NET_PAIRS)]
    for c in changes:
        if c.key.kind in ("irq_affinity", "proc_affinity"):
            out.left_out[c.key] = LEFT_OUT
    sections: list[str] = []
    body = _sysctl_lines(sysctls, check, out)
    if body:
        sections += ["", "[sysctl]", *body]
    body = _net_lines(net, ctx, check, out)
    if body:
        sections += ["", "[net]", f"devices={ctx.ifname}", *body]
    body = _sysfs_lines(device, ctx, check, out)
    if body:
        sections += ["", "[sysfs]", *body]
    if not out.covered:
        return out
    name = profile_name(ctx.ifname)
    lines = [
        *heading("tuned profile", ctx, "the settings tuitune exported"),
        f"# Activate: tuned-adm profile {name}  (tuned puts the old values back when another",
        "# profile replaces it). To build on one of tuned's own profiles, add to [main]:",
        "#   include=throughput-performance",
        mark("tuned", ctx),
        "",
        "[main]",
        f"summary=tuitune: {ctx.ifname} on {safe.comment(ctx.host)}",
        *sections,
    ]
    warnings: list[str] = []
    if ctx.netns:
        warnings.append(
            f"tuned works in the host's own network namespace, not in {ctx.netns}: this "
            f"profile is for a host whose {ctx.ifname} is set up like the namespace's"
        )
    notes = (f"activate with `tuned-adm profile {name}` (tuned must be installed)",)
    text = "\n".join(lines) + "\n"
    out.files.append(
        ExportFile("tuned", path_for(ctx), text, warnings=tuple(warnings), notes=notes)
    )
    return out


def parse(text: str, ifname: str) -> list[tuple[Key, str, int]]:
    """(key, value, line) of each setting in a tuned profile tuitune wrote, for `verify`."""
    from tuitune.core.cpulist import CpuListError, parse_mask

    by_option = {option: kind for kind, option in NET_PAIRS.items()}
    out: list[tuple[Key, str, int]] = []
    for n, section, name, value in ini_settings(text):
        name, value = name.strip(), " ".join(value.split())
        if section == "[sysctl]":
            out.append((Key.sysctl(name), value, n))
        elif section == "[net]" and name in NET_SINGLE:
            out.append((Key.mtu(ifname) if name == "mtu" else Key.txqueuelen(ifname), value, n))
        elif section == "[net]" and name in by_option:
            words = value.split()
            for field, v in zip(words[::2], words[1::2], strict=False):
                kind = by_option[name]
                if words_of(kind) == "feature":
                    key = Key.feature(ifname, KERNEL_FEATURE.get(field, field))
                else:
                    key = Key(kind, ifname, field)
                out.append((key, v, n))
        elif section == "[sysfs]":
            queue, attr = name.rstrip("/").split("/")[-2:]
            if attr == "rps_flow_cnt":
                out.append((Key.rps_flow_cnt(ifname, queue), value, n))
                continue
            try:
                cpus = parse_mask(value)
            except CpuListError:
                continue
            maker = Key.rps_cpus if attr == "rps_cpus" else Key.xps_cpus
            out.append((maker(ifname, queue), cpus_value(cpus), n))
    return out
