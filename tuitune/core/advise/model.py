"""What the Advisor says: findings, the notes of rules that could not judge, and the context.

A `Finding` is one diagnosis: what holds the host back, the numbers it rests on (and where they
were read), the change that addresses it as journal keys and canonical values (so one journal
step can apply, undo and export it), and the reports behind it. A `Note` is what a rule says
instead of guessing: the data it lacks, or that its advice belongs to another context.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from tuitune.core.advise.peer import PeerProbe
from tuitune.core.catalog import sources
from tuitune.core.session.settings import Key

Severity = Literal["bottleneck", "risk", "hint"]
SEVERITIES: tuple[Severity, ...] = get_args(Severity)  # worst first
ContextKind = Literal["lan", "wan", "latency", "any"]
CONTEXTS: tuple[ContextKind, ...] = get_args(ContextKind)


@dataclass(frozen=True, slots=True)
class SourceRef:
    """A report behind a finding: its catalog id, what it measured (tuitune's words, the
    report's figures) and the kind of network it measured on (LAN, WAN, general)."""

    id: str
    measured: str

    @property
    def source(self) -> sources.Source:
        return sources.source(self.id)

    @property
    def setting(self) -> str:
        return self.source.context

    @property
    def citation(self) -> str:
        return self.source.citation


@dataclass(frozen=True, slots=True)
class Change:
    """One setting a finding proposes: the journal's key and the value in its canonical form."""

    key: Key
    value: str


@dataclass(frozen=True, slots=True)
class Finding:
    id: str  # the rule's documented id (docs/advise.md), stable across releases
    severity: Severity
    title: str  # one line a person understands
    evidence: tuple[str, ...]  # numbers and where they were read, one line each
    change: tuple[Change, ...]  # empty: the fix is outside the OS (slot, cable, BIOS) or a choice
    sources: tuple[SourceRef, ...]
    context: ContextKind  # the context the advice fits ("any": every context)
    trial: bool = False  # the change can cut the link: apply it on trial, never headless


@dataclass(frozen=True, slots=True)
class Note:
    """A rule that did not judge, and why: what it would need, or the context it is for."""

    rule: str
    text: str


@dataclass(frozen=True, slots=True)
class Context:
    """What the user states about the traffic (or tuitune infers from a measured RTT)."""

    kind: ContextKind = "any"
    rate_gbits: float | None = None  # the path's rate, for the bandwidth-delay product
    rtt_ms: float | None = None  # round-trip time to the peer
    page_size: int = 4096  # tcp_mem counts pages
    peer: PeerProbe | None = None  # what --peer measured (the RTT above comes from it if so)

    def fits(self, *kinds: ContextKind) -> bool:
        return self.kind in kinds


@dataclass(frozen=True, slots=True)
class Advice:
    findings: tuple[Finding, ...]
    notes: tuple[Note, ...] = field(default=())

    @property
    def bottlenecks(self) -> int:
        return sum(f.severity == "bottleneck" for f in self.findings)


def infer_context(kind: ContextKind, rtt_ms: float | None) -> ContextKind:
    """The stated context, or one inferred from a measured RTT when none was stated: a LAN
    answers in well under a millisecond (NASA's testbed: 0.24-0.31 ms), a WAN path in tens
    (LOFAR's 3.8 ms to SARA is a metro WAN; ESnet's 48.6 ms cross-country)."""
    if kind != "any" or rtt_ms is None:
        return kind
    if rtt_ms < 1.0:
        return "lan"
    if rtt_ms >= 2.0:
        return "wan"
    return "any"
