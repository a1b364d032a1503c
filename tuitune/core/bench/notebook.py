"""The notebook: every run of one interface, kept in one JSON Lines file. The results table
made from its runs is in runtable.py, that table as text, Markdown and CSV in runformat.py.

One line per record, appended with one write(2), so a crash loses at most the line being
written and two tuitunes appending at once do not interleave. Records:

    {"type": "run", "version": 1, "id": "r3", "group": "r3", "spec": {...}, ...}
    {"type": "baseline", "group": "r1"}        (the last one wins)

Unknown fields and record types are ignored and unreadable lines skipped (counted in
`skipped`), so older tuitunes read newer files. The format is documented in docs/bench.md.
"""

from __future__ import annotations

import errno
import json
import re
import socket
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from tuitune.core import fsutil, paths, untrusted
from tuitune.core.bench.model import (
    BenchResult,
    BenchSpec,
    CpuLoad,
    Interval,
    Run,
    StreamResult,
)
from tuitune.core.bench.runtable import RunRow, build_rows
from tuitune.core.docfile import shown
from tuitune.core.text import printable

VERSION = 1
NOTEBOOK_LIMIT = 256 << 20  # thousands of runs; /dev/zero or a huge file linked here is not one


# -- JSON --------------------------------------------------------------------------------------
def run_to_json(run: Run) -> dict[str, Any]:
    spec = {f.name: getattr(run.spec, f.name) for f in fields(BenchSpec)}
    result = {f.name: getattr(run.result, f.name) for f in fields(BenchResult)}
    result["intervals"] = [
        {f.name: getattr(iv, f.name) for f in fields(Interval)} for iv in run.result.intervals
    ]
    result["streams"] = [
        {f.name: getattr(s, f.name) for f in fields(StreamResult)} for s in run.result.streams
    ]
    for name in ("client_commands", "server_commands"):
        result[name] = list(result[name])
    for name in ("stream_cpus", "server_cpus"):
        spec[name] = list(spec[name])
    load = {
        "peak_sys": {str(k): v for k, v in run.load.peak_sys.items()},
        "peak_soft": {str(k): v for k, v in run.load.peak_soft.items()},
        "drops": {str(k): v for k, v in run.load.drops.items()},
        "samples": run.load.samples,
        "queues": {k: dict(v) for k, v in run.load.queues.items()},
        "nic_drops": dict(run.load.nic_drops),
    }
    return {
        "type": "run",
        "version": VERSION,
        "id": run.id,
        "group": run.group,
        "ifname": run.ifname,
        "started": run.started,
        "spec": spec,
        "result": result,
        "load": load,
        "settings": dict(run.settings),
        **({"tags": dict(run.tags)} if run.tags else {}),
    }


_QUEUE = re.compile(r"(?:rx|tx)-[0-9]{1,5}", re.ASCII)


def _counts(data: object, where: str, limit: int = 256) -> dict[str, int]:
    """Counter name -> count (a run's NIC-wide drops, one queue's measures); older runs have
    none. Names are short identifiers: they are shown."""
    if data is None:
        return {}
    if not isinstance(data, Mapping) or len(data) > limit:
        raise untrusted.Refused(f"{where}: not an object of at most {limit} entries")
    out: dict[str, int] = {}
    for k, v in data.items():
        name = untrusted.check_value(k, str, where)
        if not re.fullmatch(r"[A-Za-z0-9_.\-]{1,64}", name, re.ASCII):
            raise untrusted.Refused(f"{where}: {printable(name, 20)} is not a counter name")
        out[name] = untrusted.check_value(v, int, f"{where}: {name}")
    return out


def _queue_counts(data: object, where: str) -> dict[str, dict[str, int]]:
    """ "rx-0" -> its measures' counts during the run (absent in runs written before)."""
    if data is None:
        return {}
    if not isinstance(data, Mapping) or len(data) > 4096:
        raise untrusted.Refused(f"{where}: not an object of at most 4096 queues")
    out: dict[str, dict[str, int]] = {}
    for k, v in data.items():
        name = untrusted.check_value(k, str, where)
        if not _QUEUE.fullmatch(name):
            raise untrusted.Refused(f"{where}: {printable(name, 20)} is not a queue (rx-N, tx-N)")
        out[name] = _counts(v, f"{where}: {name}", limit=8)
    return out


def run_from_json(data: Mapping[str, Any], where: str = "run") -> Run:
    """A Run from its JSON record; `untrusted.Refused` (a ValueError, one line naming `where`
    and the field) when it is not one: every field's type and bounds are checked, since the
    file may be another user's. Unknown fields are ignored."""
    if not isinstance(data, Mapping):
        raise untrusted.Refused(f"{where}: not an object")
    ident = untrusted.check_value(data.get("id"), str, f"{where}: id")
    where = f"{where} {printable(ident, 40)}"
    spec = untrusted.typed(BenchSpec, data.get("spec"), f"{where}: spec")
    raw = data.get("result") or {}
    if not isinstance(raw, Mapping):
        raise untrusted.Refused(f"{where}: result: not an object")
    ivs = raw.get("intervals") or ()
    if not isinstance(ivs, list | tuple) or len(ivs) > 100_000:
        raise untrusted.Refused(f"{where}: result: intervals: not a list")
    intervals = tuple(
        untrusted.typed(Interval, iv, f"{where}: result: intervals[{n}]")
        for n, iv in enumerate(ivs)
    )
    per = raw.get("streams") or ()  # one per process of a --processes run; absent before
    if not isinstance(per, list | tuple) or len(per) > 4096:
        raise untrusted.Refused(f"{where}: result: streams: not a list")
    streams = tuple(
        untrusted.typed(StreamResult, st, f"{where}: result: streams[{n}]")
        for n, st in enumerate(per)
    )
    result = untrusted.typed(
        BenchResult, raw, f"{where}: result", intervals=intervals, streams=streams
    )
    ld = data.get("load") or {}
    if not isinstance(ld, Mapping):
        raise untrusted.Refused(f"{where}: load: not an object")
    load = CpuLoad(
        peak_sys=untrusted.number_map(ld.get("peak_sys"), float, f"{where}: load: peak_sys"),
        peak_soft=untrusted.number_map(ld.get("peak_soft"), float, f"{where}: load: peak_soft"),
        drops=untrusted.number_map(ld.get("drops"), int, f"{where}: load: drops"),
        samples=untrusted.check_value(ld.get("samples", 0), int, f"{where}: load: samples"),
        queues=_queue_counts(ld.get("queues"), f"{where}: load: queues"),
        nic_drops=_counts(ld.get("nic_drops"), f"{where}: load: nic_drops"),
    )
    text = {
        k: untrusted.check_value(data.get(k, ""), str, f"{where}: {k}")
        for k in ("group", "ifname", "started")
    }
    return Run(
        id=ident,
        group=text["group"] or ident,
        ifname=text["ifname"],
        started=text["started"],
        spec=spec,
        result=result,
        load=load,
        settings=untrusted.str_map(data.get("settings"), f"{where}: settings"),
        tags=untrusted.str_map(data.get("tags"), f"{where}: tags"),
    )


def to_json(run: Run) -> str:
    return json.dumps(run_to_json(run), separators=(",", ":"))


def from_json(text: str) -> Run:
    return run_from_json(untrusted.parse_json(text, "run"))


# -- the file ----------------------------------------------------------------------------------
def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


class Notebook:
    """The runs of one interface (of one host or network namespace), in `path`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.skipped = 0  # unreadable lines in the last read

    @staticmethod
    def default_path(ifname: str, netns: str | None = None, state_dir: Path | None = None) -> Path:
        """$XDG_STATE_HOME/tuitune/runs/<host>[-<netns>]-<ifname>.jsonl"""
        base = state_dir if state_dir is not None else paths.runs_dir()
        parts = [socket.gethostname() or "host"]
        if netns:
            parts.append(netns)
        parts.append(ifname)
        return base / (_safe("-".join(parts)) + ".jsonl")

    # -- reading ---------------------------------------------------------------------------
    def _records(self) -> list[dict[str, Any]]:
        """The file's records (the bounded, link-safe reader: it may be another user's file);
        a line that is not UTF-8 or not a JSON object is skipped and counted."""
        self.skipped = 0
        got = untrusted.read_lines(self.path, NOTEBOOK_LIMIT)
        if got is None:
            return []
        lines, self.skipped = got
        out = []
        for line in lines:
            try:
                record = untrusted.parse_json(line, "line")
            except untrusted.Refused:
                self.skipped += 1  # a line cut short by a crash, or not ours
                continue
            if isinstance(record, dict):
                out.append(record)
            else:
                self.skipped += 1
        return out

    def _read(self) -> tuple[list[Run], str | None]:
        runs: list[Run] = []
        chosen: str | None = None
        for record in self._records():
            kind = record.get("type")
            if kind == "run":
                try:
                    runs.append(run_from_json(record, shown(self.path)))
                except ValueError:  # untrusted.Refused: a wrong type, a number out of range
                    self.skipped += 1
            elif kind == "baseline" and isinstance(record.get("group"), str):
                chosen = record["group"]
        return runs, chosen

    def runs(self) -> list[Run]:
        return self._read()[0]

    def baseline(self) -> str | None:
        """The baseline group: the last one set that still has runs, else the first group."""
        runs, chosen = self._read()
        groups = [r.group for r in runs]
        if chosen in groups:
            return chosen
        return groups[0] if groups else None

    def next_id(self) -> str:
        numbers = [int(r.id[1:]) for r in self.runs() if r.id[:1] == "r" and r.id[1:].isdigit()]
        return f"r{max(numbers, default=0) + 1}"

    def find(self, run_id: str) -> Run | None:
        return next((r for r in self.runs() if r.id == run_id), None)

    def table(self) -> list[RunRow]:
        runs, _ = self._read()
        return build_rows(runs, self.baseline())

    # -- writing ---------------------------------------------------------------------------
    def _append(self, record: Mapping[str, Any]) -> None:
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        # One write of one line: O_APPEND keeps writers apart. Never through another user's
        # link, nor into a directory they could change (fsutil).
        fsutil.append_file(self.path, line, 0o644)

    def check(self, write: bool) -> None:
        """Raise a one-line OSError now, before a run, when the notebook cannot be read (a
        directory, another user's link, too big) or, with `write`, written where it is."""
        self.runs()
        if write:
            try:
                fsutil.locate(self.path, write=True, follow=True)[0].close()
            except OSError as exc:
                if exc.errno != errno.ENOENT:  # a directory still to make is made on write
                    raise

    def add(self, run: Run) -> None:
        if any(r.id == run.id for r in self.runs()):
            raise ValueError(f"run {run.id} is already in {self.path}")
        self._append(run_to_json(run))

    def set_baseline(self, group_id: str) -> None:
        """Make `group_id` (a group, or any run of one) the baseline; ValueError if unknown."""
        runs = self.runs()
        found = next((r for r in runs if r.id == group_id or r.group == group_id), None)
        if found is None:
            known = ", ".join(dict.fromkeys(r.group for r in runs)) or "none"
            raise ValueError(f"no run {group_id} in {self.path} (runs: {known})")
        self._append({"type": "baseline", "group": found.group})


def write_beside(notebook: Path, suffix: str, text: str) -> Path:
    """Write `text` next to the notebook file (same name, new suffix), atomically, never
    through a link another user made (fsutil)."""
    dest = notebook.with_suffix(suffix)
    fsutil.write_file(dest, text.encode("utf-8"), 0o644, follow=True)
    return dest
