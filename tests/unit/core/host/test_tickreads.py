"""A tick reads only part of /proc/softirqs (its NET_TX and NET_RX lines) and of /proc/stat (its
cpu lines), and gets what a parse of the whole file gives (issue 18): on random files in the
kernel's layout over sequences of ticks, on layouts where the rows are not where they were
(then the whole file is read), and on this machine's own /proc."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.core.host import root as root_module
from tuitune.core.host.procfs import (
    NET_SOFTIRQS,
    Softirqs,
    StatParser,
    parse_softirqs,
    parse_stat,
)
from tuitune.core.host.root import HostRoot, read_text
from tuitune.core.host.tickreads import SoftirqsReader, StatReader, cpu_block_end

# kernel/softirq.c softirq_to_name, the order fs/proc/softirqs.c prints them in.
KERNEL_ORDER = ("HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED")
U32 = st.integers(0, 2**32 - 1)


@contextmanager
def spans() -> Iterator[list[tuple[str, int, int]]]:
    """The (file, offset, size) of every read_span while inside."""
    seen: list[tuple[str, int, int]] = []
    real = root_module.read_span

    def spy(path: Path, what: str, offset: int, size: int, jail: str | None = None) -> str:
        seen.append((path.name, offset, size))
        return real(path, what, offset, size, jail)

    with mock.patch.object(root_module, "read_span", spy):
        yield seen


def softirqs_text(cpus: list[int], rows: dict[str, list[int]], order: list[str], wide: bool) -> str:
    """As fs/proc/softirqs.c prints it (`wide`: " %10u" cells), or with cells as short as they
    come (a capture rewritten by a tool: the rows move as the numbers grow)."""
    head = " " * 20 + "".join(f"CPU{c:<8}" for c in cpus)
    lines = [head]
    for name in order:
        cells = "".join(f" {v:10}" if wide else f" {v}" for v in rows[name])
        lines.append(f"{name:>12}:{cells}")
    return "\n".join(lines) + "\n"


@st.composite
def softirqs_ticks(draw: st.DrawFn) -> tuple[list[str], bool]:
    """Successive /proc/softirqs, and whether they keep the kernel's layout throughout."""
    n = draw(st.integers(1, 40))
    cpus = sorted(draw(st.sets(st.integers(0, 4095), min_size=n, max_size=n)))
    layout = draw(
        st.sampled_from(["kernel", "narrow", "no NET_RX", "NET_RX last", "twice", "shuffled"])
    )
    order = list(KERNEL_ORDER)
    if layout == "no NET_RX":
        order.remove("NET_RX")
    elif layout == "NET_RX last":
        order.remove("NET_RX")
        order.append("NET_RX")
    elif layout == "twice":
        order.append("NET_RX")
    texts = []
    for _ in range(draw(st.integers(1, 5))):
        rows = {name: draw(st.lists(U32, min_size=n, max_size=n)) for name in KERNEL_ORDER}
        if layout == "shuffled":  # rows of one length in another order: only names tell
            order = draw(st.permutations(KERNEL_ORDER))
        text = softirqs_text(cpus, rows, order, wide=layout != "narrow")
        if layout == "NET_RX last" and draw(st.booleans()):
            text = text[:-1]  # and no final newline
        texts.append(text)
    return texts, layout == "kernel"


@settings(max_examples=100, deadline=None)
@given(softirqs_ticks(), st.lists(st.booleans(), min_size=5, max_size=5))
def test_softirqs_span_parses_as_the_whole_file(
    ticks: tuple[list[str], bool], whole: list[bool]
) -> None:
    texts, kernel = ticks
    reader = SoftirqsReader()
    with tempfile.TemporaryDirectory() as tmp, spans() as seen:
        (Path(tmp) / "proc").mkdir()
        root = HostRoot.fixture(Path(tmp))
        for k, text in enumerate(texts):
            (Path(tmp) / "proc/softirqs").write_text(text)
            before = len(seen)
            got = reader.read(root, whole=whole[k])
            assert got == parse_softirqs(text, NET_SOFTIRQS)
            assert set(got.counts) <= NET_SOFTIRQS
            # In the kernel's layout every tick after the first reads only the span: the
            # NET_TX and NET_RX lines (and the line end before them).
            if kernel and k and not whole[k]:
                assert len(seen) == before + 1
                start = text.index("\n      NET_TX:")
                assert seen[-1][1:] == (start, text.index("\n", text.index("NET_RX:")) + 1 - start)


@st.composite
def stat_ticks(draw: st.DrawFn) -> tuple[list[str], bool]:
    """Successive /proc/stat with counters growing by any amount (lines change length), an
    `intr` line of any length or none, and now and then a layout that is not the kernel's."""
    n = draw(st.integers(1, 30))
    odd = draw(st.sampled_from(["", "cpu line last", "no cpu lines", "only cpu lines"]))
    base = [draw(st.lists(st.integers(0, 10**6), min_size=10, max_size=10)) for _ in range(n)]
    texts = []
    for _ in range(draw(st.integers(1, 5))):
        grow = draw(st.integers(0, 10**12))
        rows = [[v + grow * (i % 3) for i, v in enumerate(r)] for r in base]
        total = [sum(col) for col in zip(*rows, strict=True)]
        lines = ["cpu  " + " ".join(map(str, total))]
        lines += [f"cpu{c} " + " ".join(map(str, r)) for c, r in enumerate(rows)]
        intr = " ".join(["7"] * draw(st.integers(0, 3000)))
        lines += [f"intr {len(intr)} {intr}", f"ctxt {grow}", "btime 1", "procs_running 3"]
        if odd == "cpu line last":
            lines.append(lines.pop(1))
        elif odd == "no cpu lines":
            lines = lines[n + 1 :]
        elif odd == "only cpu lines":
            lines = lines[: n + 1]
        texts.append("\n".join(lines) + "\n")
    return texts, odd == ""


@settings(max_examples=100, deadline=None)
@given(stat_ticks())
def test_stat_cpu_lines_parse_as_the_whole_file(ticks: tuple[list[str], bool]) -> None:
    texts, kernel = ticks
    reader, parser = StatReader(), StatParser()
    with tempfile.TemporaryDirectory() as tmp, spans() as seen:
        (Path(tmp) / "proc").mkdir()
        root = HostRoot.fixture(Path(tmp))
        for k, text in enumerate(texts):
            (Path(tmp) / "proc/stat").write_text(text)
            got, want = parser.parse(reader.read(root)), parse_stat(text)
            assert (got.total, got.ids, got.columns) == (want.total, want.ids, want.columns)
            if kernel and k:  # up to a little past last tick's cpu lines, not the intr line
                end = texts[k - 1].index("\nintr") + 1
                assert seen and seen[-1][1:] == (0, end + end // 64 + 512)


def test_stat_cpu_lines_end_only_where_the_next_line_is_known() -> None:
    assert cpu_block_end("cpu  1\ncpu0 1\nintr 5", complete=False) == 14
    assert cpu_block_end("cpu  1\ncpu0 1\ncp", complete=False) is None  # "cpu1 ..." next?
    assert cpu_block_end("cpu  1\ncpu0 1\ncp", complete=True) == 14
    assert cpu_block_end("cpu  1\ncpu0 1", complete=True) is None  # no final newline
    assert cpu_block_end("cpu  1\nctxt 1\ncpu0 1\nintr 5", complete=True) is None


def test_real_proc_softirqs_span_is_the_whole_files_net_rows() -> None:
    """On this machine's kernel (a real single_open seq file): a read of the NET rows' span
    gives the rows a whole read gives. The counts move between reads, so the span's lie
    between a whole read before and one after, cell by cell."""
    proc = HostRoot()
    reader = SoftirqsReader()
    first = reader.read(proc)  # a whole read: learns where the rows are
    with spans() as seen:
        before = parse_softirqs(read_text(Path("/proc/softirqs"), "softirqs"), NET_SOFTIRQS)
        got = reader.read(proc)
        after = parse_softirqs(read_text(Path("/proc/softirqs"), "softirqs"), NET_SOFTIRQS)
    assert [s[0] for s in seen] == ["softirqs"]  # the span was read and checked
    assert not isinstance(first, str) and not isinstance(got, str)
    assert got.cpus == before.cpus == after.cpus and set(got.counts) == NET_SOFTIRQS
    for name in NET_SOFTIRQS:
        rows = zip(before.counts[name], got.counts[name], after.counts[name], strict=True)
        assert all(b <= g <= a for b, g, a in rows), name
    assert len(got.counts["NET_RX"]) == len(got.cpus) == len(before.cpus)


def test_real_proc_stat_cpu_lines_are_the_whole_files() -> None:
    proc = HostRoot()
    reader = StatReader()
    reader.read(proc)
    with spans() as seen:
        before = parse_stat(read_text(Path("/proc/stat"), "stat"))
        text = reader.read(proc)
        after = parse_stat(read_text(Path("/proc/stat"), "stat"))
    assert isinstance(text, str) and [s[0] for s in seen] == ["stat"]
    assert "intr" not in text and text.endswith("\n")
    got = parse_stat(text)
    assert got.ids == before.ids == after.ids
    for b, g, a in zip(before.columns, got.columns, after.columns, strict=True):
        assert all(x <= y <= z for x, y, z in zip(b, g, a, strict=True))


def test_span_reads_refuse_what_a_whole_read_refuses(tmp_path: Path) -> None:
    """A --root tree is another user's: a span read goes through the same checked open, so a
    link out of the tree, a FIFO (which would block) or a directory is a state, not a read."""
    outside = tmp_path / "secret"
    outside.write_text("cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 1\n")
    tree = tmp_path / "tree"
    (tree / "proc").mkdir(parents=True)
    root = HostRoot.fixture(tree)
    (tree / "proc/stat").symlink_to(outside)
    (tree / "proc/softirqs").mkdir()
    os.mkfifo(tree / "proc/interrupts")
    for rel in ("stat", "softirqs", "interrupts"):
        got = root.proc_span(rel, 0, 100)
        assert not isinstance(got, str), rel
        assert isinstance(root.proc_text(rel), type(got)), rel
    assert "link out of the host tree" in str(root.proc_span("stat", 0, 100))
    assert not isinstance(StatReader().read(root), str)
    assert not isinstance(SoftirqsReader().read(root), Softirqs)
