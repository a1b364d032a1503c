"""systemd.link(5): the same settings for hosts whose udev applies .link files (every systemd
host; systemd-networkd users expect them there), with only the keys the installed systemd knows.

udev applies the first .link file that matches a device, in lexical order, and only that one:
10-tuitune-IFACE.link therefore replaces 99-default.link for this device, so it carries that
file's naming and MAC policies (read from the installed file) to keep names as they are.
Applied on "add" only; `udevadm test-builtin net_setup_link /sys/class/net/IFACE` applies it now.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from pathlib import Path

from tuitune.core.export.common import by_kind, ini_settings, mark, was, where, written_by
from tuitune.core.export.context import DEFAULT_POLICY, ExportContext
from tuitune.core.export.model import Change, ExportFile, Generated
from tuitune.core.session.kinds import safe
from tuitune.core.session.kinds.safe import Checker
from tuitune.core.session.settings import Key

# .link key -> (kernel features it sets, first systemd version that has it). One key may set
# several features at once (TransmitChecksumOffload: every tx-checksum-*).
FEATURES: dict[str, tuple[str, int]] = {
    "ReceiveChecksumOffload": ("rx-checksum", 245),
    "TransmitChecksumOffload": ("tx-checksum-*", 245),
    "TCPSegmentationOffload": ("tx-tcp-segmentation", 232),
    "TCP6SegmentationOffload": ("tx-tcp6-segmentation", 232),
    "GenericSegmentationOffload": ("tx-generic-segmentation", 232),
    "GenericReceiveOffload": ("rx-gro", 232),
    "LargeReceiveOffload": ("rx-lro", 232),
    "GenericReceiveOffloadHardware": ("rx-gro-hw", 250),
    "ReceiveVLANCTAGHardwareAcceleration": ("rx-vlan-hw-parse", 250),
    "TransmitVLANCTAGHardwareAcceleration": ("tx-vlan-hw-insert", 250),
    "ReceiveVLANCTAGFilter": ("rx-vlan-filter", 250),
    "TransmitVLANSTAGHardwareAcceleration": ("tx-vlan-stag-hw-insert", 250),
    "NTupleFilter": ("rx-ntuple-filter", 250),
}
# (kind, field) -> (.link key, unit suffix or "bool", first version)
FIELDS: dict[tuple[str, str], tuple[str, str, int]] = {
    ("mtu", ""): ("MTUBytes", "", 209),
    ("txqueuelen", ""): ("TransmitQueueLength", "", 248),
    ("channels", "rx"): ("RxChannels", "", 239),
    ("channels", "tx"): ("TxChannels", "", 239),
    ("channels", "other"): ("OtherChannels", "", 239),
    ("channels", "combined"): ("CombinedChannels", "", 239),
    ("ring", "rx"): ("RxBufferSize", "", 244),
    ("ring", "tx"): ("TxBufferSize", "", 244),
    ("ring", "rx-mini"): ("RxMiniBufferSize", "", 250),
    ("ring", "rx-jumbo"): ("RxJumboBufferSize", "", 250),
    ("pause", "rx"): ("RxFlowControl", "bool", 246),
    ("pause", "tx"): ("TxFlowControl", "bool", 246),
    ("pause", "autoneg"): ("AutoNegotiationFlowControl", "bool", 246),
    ("coalesce", "rx-usecs"): ("RxCoalesceSec", "us", 250),
    ("coalesce", "rx-frames"): ("RxMaxCoalescedFrames", "", 250),
    ("coalesce", "rx-usecs-irq"): ("RxCoalesceIrqSec", "us", 250),
    ("coalesce", "rx-frames-irq"): ("RxMaxCoalescedIrqFrames", "", 250),
    ("coalesce", "tx-usecs"): ("TxCoalesceSec", "us", 250),
    ("coalesce", "tx-frames"): ("TxMaxCoalescedFrames", "", 250),
    ("coalesce", "tx-usecs-irq"): ("TxCoalesceIrqSec", "us", 250),
    ("coalesce", "tx-frames-irq"): ("TxMaxCoalescedIrqFrames", "", 250),
    ("coalesce", "stats-block-usecs"): ("StatisticsBlockCoalesceSec", "us", 250),
    ("coalesce", "adaptive-rx"): ("UseAdaptiveRxCoalesce", "bool", 250),
    ("coalesce", "adaptive-tx"): ("UseAdaptiveTxCoalesce", "bool", 250),
    ("coalesce", "pkt-rate-low"): ("CoalescePacketRateLow", "", 250),
    ("coalesce", "rx-usecs-low"): ("RxCoalesceLowSec", "us", 250),
    ("coalesce", "rx-frames-low"): ("RxMaxCoalescedLowFrames", "", 250),
    ("coalesce", "tx-usecs-low"): ("TxCoalesceLowSec", "us", 250),
    ("coalesce", "tx-frames-low"): ("TxMaxCoalescedLowFrames", "", 250),
    ("coalesce", "pkt-rate-high"): ("CoalescePacketRateHigh", "", 250),
    ("coalesce", "rx-usecs-high"): ("RxCoalesceHighSec", "us", 250),
    ("coalesce", "rx-frames-high"): ("RxMaxCoalescedHighFrames", "", 250),
    ("coalesce", "tx-usecs-high"): ("TxCoalesceHighSec", "us", 250),
    ("coalesce", "tx-frames-high"): ("TxMaxCoalescedHighFrames", "", 250),
    ("coalesce", "sample-interval"): ("CoalescePacketRateSampleIntervalSec", "s", 250),
}
OLDEST = 209  # no version known: assume one old enough to know nothing newer


def path_for(ctx: ExportContext) -> Path:
    return ctx.etc / f"systemd/network/10-tuitune-{ctx.ifname}.link"


def _yes(value: str) -> str:
    return "yes" if value == "on" else "no"


def _features(
    changes: list[Change], device: Mapping[Key, str], version: int, out: Generated
) -> list[tuple[str, str, list[Change]]]:
    """(.link key, yes/no, the changes it carries) for the feature changes a key can say
    exactly: a key that sets several features needs all of them to end up the same."""
    ifname = changes[0].key.ifname if changes else ""
    wanted = {k.name: v for k, v in device.items() if k.kind == "feature" and k.ifname == ifname}
    wanted.update({c.key.name: c.current for c in changes})
    lines = []
    for link_key, (pattern, since) in FEATURES.items():
        mine = [c for c in changes if fnmatch.fnmatchcase(c.key.name, pattern)]
        if not mine:
            continue
        if version < since:
            for c in mine:
                out.left_out[c.key] = f".link: {link_key}= needs systemd {since}"
            continue
        values = {wanted[n] for n in wanted if fnmatch.fnmatchcase(n, pattern)}
        if len(values) > 1:
            for c in mine:
                out.left_out[c.key] = (
                    f".link: {link_key}= sets every {pattern} feature at once, and they "
                    "differ (the udev rules set them one by one)"
                )
            continue
        lines.append((link_key, _yes(mine[0].current), mine))
    for c in changes:
        if not any(c in m for _, _, m in lines) and c.key not in out.left_out:
            out.left_out[c.key] = f".link has no key for {c.key.name} (the udev rules set it)"
    return lines


def generate(changes: Sequence[Change], ctx: ExportContext, check: Checker) -> Generated:
    out = Generated()
    mine = [c for c in changes if c.key.ifname == ctx.ifname and c.key.kind != "irq_affinity"]
    if not mine:
        return out
    version = ctx.systemd_version or OLDEST
    kind, check_match = {
        "path": ("Path", safe.id_path),
        "mac": ("MACAddress", safe.mac),
        "name": ("OriginalName", safe.ifname),
        "driver": ("Driver", safe.driver),
    }[ctx.match.kind]
    match_line = f"{kind}={check(check_match, ctx.match.value)}"
    body: list[str] = []
    for c in mine:
        k = c.key
        if k.kind in ("rps_cpus", "xps_cpus", "rps_flow_cnt"):
            out.left_out[k] = f".link cannot set {k.kind} (the udev rules do)"
            continue
        if k.kind == "feature":
            continue
        spec = FIELDS.get((k.kind, k.name))
        if spec is None:
            out.left_out[k] = f".link has no key for {k.label}"
            continue
        link_key, unit, since = spec
        if version < since:
            out.left_out[k] = f".link: {link_key}= needs systemd {since}, this host has {version}"
            continue
        if unit == "bool":
            value = check(safe.switch, k, c.current)
            value = None if value is None else _yes(value)
        else:
            value = check(safe.count, k, c.current)
            value = None if value is None else value + unit
        if value is not None:
            body += [f"# {k.label}: {was(c)}", f"{link_key}={value}"]
            out.covered.add(k)
    feats = by_kind(mine, "feature")
    for c in feats:
        check(safe.feature, c.key)
    for link_key, value, carried in _features(feats, ctx.device, version, out):
        body += [f"# {c.key.label}: {was(c)}" for c in carried] + [f"{link_key}={value}"]
        out.covered.update(c.key for c in carried)
    if not out.covered:
        return out
    lines = [
        f"# systemd .link file for {where(ctx)}: the settings tuitune changed that .link can say",
        f"# (systemd {version}). {written_by(ctx)}.",
        "# udev applies the first matching .link file only, when the device is added; by hand:",
        f"#   udevadm test-builtin net_setup_link /sys/class/net/{ctx.ifname}",
        f"# The udev rules 90-tuitune-{ctx.ifname}.rules, if installed too, set the same values",
        "# later in the same event (this file is applied from 80-net-setup-link.rules): where",
        "# the two ever differ, the rules' value is the one that stays.",
        mark("link", ctx),
        "",
        "[Match]",
        match_line,
        "",
        "[Link]",
        "# Kept from 99-default.link, which this file replaces for this device:",
        *(ctx.link_policy or DEFAULT_POLICY),
        *body,
    ]
    warnings = [ctx.match.warning] if ctx.match.warning else []
    if ctx.match.kind == "path" and ctx.match.dev_port is not None:
        warnings.append(
            f"{ctx.match.value} carries several interfaces; .link cannot tell ports apart, so "
            "this file applies to all of them (the udev rules match the port)"
        )
    if ctx.systemd_version is None:
        warnings.append(f"systemd version unknown: only keys systemd {OLDEST} knows are used")
    text = "\n".join(lines) + "\n"
    out.files.append(ExportFile("link", path_for(ctx), text, warnings=tuple(warnings)))
    return out


def parse(text: str, ifname: str, device: Mapping[Key, str]) -> list[tuple[Key, str, int]]:
    """(key, canonical value, line) of each setting in a .link file tuitune wrote."""
    by_key = {spec[0]: (kind, name, spec[1]) for (kind, name), spec in FIELDS.items()}
    out: list[tuple[Key, str, int]] = []
    for n, section, name, value in ini_settings(text):
        if section != "[Link]":
            continue
        if name in FEATURES:
            pattern = FEATURES[name][0]
            members = [
                k for k in device if k.kind == "feature" and fnmatch.fnmatchcase(k.name, pattern)
            ]
            members = members or [Key.feature(ifname, pattern)]
            on = "on" if value in ("yes", "true", "1", "on") else "off"
            out += [(k, on, n) for k in members]
        elif name in by_key:
            kind, field, unit = by_key[name]
            if unit == "bool":
                value = "on" if value in ("yes", "true", "1", "on") else "off"
            elif unit:
                value = value.removesuffix(unit)
            out.append((Key(kind, ifname, field), value, n))  # type: ignore[arg-type]
    return out
