"""The values a change read back, put into the state the screen shows (issue 18, goal 3).

The journal reads every setting back after writing it (`Outcome.after`, and `Effect.after`
for what moved with it). The screen can show those at once, in the same frame as the report,
instead of waiting for the re-read of the whole NIC and host state that follows a change
(a forced sample: about 30 ms more, a frame and the reads). That re-read still comes and
replaces this state whole; what is patched here is only what the journal itself saw.

Each kind's handler patches its own (`patch`, kinds/): features, rings, coalescing, channels,
pause, MTU and txqueuelen; sysctls are the host's, patched here. RPS/XPS masks and IRQ
affinities wait for the re-read: their rows are built from more than the one value (the
queue's IRQ, its effective CPUs); so do the kinds whose handler keeps Family's default.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from tuitune.core.session.kinds.table import handler
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.settings import Key
from tuitune.core.watch.snapshot import HostState, NicState

# (key, value the kernel holds now, side effect): a feature's side effect is its active bit
# only (Effect's docstring); the setting itself was read back as the value it holds.
ReadBack = tuple[Key, str, bool]


def read_back(outs: Iterable[Outcome]) -> list[ReadBack]:
    """What every changed (or already set) outcome and its side effects read back."""
    got: list[ReadBack] = []
    for out in outs:
        if out.status in ("changed", "skipped") and out.after is not None:
            got.append((out.key, out.after, False))
        for e in out.also:
            if e.after is not None:
                got.append((e.key, e.after, True))
    return got


def patch_nic(nic: NicState | None, values: Iterable[ReadBack]) -> NicState | None:
    """`nic` with the read-back values of its own device's settings (None stays None)."""
    if nic is None:
        return None
    for key, value, effect in values:
        if key.ifname != nic.link.ifname:
            continue
        try:
            nic = handler(key.kind).patch(nic, key, value, effect)
        except ValueError:  # not a number where one was expected: leave it to the re-read
            continue
    return nic


def patch_host(host: HostState | None, values: Iterable[ReadBack]) -> HostState | None:
    """`host` with the read-back values of its sysctls."""
    if host is None:
        return None
    wanted = {k.name: v for k, v, _ in values if k.kind == "sysctl"}
    if not wanted:
        return host
    sysctls = tuple(replace(s, value=wanted[s.key]) if s.key in wanted else s for s in host.sysctls)
    return replace(host, sysctls=sysctls)
