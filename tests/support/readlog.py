"""Counts the kernel files a HostReader's counters() reads, tick by tick (issue 18's per-tick
path): every read of a tree file goes through tuitune.core.host.root.read_text, or read_span
for a part of one. Not the live host's tick files, kept open and read by keptroot.py: the
tests that count reads read trees."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from tuitune.core.host import root as root_module
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.snapshot import Counters


class ReadLog:
    """ticks[k-1]: (path, bytes) of every file read by the k-th counters() call. A path is
    given relative to the (sample) tree: "/proc/stat", "/sys/kernel/irq/38/per_cpu_count"."""

    def __init__(self) -> None:
        self.ticks: list[list[tuple[str, int]]] = []
        self._on = threading.Event()

    def files(self, tick: int) -> list[str]:
        return [what for what, _ in self.ticks[tick - 1]]

    def nbytes(self, tick: int, only: str = "") -> int:
        return sum(n for what, n in self.ticks[tick - 1] if what.startswith(only))

    @contextmanager
    def watching(self, reader: HostReader) -> Iterator[ReadLog]:
        real_read = root_module.read_text
        real_span = root_module.read_span
        real_into = root_module.read_into
        real_counters = reader.counters

        def log(path: Path, text: str | int) -> None:
            if self._on.is_set():
                rel = str(path).split("/samples/", 1)[-1]
                if rel != str(path):  # a replayed sample's tree: drop "N/"
                    rel = rel.partition("/")[2]
                elif str(path).startswith(("/proc/", "/sys/")):
                    rel = str(path)[1:]
                n = text if isinstance(text, int) else len(text.encode())
                self.ticks[-1].append(("/" + rel.lstrip("/"), n))

        def read_text(path: Path, what: str, *args: object, **kw: object) -> str:
            text = real_read(path, what, *args, **kw)  # type: ignore[arg-type]
            log(path, text)
            return text

        def read_span(path: Path, what: str, *args: object, **kw: object) -> str:
            text = real_span(path, what, *args, **kw)  # type: ignore[arg-type]
            log(path, text)
            return text

        def read_into(path: Path, what: str, *args: object, **kw: object) -> int:
            n = real_into(path, what, *args, **kw)  # type: ignore[arg-type]
            log(path, n)
            return n

        def counters(
            ifname: str | None, irqs: Collection[str] | None = None, *, queues: bool = False
        ) -> Counters:
            self.ticks.append([])
            self._on.set()
            try:
                return real_counters(ifname, irqs, queues=queues)
            finally:
                self._on.clear()

        with (
            mock.patch.object(root_module, "read_text", read_text),
            mock.patch.object(root_module, "read_span", read_span),
            mock.patch.object(root_module, "read_into", read_into),
            mock.patch.object(reader, "counters", counters),
        ):
            yield self
