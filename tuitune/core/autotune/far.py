"""The far end's own advisor findings as autotune candidates, when the far end is reachable as
the lab and the fleet export reach it: a namespace of this machine (`--lab`, `--peer-netns`).

The far end is judged as `tuitune advise --json --netns NS IFACE` judges it: that command
runs in a clean interpreter (core/proc.py: tuitune's own package, a clean environment) and
its document (schema `tuitune.advise`, docs/json-schema.md) is read here. A subprocess, not
the advisor in this process: it samples the far end's namespace for its own window without
holding this end's reader or journal, and the document is the one a user can read too.

The document is checked field by field (the far namespace's names and values are another
party's text): a finding's change must name the far end's interface (or a sysctl) and a
value of at most a few hundred characters; anything else drops the finding, in one line. A
host-wide sysctl is never a far-end candidate (one value for the whole machine: this end's
candidates own it), as `at_both_ends` never mirrors one.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tuitune.core.autotune.search import Candidate
from tuitune.core.session import Key

SCHEMA = "tuitune.advise"
VERSION = 1
MAX_OUTPUT = 4 * 1024 * 1024  # a 1152-CPU host's findings are ~100 KB
MAX_VALUE = 512
TIMEOUT_S = 60.0


class FarAdviceError(ValueError):
    """The far end could not be judged; one line."""


def far_candidates(
    doc: object, peer_ifname: str, host_wide: Callable[[Key], bool]
) -> tuple[list[Candidate[Any]], list[str]]:
    """Each finding of the far end's advise document that proposes a change, as a candidate
    at the far end (`peer:FINDING`, its keys `AtPeer`); the findings dropped, and why."""
    from tuitune.core.autotune.host import AtPeer

    if not isinstance(doc, Mapping) or doc.get("schema") != SCHEMA:
        raise FarAdviceError("the far end's advice is not a `tuitune advise --json` document")
    if doc.get("version") != VERSION:
        raise FarAdviceError(f"the far end's advice is of version {_shown(doc.get('version'))}")
    findings = doc.get("findings")
    if not isinstance(findings, list):
        raise FarAdviceError("the far end's advice has no list of findings")
    out: list[Candidate[Any]] = []
    skipped: list[str] = []
    for f in findings:
        if not isinstance(f, Mapping) or not isinstance(f.get("id"), str):
            raise FarAdviceError("the far end's advice holds a finding without an id")
        fid = _shown(f["id"])
        change = f.get("change")
        if not isinstance(change, list) or not change:
            continue  # a finding that proposes nothing to change
        try:
            pairs = [_pair(c, peer_ifname) for c in change]
        except ValueError as exc:
            skipped.append(f"peer:{fid}: {exc}")
            continue
        wide = [k for k, _ in pairs if host_wide(k)]
        if wide:
            skipped.append(f"peer:{fid}: {wide[0].label} is host-wide (one value for both ends)")
            continue
        title = f.get("title")
        shown_title = _shown(title) if isinstance(title, str) else fid
        changes = tuple((AtPeer(k), v) for k, v in pairs)
        out.append(Candidate(f"peer:{fid}", f"the far end's {shown_title}", changes))
    return out, skipped


def _pair(change: object, peer_ifname: str) -> tuple[Key, str]:
    if not isinstance(change, Mapping):
        raise ValueError("a change that is not an object")
    key = Key.from_json(change.get("key"))  # ValueError: not a setting key
    value = change.get("value")
    if not isinstance(value, str) or len(value) > MAX_VALUE or not value.isprintable():
        raise ValueError(f"{key.label}: not a value to set")
    if key.ifname is not None and key.ifname != peer_ifname:
        raise ValueError(f"{_shown(key.ifname)} is not the far end's interface")
    if key.ifname is None and key.kind != "sysctl":
        raise ValueError(f"{key.label}: not a setting of the far end's interface")
    return key, value


def judge_far_end(netns: str, ifname: str, context: str, seconds: int = 2) -> object:
    """The far end's advise document: `tuitune advise --json --netns NS IFACE` run now.
    FarAdviceError (one line) when it cannot be had."""
    from tuitune.core import proc

    try:
        argv = proc.python_module_argv(
            "tuitune.cli", "advise", "--json", "--netns", netns, "--seconds", str(seconds),
            "--context", context, "--", ifname,
        )  # fmt: skip
        done = proc.run(argv, timeout=TIMEOUT_S + seconds)
    except (proc.ProgramRefused, OSError, subprocess.TimeoutExpired) as exc:
        raise FarAdviceError(f"the far end's advisor did not run: {exc}") from None
    if done.returncode not in (0, 1):  # 1: it found a bottleneck
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise FarAdviceError(f"the far end's advisor failed: {_shown(last)}")
    if len(done.stdout) > MAX_OUTPUT:
        raise FarAdviceError("the far end's advice is too large")
    try:
        return json.loads(done.stdout)
    except (ValueError, RecursionError):
        raise FarAdviceError("the far end's advice is not JSON") from None


def _shown(value: object) -> str:
    from tuitune.core.text import printable

    return printable(str(value), 120)


def far_end_candidates(
    netns: str,
    ifname: str,
    context: str,
    have: Sequence[Candidate[Any]],
    say: Callable[[str], None],
) -> tuple[list[Candidate[Any]], list[str]]:
    """The far end's findings as candidates after `have` (a setting an earlier candidate
    already changes there, as the MTU set at both ends, is tried once), and what was not
    tried; a far end that cannot be judged is one line, and the search goes on without it."""
    from tuitune.core.autotune.sources import host_wide, new_keys

    say(f"the far end: its advisor on {_shown(ifname)} in {_shown(netns)} ...")
    try:
        cands, skipped = far_candidates(judge_far_end(netns, ifname, context), ifname, host_wide)
    except FarAdviceError as exc:
        return [], [f"the far end's findings: {exc}"]
    return new_keys(have, cands), skipped
