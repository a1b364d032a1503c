"""NetworkManager: the [ethtool] (and [ethernet] mtu) settings of the interface's connection
profile, for hosts where NetworkManager owns the interface and would reapply its own profile.

NetworkManager keeps ethtool settings per connection profile, not per device, so tuitune does
not write a profile of its own (a second profile for the device would compete with the user's
IP configuration). Where NetworkManager runs, the export is an `nmcli connection modify`
script for the device's current connection; elsewhere (as here, when it is not installed) it
is the keyfile sections to merge into the profile. Either way nothing is installed: the
user runs or merges it.
"""

from __future__ import annotations

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
from tuitune.core.session.kinds import safe
from tuitune.core.session.kinds.safe import Checker
from tuitune.core.session.kinds.table import handler
from tuitune.core.session.settings import Key

# Kernel feature -> NetworkManager option, where NM does not just prefix "feature-".
FEATURE_ALIASES = {
    "rx-gro": "gro",
    "tx-generic-segmentation": "gso",
    "rx-lro": "lro",
    "rx-ntuple-filter": "ntuple",
    "rx-checksum": "rx",
    "rx-hashing": "rxhash",
    "rx-vlan-hw-parse": "rxvlan",
    "tx-vlan-hw-insert": "txvlan",
}
# Kernel features NetworkManager knows under their own name ("feature-" + name).
FEATURES_AS_IS = frozenset(
    (
        "esp-hw-offload",
        "esp-tx-csum-hw-offload",
        "fcoe-mtu",
        "highdma",
        "hw-tc-offload",
        "l2-fwd-offload",
        "loopback",
        "macsec-hw-offload",
        "rx-all",
        "rx-fcs",
        "rx-gro-hw",
        "rx-gro-list",
        "rx-udp-gro-forwarding",
        "rx-udp_tunnel-port-offload",
        "rx-vlan-filter",
        "rx-vlan-stag-filter",
        "rx-vlan-stag-hw-parse",
        "tls-hw-record",
        "tls-hw-rx-offload",
        "tls-hw-tx-offload",
        "tx-checksum-fcoe-crc",
        "tx-checksum-ip-generic",
        "tx-checksum-ipv4",
        "tx-checksum-ipv6",
        "tx-checksum-sctp",
        "tx-esp-segmentation",
        "tx-fcoe-segmentation",
        "tx-gre-csum-segmentation",
        "tx-gre-segmentation",
        "tx-gso-list",
        "tx-gso-partial",
        "tx-gso-robust",
        "tx-ipxip4-segmentation",
        "tx-ipxip6-segmentation",
        "tx-nocache-copy",
        "tx-scatter-gather",
        "tx-scatter-gather-fraglist",
        "tx-sctp-segmentation",
        "tx-tcp-ecn-segmentation",
        "tx-tcp-mangleid-segmentation",
        "tx-tcp-segmentation",
        "tx-tcp6-segmentation",
        "tx-tunnel-remcsum-segmentation",
        "tx-udp-segmentation",
        "tx-udp_tnl-csum-segmentation",
        "tx-udp_tnl-segmentation",
        "tx-vlan-stag-hw-insert",
    )
)
GROUP_PREFIX = {
    "ring": "ring-",
    "coalesce": "coalesce-",
    "pause": "pause-",
    "channels": "channels-",
}
COALESCE_FLAGS = ("adaptive-rx", "adaptive-tx")  # integers 0/1 in a keyfile, not booleans
Setting = tuple[str, str, str, Change]  # (section, option, value, the change)


def option(key: Key) -> str | None:
    """The NetworkManager [ethtool] option of a setting, or None when it has none."""
    if words_of(key.kind) == "feature":
        if key.name in FEATURE_ALIASES:
            return "feature-" + FEATURE_ALIASES[key.name]
        return "feature-" + key.name if key.name in FEATURES_AS_IS else None
    prefix = GROUP_PREFIX.get(key.kind)
    if prefix is None or (key.kind == "coalesce" and key.name.startswith(("cqe-", "tx-aggr"))):
        return None
    return prefix + key.name


def _keyfile_value(c: Change, check: Checker) -> str | None:
    k = c.key
    if handler(k.kind).form(k) != "switch":
        return check(safe.count, k, c.current)
    v = check(safe.switch, k, c.current)
    if v is None or k.kind == "coalesce":  # a keyfile's coalescing flags are integers
        return None if v is None else str(int(v == "on"))
    return "true" if v == "on" else "false"


def path_for(ctx: ExportContext, nmcli: bool) -> Path:
    name = f"nm-{ctx.ifname}.sh" if nmcli else f"nm-{ctx.ifname}.keyfile"
    return ctx.etc / "tuitune" / name


def generate(changes: Sequence[Change], ctx: ExportContext, check: Checker) -> Generated:
    out = Generated()
    mine = [c for c in changes if c.key.ifname == ctx.ifname and c.key.kind != "irq_affinity"]
    settings: list[Setting] = []
    for c in by_kind(mine, "mtu", "channels", "ring", "coalesce", "pause", "feature"):
        k = c.key
        if k.kind == "mtu":
            value = check(safe.count, k, c.current)
            if value is not None:
                settings.append(("ethernet", "mtu", value, c))
            continue
        check(word_check(k.kind), k)
        name = option(k)
        if name is None:
            out.left_out[k] = f"NetworkManager has no option for {k.label}"
            continue
        value = _keyfile_value(c, check)
        if value is not None:
            settings.append(("ethtool", name, value, c))
    for c in mine:
        if c.key.kind in ("rps_cpus", "xps_cpus", "rps_flow_cnt", "txqueuelen"):
            out.left_out[c.key] = f"NetworkManager cannot set {c.key.label} (the udev rules do)"
    if not settings:
        return out
    out.covered.update(c.key for *_, c in settings)
    nmcli = ctx.network_manager
    head = heading("NetworkManager settings", ctx, "what tuitune changed that NM can say")
    text = _nmcli_script(ctx, head, settings) if nmcli else _keyfile(ctx, head, settings)
    notes = [
        "NetworkManager keeps these per connection profile: "
        + ("run the script" if nmcli else "merge the sections into the device's profile")
        + "; tuitune does not install it"
    ]
    if any(c.key.kind == "channels" for *_, c in settings):
        notes.append("channels-* options need NetworkManager 1.46 or newer")
    out.files.append(
        ExportFile(
            "nm",
            path_for(ctx, nmcli),
            text,
            mode=0o755 if nmcli else 0o644,
            notes=tuple(notes),
            installable=False,
        )
    )
    return out


def _keyfile(ctx: ExportContext, head: list[str], settings: list[Setting]) -> str:
    lines = [
        *head,
        "# NetworkManager is not running here: merge these sections into the connection profile",
        f"# of {ctx.ifname} (/etc/NetworkManager/system-connections/NAME.nmconnection), then",
        "# `nmcli connection reload`; they apply at the next activation of that connection.",
        mark("nm", ctx),
    ]
    for section in ("ethernet", "ethtool"):
        rows = [(o, v, c) for s, o, v, c in settings if s == section]
        if rows:
            lines += ["", f"[{section}]"]
            for opt, value, c in rows:
                lines += [f"# {c.key.label}: {was(c)}", f"{opt}={value}"]
    return "\n".join(lines) + "\n"


def _nmcli_script(ctx: ExportContext, head: list[str], settings: list[Setting]) -> str:
    args = []
    for section, opt, value, _ in settings:
        shown = (
            value
            if section == "ethernet" or value not in ("true", "false")
            else ("on" if value == "true" else "off")
        )
        args.append(f"    {section}.{opt} {shown} \\")
    lines = [
        "#!/bin/sh",
        *head,
        "# NetworkManager runs here: this sets them on the connection that has the device now;",
        "# they apply at its next activation (`nmcli connection up NAME` applies them now, and",
        "# takes the link down for a moment).",
        mark("nm", ctx),
        "set -e",
        f"conn=$(nmcli -g GENERAL.CONNECTION device show {ctx.ifname})",
        f'[ -n "$conn" ] || {{ echo "{ctx.ifname}: no NetworkManager connection" >&2; exit 1; }}',
        'nmcli connection modify "$conn" \\',
        *args,
    ]
    lines[-1] = lines[-1].removesuffix(" \\")
    return "\n".join(lines) + "\n"


def parse(text: str, ifname: str) -> list[tuple[Key, str, int]]:
    """(key, canonical value, line) of the [ethernet] mtu and [ethtool] options of a keyfile."""
    by_option: dict[str, tuple[str, str]] = {}
    for alias_of, alias in FEATURE_ALIASES.items():
        by_option["feature-" + alias] = ("feature", alias_of)
    for name in FEATURES_AS_IS:
        by_option["feature-" + name] = ("feature", name)
    out: list[tuple[Key, str, int]] = []
    for n, section, opt, value in ini_settings(text):
        if section == "[ethernet]" and opt == "mtu":
            out.append((Key.mtu(ifname), value, n))
        elif section == "[ethtool]":
            if opt in by_option:
                out.append((Key.feature(ifname, by_option[opt][1]), _switch(value), n))
                continue
            for kind, prefix in GROUP_PREFIX.items():
                if opt.startswith(prefix):
                    field = opt[len(prefix) :]
                    if kind == "coalesce" and field in COALESCE_FLAGS:
                        value = "on" if value == "1" else "off"
                    elif kind == "pause":
                        value = _switch(value)
                    out.append((Key(kind, ifname, field), value, n))  # type: ignore[arg-type]
    return out


def _switch(value: str) -> str:
    return "on" if value.lower() in ("true", "yes", "1", "on") else "off"
