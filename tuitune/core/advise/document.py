"""The `tuitune advise --json` document: schema `tuitune.advise`, version 1 (docs/json-schema.md).

The version changes when a field is renamed, removed or changes meaning; new fields may appear.
"""

from __future__ import annotations

from typing import Any

from tuitune import __version__
from tuitune.core.advise.model import Advice, Context, Finding

SCHEMA = "tuitune.advise"
SCHEMA_VERSION = 1


def finding_json(f: Finding) -> dict[str, Any]:
    return {
        "id": f.id,
        "severity": f.severity,
        "title": f.title,
        "evidence": list(f.evidence),
        "change": [
            {"key": c.key.to_json(), "label": c.key.label, "value": c.value} for c in f.change
        ],
        "sources": [
            {"id": s.id, "citation": s.citation, "setting": s.setting, "measured": s.measured}
            for s in f.sources
        ],
        "context": f.context,
        "trial": f.trial,
    }


def _peer(context: Context) -> dict[str, Any] | None:
    p = context.peer
    if p is None:
        return None
    r = p.rtt
    return {
        "host": p.host,
        "rtt_ms": None if r is None else {"min": r.min_ms, "avg": r.avg_ms, "max": r.max_ms},
        "replies": None if r is None else [r.received, r.sent],
        "df": None if p.df_ok is None else {"mtu": p.mtu, "ok": p.df_ok},
        "problem": p.problem or None,
    }


def advise_document(
    advice: Advice, ifname: str | None, context: Context, seconds: float, loaded: bool
) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "tuitune": __version__,
        "interface": ifname,
        "context": context.kind,
        "rate_gbits": context.rate_gbits,
        "rtt_ms": context.rtt_ms,
        "peer": _peer(context),
        "window": {"seconds": round(seconds, 3), "loaded": loaded},
        "bottlenecks": advice.bottlenecks,
        "findings": [finding_json(f) for f in advice.findings],
        "notes": [{"rule": n.rule, "text": n.text} for n in advice.notes],
    }
