"""Small pieces every generator shares: times, "was X" comments, the machine-readable header
line that `tuitune verify` reads back, and the order settings are written in."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator

from tuitune.core.export.context import ExportContext
from tuitune.core.export.model import Change
from tuitune.core.session.kinds import safe
from tuitune.core.session.kinds.safe import comment
from tuitune.core.session.kinds.table import handler
from tuitune.core.session.settings import Key, Kind

# `# tuitune-export: FORMAT iface=NAME netns=NAME` - the first line verify looks for.
MARK = "# tuitune-export:"
_MARK_RE = re.compile(r"#\s*tuitune-export:\s*(\S+)((?:\s+\w+=\S+)*)\s*$")


def stamp(when: float) -> str:
    """UTC, so a file reads the same wherever it is looked at."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(when))


def was(change: Change) -> str:
    """ "was 1500 (tuitune session of 2025-01-02 10:00 UTC)": the journal dates sessions, not
    each change, so the time is the start of the session that changed it."""
    if not change.known:
        return "as the far end's show --json file shows it"
    before = "absent" if change.original is None else comment(change.original)
    when = f" (tuitune session of {stamp(change.when)})" if change.when is not None else ""
    return f"was {before}{when}"


def where(ctx: ExportContext) -> str:
    """ "eth2 on lab1" / "veth0 on lab1, network namespace lab" (for comments)."""
    ns = f", network namespace {ctx.netns}" if ctx.netns else ""
    return comment(f"{ctx.ifname} on {ctx.host}{ns}")


def mark(fmt: str, ctx: ExportContext) -> str:
    return f"{MARK} {fmt} iface={ctx.ifname} netns={ctx.netns or '-'}"


def read_mark(text: str) -> tuple[str, dict[str, str]] | None:
    """(format, {"iface": ..., "netns": ...}) from a file tuitune wrote, else None."""
    for line in text.splitlines()[:40]:
        m = _MARK_RE.match(line.strip())
        if m:
            fields = dict(p.split("=", 1) for p in m.group(2).split())
            return m.group(1), fields
    return None


def written_by(ctx: ExportContext) -> str:
    return f"Written by tuitune {ctx.version} on {stamp(ctx.now)}"


def heading(what: str, ctx: ExportContext, holds: str) -> list[str]:
    """A written file's first two comment lines: what it is, for which interface of which
    host, what it holds; and which tuitune wrote it, when."""
    return [f"# {what} for {where(ctx)}: {holds}.", f"# {written_by(ctx)}."]


_KIND_ORDER = {"channels": 0, "ring": 1, "coalesce": 2, "pause": 3, "feature": 4}


def ini_settings(text: str) -> Iterator[tuple[int, str, str, str]]:
    """(line number, "[section]", name, value) of each `name=value` line of an INI-style file
    (a .link file, a NetworkManager keyfile); comments and section lines passed over."""
    section = ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("["):
            section = line
        elif "=" in line and not line.startswith("#"):
            name, _, value = line.partition("=")
            yield n, section, name, value


def by_kind(changes: Iterable[Change], *kinds: str) -> list[Change]:
    """The changes of these kinds, in a stable order: queue rx-2 after rx-1, rx-10 last."""
    chosen = [c for c in changes if c.key.kind in kinds]
    return sorted(chosen, key=lambda c: (_KIND_ORDER.get(c.key.kind, 9), _natural(c.key)))


def _natural(key: Key) -> tuple[object, ...]:
    parts = re.split(r"(\d+)", key.name)
    return (key.kind, *((0, int(p)) if p.isdigit() else (1, p) for p in parts))


# The checks of an ethtool command's words (kinds/base.py's EthtoolWords).
_WORD_CHECK = {"feature": safe.feature, "priv_flag": safe.priv_flag, "field": safe.field_name}


def words_of(kind: Kind) -> str | None:
    """What the words of the kind's `ethtool` command are (its handler's EthtoolSet.words:
    feature names, private flags, a group's fields), None: ethtool does not set it."""
    how = handler(kind).ethtool_set
    return None if how is None else how.words


def word_check(kind: Kind) -> Callable[..., str]:
    """The safe.* check of a name in the kind's `ethtool` command (a feature's, a flag's, a
    field's): the udev rules', tuned's and NetworkManager's name for it."""
    return _WORD_CHECK.get(words_of(kind) or "field", safe.field_name)
