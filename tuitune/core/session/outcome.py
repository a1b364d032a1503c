"""What a change did: typed results the UI and the CLI show as they are."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable

Status = Literal["changed", "skipped", "invalid", "refused", "failed", "drift"]
"""changed: written and read back. skipped: already had that value (nothing written).
invalid: the typed value is not valid (nothing written). refused: the kernel or the device
said no (unsupported, fixed, managed IRQ, not root); nothing changed. failed: written, but the
read-back differed or a later step failed; what was written has been put back (the reason says
if even that failed). drift: someone else changed the setting since tuitune wrote it, so
tuitune did not overwrite it (pass force=True to do so anyway)."""


@dataclass(frozen=True, slots=True)
class Effect:
    """Another setting that changed with a write: "tx off" also turns TSO off.

    For features, `before`/`after` are the device's active state (the requested bits of other
    features never move); for other kinds, the canonical values (None: the setting did not or
    no longer exists, e.g. the rx-3 queue after lowering the channel count)."""

    key: Key
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class Outcome:
    key: Key
    status: Status
    before: str | None = None  # value before (None: unknown or absent)
    after: str | None = None  # value read back after (for skipped: the current value)
    reason: str | None = None  # plain words for invalid/refused/failed/drift, or a note
    state: Unavailable | None = None  # the kernel's refusal as a state, for refused
    also: tuple[Effect, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status in ("changed", "skipped")

    def describe(self) -> str:
        """One line for a log or the CLI."""
        if self.status == "changed":
            line = f"{self.key.label}: {self.before} -> {self.after}"
        elif self.status == "skipped" and self.after is None and self.reason:
            # Nothing there to put back (a process that exited): the reason is the whole news.
            return (
                self.reason
                if self.reason.startswith(self.key.label)
                else (f"{self.key.label}: {self.reason}")
            )
        elif self.status == "skipped":
            line = f"{self.key.label}: already {self.after}"
        elif self.reason and self.reason.startswith(self.key.label):
            line = self.reason  # refusals and bad values name the setting already
        else:
            line = f"{self.key.label}: {self.reason}"
        if self.reason and self.status in ("changed", "skipped"):
            line += f" ({self.reason})"
        return line

    def also_text(self, top: int = 3) -> str:
        """The settings that moved with this one, for one line: "rx-1 rps_cpus, rx-1
        rps_flow_cnt" (each named whole, once; the device left out when it is this one's)."""
        names: list[str] = []
        for e in self.also:
            label = e.key.label
            if e.key.ifname and e.key.ifname == self.key.ifname:
                label = label.removeprefix(f"{e.key.ifname} ")
            if label not in names:
                names.append(label)
        more = f" and {len(names) - top} more" if len(names) > top else ""
        return ", ".join(names[:top]) + more


@dataclass(frozen=True, slots=True)
class Drift:
    """A setting someone else changed after tuitune wrote it (another admin, irqbalance...)."""

    key: Key
    expected: str | None  # what tuitune last wrote
    found: str | None  # what the kernel holds now (None: gone)


def kernel_extras(outs: Sequence[Outcome]) -> str:
    """What the kernel changed beside the settings written, with its new state, as ethtool
    shows it: "tx-udp-segmentation off [requested on]" (a feature the kernel dropped keeps its
    request bit; it was on, so it is still asked for)."""
    written = {o.key for o in outs}
    parts: list[str] = []
    for out in outs:
        for e in out.also:
            if e.key in written:
                continue
            name = e.key.name if e.key.ifname == out.key.ifname else e.key.label
            text = f"{name} {e.after if e.after is not None else 'gone'}"
            if e.key.kind == "feature" and e.before == "on" and e.after == "off":
                text += " [requested on]"
            if text not in parts:
                parts.append(text)
    return ", ".join(parts)


def summary(outs: Sequence[Outcome]) -> Outcome:
    """Several outcomes of one step as one, for one line: the first that went wrong (it says
    why), else the first change with how many more moved ("... (and 7 more changed)")."""
    bad = [o for o in outs if not o.ok]
    if bad:
        return bad[0]
    changed = [o for o in outs if o.status == "changed"]
    if not changed:
        return outs[0]
    first = changed[0]
    more = f"and {len(changed) - 1} more changed" if len(changed) > 1 else None
    return Outcome(first.key, "changed", first.before, first.after, more, None, first.also)
