"""The platform as rows (for `show` and the screen's Host view) and as JSON (`show --json`),
in ESnet's order: BIOS/platform, firmware, driver, NIC. Each row names the catalog help it
opens; every text from the host goes through the one sanitiser (`printable`): a --root tree's
governor name or a module parameter's value is another user's text.
"""

from __future__ import annotations

from typing import Any

from tuitune.core.advise.thresholds import CSTATE_DEEP_US
from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.cpupower import (
    CpuPower,
    FreqPolicy,
    entered_deep_states,
    read_cpu_power,
    read_smt,
)
from tuitune.core.host.ethtool import DriverInfo
from tuitune.core.host.module_eeprom import Optics, dbm
from tuitune.core.host.pcie import PciFunction
from tuitune.core.host.platform import DriverPlatform, Platform, read_iommu
from tuitune.core.host.root import HostRoot

# SECTIONS and Row: kinds/hostrow.py's (a kind's handler writes its own rows); Row is still
# found here, where the screen and the Host view's edits have always imported it.
from tuitune.core.session.kinds.hostrow import SECTIONS as SECTIONS
from tuitune.core.session.kinds.hostrow import Row as Row
from tuitune.core.session.kinds.hostrow import shown, state_text
from tuitune.core.session.kinds.showform import PARTS_HERE, ShowSource, drop_mark, place
from tuitune.core.session.kinds.table import host_rows, show_parts
from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import HostState, NicState

_p, _state = shown, state_text


def _cpus(c: frozenset[int]) -> str:
    return format_cpulist(c) or "-"


def _mhz(khz: int | None) -> str:
    return "?" if khz is None else f"{khz // 1000}"


def _held_by(cpu: CpuPower) -> str:
    if cpu.latency_holders is None:
        return ""
    procs, complete = cpu.latency_holders
    names = ", ".join(f"{_p(comm)}[{pid}]" for pid, comm in procs[:4])
    if len(procs) > 4:
        names += f" and {len(procs) - 4} more"
    if not complete:
        names = f"{names}, /proc not all searched" if names else "/proc not all searched"
    return f", held by {names}" if names else ", held by no process found"


def _resume(text: str) -> str:
    # drivers/base/power/sysfs.c shows "0" for no limit and "n/a" for a zero one.
    return {"0": "no limit", "n/a": "0 us (no C-state allowed)"}.get(text, f"{_p(text)} us")


def _freq_now(p: FreqPolicy) -> str:
    now = f"governor {_p(p.governor)}" if p.governor else ""
    return f"{now} epp {_p(p.epp)}".strip() if p.epp else now


def _cpu_rows(cpu: CpuPower) -> list[Row]:
    s, rows = SECTIONS[0], []
    if isinstance(cpu.freq, Unavailable):
        rows.append(Row(s, "CPU frequency", _state(cpu.freq), "cpu-power", True))
    else:
        for g in cpu.freq:
            p = g.policy
            text = f"cpus {_cpus(g.cpus)}: {_p(p.driver or '?')} {_p(p.governor or '?')}"
            if p.epp:
                text += f" EPP {_p(p.epp)}"
            if p.epb:
                text += f" EPB {_p(p.epb)}"
            text += f", {_mhz(p.min_khz)}-{_mhz(p.max_khz)} MHz of {_mhz(p.hw_max_khz)}"
            if g.cur_khz:
                text += f", now {_mhz(g.cur_khz[0])}-{_mhz(g.cur_khz[1])}"
            edit = "cpu_freq" if p.governor else None
            rows.append(
                Row(s, "CPU frequency", text, "cpu-power", False, edit, g.cpus, _freq_now(p))
            )
    if cpu.boost is not None:
        rows.append(
            Row(s, "boost/turbo", cpu.boost, "cpu-power", False, "cpu_boost", now=cpu.boost)
        )
    else:
        rows.append(
            Row(
                s,
                "boost/turbo",
                "no boost control here (no cpufreq/boost, no intel_pstate/no_turbo)",
                "cpu-power",
                True,
            )
        )
    if isinstance(cpu.idle, Unavailable):
        rows.append(Row(s, "C-states", _state(cpu.idle), "cpu-power", True))
    else:
        drv = cpu.idle_driver if isinstance(cpu.idle_driver, str) else "?"
        for ig in cpu.idle:
            states = " ".join(
                f"{_p(st.name)}({st.latency_us}us{' off' if st.disabled else ''})"
                for st in ig.states
            )
            now = " ".join(
                f"{_p(st.name)} {'off' if st.disabled else 'on'}"
                for st in ig.states
                if st.disabled is not None
            )
            text = f"cpus {_cpus(ig.cpus)} {_p(drv)}: {states}"
            rows.append(Row(s, "C-states", text, "cpu-power", False, "cstate", ig.cpus, now))
    req = cpu.latency_request
    if isinstance(req, Unavailable):
        rows.append(Row(s, "PM QoS request", _state(req), "pm-qos", True))
    else:
        text = (
            "none in force"
            if req is None
            else f"{req} us{_held_by(cpu)}: no C-state slower to leave"
        )
        rows.append(Row(s, "PM QoS request", text + " (/dev/cpu_dma_latency)", "pm-qos"))
    if cpu.resume_latency:
        text = "; ".join(f"cpus {_cpus(c)}: {_resume(v)}" for c, v in cpu.resume_latency)
        rows.append(Row(s, "PM QoS resume", text, "pm-qos"))
    return rows


def _pcie_rows(chain: tuple[PciFunction, ...] | Unavailable) -> list[Row]:
    s = SECTIONS[0]
    if isinstance(chain, Unavailable):
        return [Row(s, "PCIe", _state(chain), "pcie-link", True)]
    rows = []
    for fn in chain:
        who = f"{fn.bdf} {'NIC' if fn.role == 'nic' else 'bridge'}"
        speeds = (fn.speed, fn.max_speed, fn.width, fn.max_width)
        if all(isinstance(x, str) for x in speeds):
            link = f"{_p(fn.speed)} x{_p(fn.width)} of {_p(fn.max_speed)} x{_p(fn.max_width)}"
        else:
            link = "no link attributes"
        c = fn.caps
        if c is not None and c.pcie:
            link += f"; MPS {c.mps}/{c.mps_supported} MRRS {c.mrrs}"
            link += f" RlxOrd{'+' if c.relaxed_ordering else '-'} ASPM {c.aspm_enabled}"
        else:
            link += f"; {_p(fn.config_note)}"
        rows.append(Row(s, f"PCIe {who}", link, "pcie-link"))
    nic = chain[0]
    if nic.aspm_policy:
        rows.append(Row(s, "ASPM policy", _p(nic.aspm_policy), "pcie-link"))
    return rows


def platform_rows(
    platform: Platform, host: HostState | None = None, nic: NicState | None = None
) -> list[Row]:
    """The frame's rows, section by section, and each kind's own (`host_rows`, from its read
    of the interface) at the end of its section."""
    rows = _frame_rows(platform, host, nic)
    for row in host_rows(platform):
        at = SECTIONS.index(row.section)
        end = max((i + 1 for i, r in enumerate(rows) if SECTIONS.index(r.section) <= at), default=0)
        rows.insert(end, row)
    return rows


def _frame_rows(platform: Platform, host: HostState | None, nic: NicState | None) -> list[Row]:
    s0, s1, s2, s3 = SECTIONS
    rows = _cpu_rows(platform.cpu)
    smt = platform.smt
    smt_text = (
        _state(smt.control)
        if isinstance(smt.control, Unavailable)
        else f"{_p(smt.control)}, {'active' if smt.active else 'not active'}"
    )
    switchable = "smt" if smt.control in ("on", "off") else None
    refused = isinstance(smt.control, Unavailable)
    rows.append(Row(s0, "SMT", smt_text, "smt", refused, switchable))
    rows.extend(_pcie_rows(platform.pcie))
    io = platform.iommu
    io_text = {True: "on", False: "off", None: "not read"}[io.enabled]
    if io.group is not None:
        io_text += f"; NIC group {io.group} type {_p(io.domain_type or '?')}"
    if io.cmdline:
        io_text += f"; cmdline {_p(' '.join(io.cmdline))}"
    rows.append(Row(s0, "IOMMU", io_text, "iommu"))
    words = cmdline_suggestions(platform)
    for text in words:
        rows.append(Row(s0, "cmdline (printed only)", text, "kernel-cmdline"))
    if not words:  # the row stays, so its help (what only a boot changes) is always reachable
        rows.append(Row(s0, "cmdline (printed only)", "nothing to suggest", "kernel-cmdline", True))
    if host is not None:
        ib = host.irqbalance
        rows.append(Row(s0, "irqbalance", "running" if ib.running else "not running", "irqbalance"))
    d = nic.driver if nic is not None else None
    if isinstance(d, DriverInfo):
        rows.append(Row(s1, "firmware", _p(d.firmware or "-"), "driver-firmware"))
    drv = platform.driver
    if isinstance(d, DriverInfo):
        rows.append(Row(s2, "driver", f"{_p(d.driver)} {_p(d.version)}", "driver-firmware"))
    params = drv.params
    if isinstance(params, Unavailable):
        rows.append(Row(s2, "module params", _state(params), "module-params", True))
    else:
        text = " ".join(
            f"{_p(p.name)}={_state(p.value) if isinstance(p.value, Unavailable) else _p(p.value)}"
            + ("*" if p.writable else "")
            for p in params
        )
        writable = [p for p in params if p.writable and isinstance(p.value, str)]
        rw = "module_param" if writable else None
        now = " ".join(f"{_p(p.name)} {_p(p.value)}" for p in writable)
        label = f"{_p(drv.module)} params (*rw)"
        rows.append(Row(s2, label, text or "none", "module-params", False, rw, now=now))
    flags = drv.priv_flags
    if isinstance(flags, Unavailable):
        rows.append(Row(s2, "private flags", _state(flags), "private-flags", True))
    else:
        text = " ".join(f"{_p(n)} {'on' if v else 'off'}" for n, v in flags)
        rows.append(
            Row(s2, "private flags", text, "private-flags", False, "priv_flag" if flags else None)
        )
    if not isinstance(platform.pcie, Unavailable):
        fn = platform.pcie[0]
        table = fn.caps.msix_table if fn.caps is not None else None
        used = "?" if fn.msix_used is None else str(fn.msix_used)
        rows.append(
            Row(s2, "MSI-X vectors", f"{used} in use" + (f" of {table}" if table else ""), "msi-x")
        )
    if nic is not None:
        ch = nic.channels
        q = (
            _state(ch)
            if isinstance(ch, Unavailable)
            else (f"{ch.combined} combined, {ch.rx} rx, {ch.tx} tx")
        )
        rows.append(Row(s3, "queues", q, "msi-x", isinstance(ch, Unavailable)))
    optics = drv.optics
    if isinstance(optics, Unavailable):
        rows.append(Row(s3, "optics", _state(optics), "optics", True))
    else:
        rows.append(Row(s3, "optics", optics_text(optics), "optics"))
    return rows


def _mw(mw: float) -> str:
    return f"{mw:.4f} mW ({dbm(mw):.1f} dBm)"


def optics_text(o: Optics) -> str:
    """One line: what the module is, then its diagnostics (sanitised: the module's strings)."""
    head = f"{_p(o.identifier)} {_p(o.vendor)} {_p(o.part)}".strip()
    if o.wavelength_nm:
        head += f" {o.wavelength_nm} nm"
    parts = [head]
    if o.temperature_c is not None:
        parts.append(f"{o.temperature_c:.1f} C")
    if o.rx_power_mw:
        parts.append("rx " + ", ".join(_mw(v) for v in o.rx_power_mw))
    if o.tx_power_mw:
        parts.append("tx " + ", ".join(_mw(v) for v in o.tx_power_mw))
    if o.rx_low_warn_mw is not None:
        parts.append(f"rx low warning {_mw(o.rx_low_warn_mw)}")
    if o.note:
        parts.append(_p(o.note))
    return "; ".join(parts)


def optics_json(o: Optics | Unavailable) -> dict[str, Any]:
    if isinstance(o, Unavailable):
        return {"unavailable": o.kind, "reason": o.reason}
    return {
        "standard": o.standard,
        "identifier": o.identifier,
        "vendor": o.vendor,
        "part": o.part,
        "serial": o.serial,
        "wavelength_nm": o.wavelength_nm,
        "temperature_c": o.temperature_c,
        "voltage_v": o.voltage_v,
        "tx_power_mw": list(o.tx_power_mw),
        "rx_power_mw": list(o.rx_power_mw),
        "rx_low_alarm_mw": o.rx_low_alarm_mw,
        "rx_low_warn_mw": o.rx_low_warn_mw,
        "note": o.note or None,
    }


def cmdline_suggestions(platform: Platform) -> list[str]:
    """Kernel command line words for what only a boot changes, each with its reason: printed,
    never written (the bootloader is the administrator's). From the kernel's
    kernel-parameters documentation, not the seeds."""
    out = []
    io = platform.iommu
    if io.domain_type in ("DMA", "DMA-FQ"):
        out.append(
            f"iommu=pt (or iommu.passthrough=1): the NIC's DMA is translated ({io.domain_type}); "
            "passthrough maps it one to one, giving up the device's isolation"
        )
    if entered_deep_states(platform.cpu, CSTATE_DEEP_US):
        driver = platform.cpu.idle_driver
        word = "intel_idle.max_cstate=1" if driver == "intel_idle" else "processor.max_cstate=1"
        out.append(
            f"{word}: deep C-states are enabled; this keeps every CPU out of them from boot "
            "(cpuidle's disable files do it per CPU at run time)"
        )
    smt = platform.smt
    if smt.control == "on" and smt.active:
        out.append(
            "nosmt: SMT is on; this boots with one thread per core (smt/control at run "
            "time does the same, offlining the siblings)"
        )
    return out


def boot_words(root: HostRoot, ifname: str) -> list[str]:
    """`cmdline_suggestions` from only the reads they need (CPU power, SMT, the NIC's IOMMU
    group), for `export`'s notes: the files it writes cannot carry a boot parameter."""
    none = Unavailable("missing", "not read")
    plat = Platform(
        cpu=read_cpu_power(root),
        smt=read_smt(root),
        pcie=none,
        iommu=read_iommu(root, ifname),
        driver=DriverPlatform(None, none, none),
    )
    return cmdline_suggestions(plat)


def platform_json(platform: Platform) -> dict[str, Any]:
    """The `platform` object of `show --json` (docs/json-schema.md): its report here, the
    settings' parts (CPU power's frequency, boost and idle groups, SMT, module parameters,
    private flags, FEC) from their handlers' `show_json`."""

    def st(v: object) -> Any:
        if isinstance(v, Unavailable):
            return {"unavailable": v.kind, "reason": v.reason}
        return v

    cpu = platform.cpu
    pcie: Any = st(platform.pcie)
    if not isinstance(platform.pcie, Unavailable):
        pcie = []
        for fn in platform.pcie:
            c = fn.caps
            pcie.append(
                {
                    "bdf": fn.bdf,
                    "role": fn.role,
                    "speed": st(fn.speed),
                    "max_speed": st(fn.max_speed),
                    "width": st(fn.width),
                    "max_width": st(fn.max_width),
                    "config_bytes": fn.config_bytes,
                    "config_note": fn.config_note,
                    "pcie_capability": c.pcie if c else None,
                    "mps": c.mps if c else None,
                    "mps_supported": c.mps_supported if c else None,
                    "mrrs": c.mrrs if c else None,
                    "relaxed_ordering": c.relaxed_ordering if c else None,
                    "aspm_supported": c.aspm_supported if c else None,
                    "aspm_enabled": c.aspm_enabled if c else None,
                    "aspm_policy": fn.aspm_policy,
                    "aspm_sysfs": dict(fn.aspm_sysfs),
                    "msix_used": fn.msix_used,
                    "msix_table": c.msix_table if c else None,
                    "iommu_group": fn.iommu_group,
                }
            )
    drv = platform.driver
    io = platform.iommu
    # None: a kind's part, put in below; a kind the frame does not name goes at PARTS_HERE.
    out: dict[str, Any] = {
        "cpu_power": {
            "frequency": None,
            "boost": None,
            "pstate_status": cpu.pstate_status,
            "idle_driver": st(cpu.idle_driver),
            "idle": None,
            "pm_qos_request_us": st(cpu.latency_request),
            "pm_qos_holders": (
                None
                if cpu.latency_holders is None
                else {
                    "processes": [{"pid": p, "comm": c} for p, c in cpu.latency_holders[0]],
                    "complete": cpu.latency_holders[1],
                }
            ),
            "pm_qos_resume_latency_us": {_cpus(c): v for c, v in cpu.resume_latency},
            "pm_qos_note": cpu.pm_qos_note,
        },
        "smt": None,
        "pcie": pcie,
        "iommu": {
            "enabled": io.enabled,
            "units": list(io.units),
            "group": io.group,
            "domain_type": io.domain_type,
            "cmdline": list(io.cmdline),
        },
        "cmdline_suggestions": cmdline_suggestions(platform),
        "driver": {
            "module": drv.module,
            "parameters": None,
            "private_flags": None,
            PARTS_HERE: None,  # the parts of kinds with a platform read of their own
            "module_eeprom": optics_json(drv.optics),
        },
    }
    place(out, show_parts(ShowSource(platform=platform)), ("platform",))
    drop_mark(out["driver"])
    return out
