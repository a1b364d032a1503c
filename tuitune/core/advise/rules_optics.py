"""The plug-in module's receive power against the thresholds its maker wrote into it
(core/host/module_eeprom.py). Not from the seeds: SFF-8472 (SFP, A2h bytes 34-39) and SFF-8636
(QSFP, page 03h) define the values and the thresholds; the judgement is the module's own.

Below the low alarm the receiver is at or past the edge of what it can decode (a finding that
limits the link whatever is tuned above it); below the low warning it is close to it. The fix
is outside the OS (clean or replace the fibre or patch, check the far end's transmitter): no
change is proposed.
"""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise.facts import Facts, Outcome
from tuitune.core.advise.model import Finding, Note, Severity, SourceRef
from tuitune.core.advise.rules_platform import NOT_READ
from tuitune.core.host.module_eeprom import dbm
from tuitune.core.text import printable
from tuitune.core.values import Unavailable


def _mw(mw: float) -> str:
    return f"{mw:.4f} mW ({dbm(mw):.1f} dBm)"


def optics_rx_low(f: Facts) -> Iterator[Outcome]:
    rule = "optics-rx-low"
    if f.platform is None:
        yield Note(rule, NOT_READ)
        return
    o = f.platform.driver.optics
    if isinstance(o, Unavailable):
        yield Note(rule, f"module EEPROM: {o.reason}")
        return
    if not o.rx_power_mw or (o.rx_low_warn_mw is None and o.rx_low_alarm_mw is None):
        yield Note(rule, "the module gives no receive power or no thresholds: nothing to judge")
        return
    alarm, warn = o.rx_low_alarm_mw, o.rx_low_warn_mw
    low = []
    severity: Severity = "risk"
    for lane, mw in enumerate(o.rx_power_mw, 1):
        if alarm is not None and mw < alarm:
            severity = "bottleneck"
            low.append((lane, mw, "low alarm"))
        elif warn is not None and mw < warn:
            low.append((lane, mw, "low warning"))
    if not low:
        return
    name = printable(f"{o.identifier} {o.vendor} {o.part}".strip())
    lanes = len(o.rx_power_mw)
    evidence = [
        (f"lane {lane}: " if lanes > 1 else "")
        + f"receive power {_mw(mw)}, under the module's {level}"
        for lane, mw, level in low
    ]
    limits = []
    if alarm is not None:
        limits.append(f"low alarm {_mw(alarm)}")
    if warn is not None:
        limits.append(f"low warning {_mw(warn)}")
    evidence.append(f"{name} ({o.standard}): " + ", ".join(limits) + " (module EEPROM)")
    yield Finding(
        id=rule,
        severity=severity,
        title=f"{f.ifname}'s transceiver receives too little light: clean or replace the fibre "
        "or patch, check the far end's transmitter",
        evidence=tuple(evidence),
        change=(),
        sources=(
            SourceRef(
                "sff-8472",
                "the module's own receive power and its maker's low alarm/warning thresholds, "
                "as SFF-8472 (SFP) and SFF-8636 (QSFP) lay them out; not from the field reports",
            ),
        ),
        context="any",
    )
