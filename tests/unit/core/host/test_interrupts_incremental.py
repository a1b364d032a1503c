"""InterruptsParser (reuse of unchanged rows between ticks) must give exactly what a full parse
gives, for any sequence of samples: real captures in series, rows that change, CPUs that go
offline, and text that is not /proc/interrupts at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tuitune.core.host.interrupts import InterruptsParser, parse_interrupts

SERIES = [f"netutils_series_multiqueue_4cpu_snap{i}.txt" for i in range(1, 6)]
PAIRS = [
    (
        "igb-style_16cpu_nehalem_kernel2.6.38_snapA_before.txt",
        "igb-style_16cpu_nehalem_kernel2.6.38_snapB_after_0.14s.txt",
    ),
    (
        "tg3_32cpu_broadwell-ep_kernel4.13_snapA_before.txt",
        "tg3_32cpu_broadwell-ep_kernel4.13_snapB_after.txt",
    ),
]


def _read(fixtures_dir: Path, name: str) -> str:
    return (fixtures_dir / "interrupts" / name).read_text()


def _bump(text: str, every: int) -> str:
    """Add 1 to the first count of every `every`-th row (the others stay byte-identical)."""
    out = []
    for k, line in enumerate(text.split("\n")):
        label, sep, rest = line.partition(":")
        toks = rest.split(" ")
        if sep and k % every == 0:
            for i, tok in enumerate(toks):
                if tok.isdigit():
                    toks[i] = str(int(tok) + 1)
                    break
        out.append(label + sep + " ".join(toks))
    return "\n".join(out)


def test_a_real_series_parses_the_same_as_full_parses(fixtures_dir: Path) -> None:
    parser = InterruptsParser()
    for name in SERIES:
        text = _read(fixtures_dir, name)
        assert parser.parse(text) == parse_interrupts(text)


@pytest.mark.parametrize(("before", "after"), PAIRS)
def test_a_before_after_pair_parses_the_same(fixtures_dir: Path, before: str, after: str) -> None:
    parser = InterruptsParser()
    for name in (before, after, before):
        text = _read(fixtures_dir, name)
        assert parser.parse(text) == parse_interrupts(text)


def test_unchanged_rows_are_reused_and_changed_ones_are_parsed_again(fixtures_dir: Path) -> None:
    text = _read(fixtures_dir, "netutils_ixgbe-82599_igb-i350_32cpu.txt")
    parser = InterruptsParser()
    first = parser.parse(text)
    second = parser.parse(_bump(text, 3))
    assert second == parse_interrupts(_bump(text, 3))
    reused = [a is b for a, b in zip(first.rows, second.rows, strict=True)]
    changed = [a.counts != b.counts for a, b in zip(first.rows, second.rows, strict=True)]
    assert any(reused) and any(changed)
    # A row object is shared exactly when its counts did not move.
    assert all(r != c for r, c in zip(reused, changed, strict=True))


def test_a_new_header_drops_the_cache(fixtures_dir: Path) -> None:
    """CPU3 going offline changes the header: rows with the same text must be re-read
    against the new columns."""
    parser = InterruptsParser()
    parser.parse("           CPU0       CPU1\n 38:        5          7   PCI-MSI 1-edge   eth0\n")
    text = "           CPU0       CPU3\n 38:        5          7   PCI-MSI 1-edge   eth0\n"
    got = parser.parse(text)
    assert got.cpus == (0, 3)
    assert got == parse_interrupts(text)


_LINE = st.sampled_from(
    [
        "           CPU0       CPU1",
        "           CPU0       CPU2       CPU3",
        " 38:        123          0  PCI-MSIX-0000:00:03.0  1-edge   virtio2-input.0",
        " 38:        124          0  PCI-MSIX-0000:00:03.0  1-edge   virtio2-input.0",
        " 39:          1          2          3  IR-PCI-MSI 512000-edge   eth0-TxRx-0",
        "NMI:          0          0   Non-maskable interrupts",
        "ERR:          0",
        "LOC:  9 8",
        "",
        "garbage: not a row",
    ]
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_LINE, max_size=6).map("\n".join), min_size=1, max_size=6))
def test_any_sequence_of_texts_matches_full_parses(texts: list[str]) -> None:
    parser = InterruptsParser()
    for text in texts:
        assert parser.parse(text) == parse_interrupts(text)


def _mutate(text: str, edits: list[int], tail: bool) -> str:
    """The capture with each line kept (0), a count changed at the same width (1) or not (2),
    dropped (3), doubled (4), followed by a line that is no row (5) or given a second action
    name (6: the old line is the new one's start); `tail`: the final newline kept."""
    out: list[str] = []
    for k, line in enumerate(text.rstrip("\n").split("\n")):
        edit = edits[k % len(edits)] if k else 0  # the header stays the first line
        if edit == 1:
            line = line.replace("0", "1", 1)
        elif edit == 2:
            line = line.replace(" 0 ", " 12345 ", 1)
        elif edit == 6:
            line += ", eth9"
        if edit != 3:
            out.append(line)
        if edit == 4:
            out.append(line)
        elif edit == 5:
            out.append("garbage: not a row")
    return "\n".join(out) + ("\n" if tail else "")


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(st.integers(0, 6), min_size=1, max_size=12), st.booleans()),
        min_size=1,
        max_size=5,
    )
)
def test_a_capture_changing_under_the_same_header_matches_full_parses(
    fixtures_dir: Path, ticks: list[tuple[list[int], bool]]
) -> None:
    """Issue 38: under an unchanged first-line header the rows are found in place (no split);
    whatever the rows do between ticks, the result is a full parse's."""
    text = _read(fixtures_dir, "netutils_ixgbe-82599_igb-i350_32cpu.txt")
    parser = InterruptsParser()
    assert parser.parse(text) == parse_interrupts(text)
    for edits, tail in ticks:
        got = _mutate(text, edits, tail)
        assert parser.parse(got) == parse_interrupts(got)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.integers(0, 6), min_size=1, max_size=12),
            st.booleans(),
            st.sampled_from(["", "\r", "é", "\x1c"]),  # a CR, non-ASCII, str.strip's \x1c
        ),
        min_size=1,
        max_size=5,
    )
)
def test_the_tick_buffer_parses_as_the_decoded_text_does(
    fixtures_dir: Path, ticks: list[tuple[list[int], bool, str]]
) -> None:
    """Issue 38: parse_ascii reads the table in the buffer kept between ticks (longer or
    shorter than this tick's text, a stale tail after it); it gives what a full parse of the
    decoded text gives, or None where that text is not plain ASCII without CRs."""
    text = _read(fixtures_dir, "netutils_ixgbe-82599_igb-i350_32cpu.txt")
    parser, buf = InterruptsParser(), bytearray()
    for edits, tail, odd in [([0], True, ""), *ticks]:
        got = _mutate(text, edits, tail)
        if odd:  # on one row, or its label
            got = (
                got.replace(" 38:", f"{odd}38:", 1)
                if odd == "\x1c"
                else got.replace("eth0", f"eth0{odd}", 1)
            )
        data = got.encode()
        buf[: len(data)] = data
        if len(buf) < len(data) + 5:
            buf.extend(b"x: 1 2\n\xc3\xa9" * 3)  # a stale tail: rows, not ASCII
        parsed = parser.parse_ascii(buf, len(data))
        if not got.isascii() or "\r" in got:
            assert parsed is None
            parsed = parser.parse(got.replace("\r\n", "\n").replace("\r", "\n"))
        assert parsed == parse_interrupts(got.replace("\r\n", "\n").replace("\r", "\n"))


def _lines_of(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(
        st.tuples(
            st.permutations(range(12)),  # the order of the first rows (the others stay)
            st.lists(st.integers(0, 6), min_size=1, max_size=12),
            st.sampled_from(["", "\r", "é"]),  # on a moved row: a CR, non-ASCII
        ),
        min_size=1,
        max_size=6,
    )
)
def test_the_tick_buffer_matches_full_parses_when_rows_move(
    fixtures_dir: Path, ticks: list[tuple[list[int], list[int], str]]
) -> None:
    """Issue 38: parse_ascii tries each line against the row that came next last tick, then
    by its label; rows that swap places, vanish, come twice or change (and odd bytes on a
    moved row) give what a full parse of the decoded text gives, or None."""
    text = _read(fixtures_dir, "netutils_ixgbe-82599_igb-i350_32cpu.txt")
    parser, buf = InterruptsParser(), bytearray()
    for order, edits, odd in [(list(range(12)), [0], ""), *ticks]:
        header, *rows = _lines_of(_mutate(text, edits, True))
        head = [rows[i] for i in order if i < len(rows)]
        if odd and head:
            head[0] = head[0].replace(":", f":{odd}", 1)
        got = "\n".join([header, *head, *rows[12:]]) + "\n"
        data = got.encode()
        buf[: len(data)] = data
        del buf[len(data) + 7 :]  # a stale tail of an older, longer tick
        parsed = parser.parse_ascii(buf, len(data))
        if not got.isascii() or "\r" in got:
            assert parsed is None
            parsed = parser.parse(got.replace("\r\n", "\n").replace("\r", "\n"))
        assert parsed == parse_interrupts(got.replace("\r\n", "\n").replace("\r", "\n"))


def test_unchanged_rows_in_the_buffer_are_reused(fixtures_dir: Path) -> None:
    """The same objects for rows whose line did not change (what keeps the rates' `is` skip
    working), new ones for those that did."""
    text = _read(fixtures_dir, "netutils_ixgbe-82599_igb-i350_32cpu.txt")
    parser = InterruptsParser()
    for t in (text, text, _bump(text, 5)):
        buf = bytearray(t.encode())
        got = parser.parse_ascii(buf, len(buf))
        assert got == parse_interrupts(t)
        if t is text and got is not None:
            first = got
    assert got is not None
    same = [a is b for a, b in zip(first.rows, got.rows, strict=True)]
    lines, bumped = _lines_of(text)[1:], _lines_of(_bump(text, 5))[1:]
    changed = [a != b for a, b in zip(lines, bumped, strict=True)]
    assert same == [not c for c in changed[: len(same)]]


_CPU_SETS = st.lists(st.integers(0, 9), min_size=1, max_size=5, unique=True).map(sorted)
# A table: its CPUs, then rows (label, counts, name) in table order; a count of 7 digits at most
# keeps the kernel's width, so a change to one is often a same-length line (what a digest of
# the line, not its length, must tell).
_TABLE = st.tuples(
    _CPU_SETS,
    st.lists(
        st.tuples(
            st.sampled_from(["0", "8", "38", "39", "140", "NMI", "LOC", "IPI0", "ERR"]),
            st.lists(st.integers(0, 9_999_999), min_size=1, max_size=6),
            st.sampled_from(["", "IO-APIC 2-edge timer", "PCI-MSIX 1-edge eth0-rx-0", "Local"]),
        ),
        max_size=9,
        unique_by=lambda r: r[0],
    ),
)


def _table_text(cpus: list[int], rows: list[tuple[str, list[int], str]]) -> str:
    header = " " * 5 + "".join(f"{'CPU' + str(c):>11}" for c in cpus)
    lines = [header]
    for label, counts, name in rows:
        cells = "".join(f"{n:>11}" for n in counts[: len(cpus)])
        lines.append(f"{label:>4}:{cells}  {name}".rstrip())
    return "\n".join(lines) + "\n"


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(st.tuples(_TABLE, st.booleans(), st.integers(0, 3)), min_size=2, max_size=8),
    st.data(),
)
def test_any_sequence_of_tables_matches_full_parses(
    ticks: list[tuple[tuple[list[int], list[tuple[str, list[int], str]]], bool, int]],
    data: st.DataObject,
) -> None:
    """Issue 38: the parser keeps a digest of each row's line, not the line; over any sequence
    of tables (rows that move, appear, vanish or change a count at the same width, the CPUs
    that change), read from the tick buffer or from text, each tick gives exactly the rows and
    counts of a full parse of that tick's table."""
    parser, buf = InterruptsParser(), bytearray()
    last: tuple[list[int], list[tuple[str, list[int], str]]] | None = None
    for table, from_buffer, repeat in ticks:
        if last is not None and repeat:
            # Last tick's table again, some counts bumped without changing their width.
            cpus, rows = last
            bump = data.draw(st.sets(st.integers(0, max(len(rows) - 1, 0))))
            rows = [
                (label, [counts[0] ^ 1, *counts[1:]] if i in bump else counts, name)
                for i, (label, counts, name) in enumerate(rows)
            ]
            table = (cpus, rows)
        last = table
        text = _table_text(*table)
        if from_buffer:
            raw = text.encode()
            buf[: len(raw)] = raw
            parsed = parser.parse_ascii(buf, len(raw))
        else:
            parsed = parser.parse(text)
        assert parsed == parse_interrupts(text)
