"""What an export is made of: the changes going in, the files coming out.

A `Change` is one setting that differs from what tuitune found (the journal's original) or
from an earlier snapshot. An `ExportFile` is one file as data: where `--install` puts it, its
text, what is installed there now and the diff, plus the warnings and notes a preview shows.
Nothing here touches the disk.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from tuitune.core.session.settings import Key

# The header line every file carries: its minute changes with each export, nothing else.
_STAMP = re.compile(r"(Written by tuitune \S+ on )\d{4}-\d\d-\d\d \d\d:\d\d UTC")


def same_text(a: str, b: str) -> bool:
    """The two texts say the same, whatever minute each was written in: a file exported
    again a minute later is not "changed", and is not written (and backed up) again."""
    return a == b or _STAMP.sub(r"\1-", a) == _STAMP.sub(r"\1-", b)


Format = Literal["sysctl", "udev", "link", "nm", "affinity", "process", "tuned", "modprobe", "cpu"]
FORMATS: tuple[Format, ...] = get_args(Format)


@dataclass(frozen=True, slots=True)
class Change:
    """One setting to persist: `current` is what the files will set; `original` what it
    replaced (None: the setting did not exist, e.g. a queue that more channels created);
    `when` (epoch seconds) the start of the tuitune session that changed it, if known.
    `known` False: the original is not known (the far end read from its show --json file)."""

    key: Key
    original: str | None
    current: str
    when: float | None = None
    known: bool = True


@dataclass(frozen=True, slots=True)
class ExportFile:
    """One generated file. `path` is where `--install` writes it; `installed` is the text
    there now (None: no file). `installable` False: a snippet to merge by hand (NM keyfile
    sections), never written to `path`."""

    format: Format
    path: Path
    text: str
    installed: str | None = None
    mode: int = 0o644
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    installable: bool = True

    @property
    def changed(self) -> bool:
        return self.installed is None or not same_text(self.installed, self.text)

    @property
    def diff(self) -> str:
        """A unified diff from the installed file (or nothing) to the new text."""
        old = (self.installed or "").splitlines(keepends=True)
        new = self.text.splitlines(keepends=True)
        before = str(self.path) if self.installed is not None else "/dev/null"
        return "".join(difflib.unified_diff(old, new, before, str(self.path)))


@dataclass(frozen=True, slots=True)
class ExportPlan:
    """Every file of one export, and what could not be exported (with why)."""

    ifname: str
    files: tuple[ExportFile, ...]
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # changes left out, one line each with the reason
    netns: str | None = None

    def by_format(self, fmt: Format) -> tuple[ExportFile, ...]:
        return tuple(f for f in self.files if f.format == fmt)


@dataclass(frozen=True, slots=True)
class ProcFacts:
    """What the process export needs of a process: its name, argv and systemd unit."""

    comm: str
    cmdline: tuple[str, ...]
    unit: str | None
    unit_user: int | None = None  # `unit` is this uid's user manager's, not the system's


class ExportRefused(Exception):
    """A value cannot be written safely into a file (a newline, a quote, `$`, `%`...):
    nothing is written. `problems` holds one message per value."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class Generated:
    """What one format made of the changes: its files, the keys they carry, and why the
    others were left out (key -> reason)."""

    files: list[ExportFile] = field(default_factory=list)
    covered: set[Key] = field(default_factory=set)
    left_out: dict[Key, str] = field(default_factory=dict)
