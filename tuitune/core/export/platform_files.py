"""The platform's changes as files (issue 32): driver module parameters as a modprobe.d file,
CPU power (governor, EPP, C-state `disable`, boost/no_turbo) as a systemd oneshot unit.

Module parameters: one `options MODULE p=v ...` line per module in
`/etc/modprobe.d/90-tuitune-MODULE.conf` (modprobe.d(5)), read when the module loads. A NIC
driver is often loaded from the initramfs, before the root file system holds this file: the
file says to rebuild it (update-initramfs -u, dracut -f).

CPU power: a systemd unit, not a tuned `[cpu]` fragment. tuned's cpu plugin sets one governor,
EPP and energy_perf_bias for every CPU of an instance and has no per-CPU, per-state `disable`
(it bounds C-states by latency, force_latency / PM QoS, instead); a tuned fragment also only
takes effect in the one active tuned profile, which tuitune would have to own. The unit writes
exactly the values the journal holds, each to its sysfs file (cpufreq policyN
`scaling_governor` and `energy_performance_preference`, Documentation/admin-guide/pm/cpufreq.rst
and intel_pstate.rst; `cpuN/cpuidle/stateM/disable`, Documentation/admin-guide/pm/cpuidle.rst),
governor first since a governor change may move the EPP. Not from the seeds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tuitune.core.export.common import mark, was, written_by
from tuitune.core.export.context import ExportContext
from tuitune.core.export.model import Change, ExportFile, Generated
from tuitune.core.session.kinds.boost import FILES as BOOST_FILES
from tuitune.core.session.kinds.safe import Checker, UnsafeValue, comment
from tuitune.core.session.settings import CPU_POWER_KINDS, Key

UNIT = "tuitune-cpu-power.service"
_MODULE = re.compile(r"([A-Za-z0-9_]{1,64})/([A-Za-z0-9_]{1,64})")
# A module parameter's value on an `options` line: no spaces, quotes or comment marks (the
# line is split on white space), as the kernel's own bool, int, charp and array forms are.
_PARAM_VALUE = re.compile(r"[A-Za-z0-9_.,:+/-]{1,256}")
_POLICY = re.compile(r"policy[0-9]{1,5}")
_STATE = re.compile(r"cpu([0-9]{1,5})/state([0-9]{1,3})")
_WORD = re.compile(r"[a-z_]{1,32}")
_FILE = {"cpu_governor": "scaling_governor", "cpu_epp": "energy_performance_preference"}


def modprobe_path(ctx: ExportContext, module: str) -> Path:
    return ctx.etc / f"modprobe.d/90-tuitune-{module}.conf"


def unit_path(ctx: ExportContext) -> Path:
    return ctx.etc / f"systemd/system/{UNIT}"


def _module_param(key: Key, value: str) -> tuple[str, str, str]:
    m = _MODULE.fullmatch(key.name)
    if m is None:
        raise UnsafeValue(f"{comment(key.label)}: not MODULE/PARAMETER")
    if _PARAM_VALUE.fullmatch(value) is None:
        raise UnsafeValue(f"{comment(key.label)}: {comment(value)!r} cannot go on an options line")
    return m.group(1), m.group(2), value


def modprobe(changes: Sequence[Change], ctx: ExportContext, check: Checker) -> Generated:
    out = Generated()
    by_module: dict[str, list[tuple[Change, str, str]]] = {}
    for c in changes:
        if c.key.kind != "module_param":
            continue
        got = check(_module_param, c.key, c.current)
        if got is not None:
            by_module.setdefault(got[0], []).append((c, got[1], got[2]))
    for module, params in sorted(by_module.items()):
        lines = [
            f"# modprobe.d(5) options for the {module} driver: the parameters tuitune changed.",
            f"# {written_by(ctx)}.",
            "# Read when the module loads; the values are live already. A NIC driver is often",
            "# loaded from the initramfs: rebuild it (update-initramfs -u, or dracut -f) so",
            "# these are in force at boot, or reload the module (it takes the link down).",
            mark("modprobe", ctx),
            "",
        ]
        lines += [f"# {p}: {was(c)}" for c, p, _ in params]
        lines.append(f"options {module} " + " ".join(f"{p}={v}" for _, p, v in params))
        out.files.append(
            ExportFile("modprobe", modprobe_path(ctx, module), "\n".join(lines) + "\n")
        )
        out.covered.update(c.key for c, _, _ in params)
    return out


def _sysfs_write(key: Key, value: str) -> tuple[str, str]:
    """(sysfs path, value) of a CPU power key, or UnsafeValue."""
    if key.kind == "cpu_boost":
        got = BOOST_FILES.get(key.name or "")
        if got is None or value not in ("on", "off"):
            raise UnsafeValue(f"{comment(key.label)}: not boost/no_turbo set to on or off")
        digit = "1" if (value == "on") == got[1] else "0"
        return f"/sys/devices/system/cpu/{got[0]}", digit
    if key.kind == "cstate_disable":
        m = _STATE.fullmatch(key.name)
        if m is None or value not in ("0", "1"):
            raise UnsafeValue(f"{comment(key.label)}: not cpuN/stateM set to 0 or 1")
        rel = f"cpu{m.group(1)}/cpuidle/state{m.group(2)}/disable"
        return f"/sys/devices/system/cpu/{rel}", value
    if _POLICY.fullmatch(key.name) is None or _WORD.fullmatch(value) is None:
        raise UnsafeValue(f"{comment(key.label)}: {comment(value)!r} is not a policy's word")
    return f"/sys/devices/system/cpu/cpufreq/{key.name}/{_FILE[key.kind]}", value


def cpu_unit(changes: Sequence[Change], ctx: ExportContext, check: Checker) -> Generated:
    out = Generated()
    order = {k: i for i, k in enumerate(CPU_POWER_KINDS)}  # governor before its EPP
    chosen = sorted(
        (c for c in changes if c.key.kind in order),
        key=lambda c: (order[c.key.kind], c.key.name),
    )
    writes = []
    for c in chosen:
        got = check(_sysfs_write, c.key, c.current)
        if got is not None:
            writes.append((c, *got))
    if not writes:
        return out
    lines = [
        f"# systemd unit: the CPU power settings tuitune changed on {comment(ctx.host)}.",
        f"# {written_by(ctx)}.",
        "# Each line writes one value to its sysfs file at boot, as the session did (a '-'",
        "# lets the others run when a CPU or its cpufreq policy is absent). Enable it with",
        f"#   systemctl daemon-reload && systemctl enable {UNIT}",
        mark("cpu", ctx),
        "",
        "[Unit]",
        "Description=tuitune: CPU power settings (governor, EPP, C-states, boost)",
        "After=systemd-modules-load.service",
        "",
        "[Service]",
        "Type=oneshot",
        "RemainAfterExit=yes",
    ]
    for c, path, value in writes:
        lines.append(f"# {comment(c.key.label)}: {was(c)}")
        lines.append(f"ExecStart=-/bin/sh -c 'echo {value} > {path}'")
    lines += ["", "[Install]", "WantedBy=multi-user.target"]
    out.files.append(ExportFile("cpu", unit_path(ctx), "\n".join(lines) + "\n"))
    out.covered.update(c.key for c, _, _ in writes)
    return out


_EXEC = re.compile(r"ExecStart=-?/bin/sh -c 'echo (\S+) > (/sys/devices/system/cpu/\S+)'")
_OPTIONS = re.compile(r"options\s+([A-Za-z0-9_]+)\s+(.*)")


def parse(text: str) -> list[tuple[Key, str, int]]:
    """(key, value, line) of each setting in a modprobe.d file or CPU unit tuitune wrote."""
    out: list[tuple[Key, str, int]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        m = _OPTIONS.fullmatch(line)
        if m is not None:
            for word in m.group(2).split():
                param, _, value = word.partition("=")
                out.append((Key.module_param(m.group(1), param), value, n))
            continue
        e = _EXEC.fullmatch(line)
        if e is None:
            continue
        rel = e.group(2).removeprefix("/sys/devices/system/cpu/")
        parts = rel.split("/")
        if len(parts) == 3 and parts[0] == "cpufreq":
            maker = Key.cpu_governor if parts[2] == "scaling_governor" else Key.cpu_epp
            out.append((replace(maker(0), name=parts[1]), e.group(1), n))
        elif len(parts) == 2 and parts[0] in ("cpufreq", "intel_pstate"):
            name = parts[1]
            if name in BOOST_FILES and e.group(1) in ("0", "1"):
                on = (e.group(1) == "1") == BOOST_FILES[name][1]
                out.append((Key.cpu_boost(name), "on" if on else "off", n))
        elif len(parts) == 4 and parts[1] == "cpuidle":
            name = f"{parts[0]}/{parts[2]}"
            out.append((Key("cstate_disable", None, name), e.group(1), n))
    return out
