"""Every figure the Advisor quotes from a report comes from that report (issue 31 item 8).

The catalog's test (tests/unit/core/test_catalog_figures.py) holds the help texts to the
vendored evidence of tests/fixtures/seed_quotes.toml, and that evidence to the reports when
they are present. This test reuses its evidence and its notion of a figure for the Advisor:
what each rule's sources say it measured (every `SourceRef` in tuitune/core/advise, read from
the code so no rule is left out), every other message of the rules that names a report, and
the "Why" of each rule and the context paragraph in docs/advise.md. The Advisor writes rates in
Gb/s where the reports wrote Mb/s: a figure also counts when it is a report's Mb/s figure / 1000,
rounded to the digits shown.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from tests.unit.core.test_catalog_figures import (
    _NAMES,
    _NOT_FIGURES,
    _NUM,
    _evidence,
    _key,
    _rounds_to,
)
from tuitune.core.advise.rules_nic import OFFLOADS

ROOT = Path(__file__).resolve().parents[4]
ADVISE = ROOT / "tuitune" / "core" / "advise"
DOC = ROOT / "docs" / "advise.md"

# How the texts name the reports.
NAMES = {
    "NASA": "nasa-40g",
    "CERN": "cern-10g",
    "Red Hat": "redhat-10g",
    "ESnet": "esnet-100g",
    "LOFAR": "lofar-wan",
}
# Figures that are not quotes: table numbers, TCP's 64 KiB window without scaling (a protocol
# fact), PCIe widths, a man page's section ("tc-fq(8)").
_NOT_QUOTES = re.compile(r"Table \d|64 KiB|\bx\d+\b|(?<=\w)\(\d\)")
# "15,149" is one figure.
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
# The Advisor's units against the reports': Gb/s for Mb/s, MiB for bytes, MB for bytes.
_SCALES = (Decimal(1000), Decimal(1 << 20), Decimal(10**6))

Text = tuple[str, str, frozenset[str]]  # (where, text, sources it may quote)


def _string(node: ast.expr) -> str | None:
    """The text of a string literal; of an f-string, its literal parts (what is filled in at
    run time is the host's, not a report's)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(_string(v) or " " for v in node.values)
    return None


def _named(text: str) -> frozenset[str]:
    return frozenset(sid for name, sid in NAMES.items() if name in text)


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level NAME = "text": a source id may be written once and named (_KDOC)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], _string(node.value)
            if isinstance(target, ast.Name) and value is not None:
                out[target.id] = value
    return out


def rule_texts() -> Iterator[Text]:
    for path in sorted(ADVISE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _constants(tree)
        in_refs: set[int] = set()
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef)
            and n.body
            and isinstance(n.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "SourceRef"
                and len(node.args) == 2
            ):
                first, second = node.args
                named = names.get(first.id) if isinstance(first, ast.Name) else None
                sid, measured = named or _string(first), _string(second)
                assert sid is not None, f"{path.name}:{node.lineno}"
                in_refs.update(id(n) for n in ast.walk(node))
                if measured is not None:
                    yield f"{path.name}:{node.lineno} [{sid}]", measured, frozenset({sid})
        for node in ast.walk(tree):
            if id(node) in in_refs or id(node) in docstrings:
                continue
            if isinstance(node, ast.Constant | ast.JoinedStr):
                text = _string(node)
                if text and (named := _named(text)):
                    yield f"{path.name}:{node.lineno}", text, named
    for group, text in OFFLOADS.items():
        yield f"OFFLOADS[{group}]", text, frozenset({"nasa-40g"})


def doc_texts() -> Iterator[Text]:
    text = DOC.read_text(encoding="utf-8")
    rule = ""
    for block in re.split(r"\n(?=### |- \*\*|\*\*Context)", text):
        if block.startswith("### "):
            rule = block.split("`")[1]
        if block.startswith("- **Why**") or block.startswith("**Context"):
            flat = " ".join(block.split("\n\n")[0].split())
            yield f"docs/advise.md {rule or 'context'} Why", flat, _named(flat)


def _scaled(figure: str, known: set[str]) -> bool:
    """7.1 (Gb/s) for 7100 Mbps, 20.8 for 20800.8967, 64 (MiB) for 67108864 bytes: a report's
    figure in another unit, at the digits shown, for figures of two or more significant
    digits (so "2" is never "2400 rounded")."""
    if figure.count(".") > 1 or len(figure.replace(".", "").lstrip("0")) < 2:
        return False
    places = Decimal(1).scaleb(-len(figure.partition(".")[2]))
    want = Decimal(figure)
    return any(
        (Decimal(k) / scale).quantize(places, rounding=ROUND_HALF_UP) == want
        for k in known
        if k.count(".") <= 1
        for scale in _SCALES
    )


def _tokens(text: str) -> set[str]:
    """The figures of a text as written ("21.0" stays "21.0": its digits say its precision)."""
    text = _NAMES.sub(" ", _NOT_QUOTES.sub(" ", _THOUSANDS.sub("", text)))
    return {t for t in _NUM.findall(text) if t not in _NOT_FIGURES}


def unsourced(texts: list[Text], evidence: dict[str, set[str]]) -> list[str]:
    bad = []
    for where, text, allowed in texts:
        known = set().union(*(evidence.get(s, set()) for s in allowed))
        missing = sorted(
            t
            for t in _tokens(text)
            if _key(t) not in known and not _rounds_to(_key(t), known) and not _scaled(t, known)
        )
        if missing:
            bad.append(f"{where}: {', '.join(missing)} (sources {sorted(allowed)}): {text!r}")
    return bad


def test_every_figure_the_rules_quote_is_in_their_source() -> None:
    texts = list(rule_texts())
    assert len([t for t in texts if "[" in t[0]]) >= 25  # every SourceRef was found
    bad = unsourced(texts, _evidence())
    assert not bad, "figures not in the report they cite:\n" + "\n".join(bad)


def test_every_figure_in_the_docs_why_is_in_the_reports_it_names() -> None:
    texts = list(doc_texts())
    assert len(texts) >= 15  # each rule's Why, and the context paragraph
    bad = unsourced(texts, _evidence())
    assert not bad, "figures in docs/advise.md not in the reports named:\n" + "\n".join(bad)


def test_a_wrong_figure_is_caught() -> None:
    """Not vacuous: LOFAR's 10 s figure (5.44 Gb/s) counts, a made-up 5.3 does not,
    and a NASA figure does not count for LOFAR."""
    ev = _evidence()
    lofar = frozenset({"lofar-wan"})
    assert not unsourced([("t", "5.44 Gb/s with both ends", lofar)], ev)
    assert unsourced([("t", "5.3 Gb/s with both ends", lofar)], ev)
    assert unsourced([("t", "21.0 Gb/s", lofar)], ev)
    assert not unsourced([("t", "21.0 Gb/s", frozenset({"nasa-40g"}))], ev)


def test_the_readings_issue_31_corrected() -> None:
    """The misreadings issue 31 item 8 found, each checked where the user reads it."""
    rules = " ".join(t[1] for t in rule_texts())
    doc = " ".join(DOC.read_text(encoding="utf-8").split())
    # LOFAR's both-ends run: 5.44 Gb/s over 10 s (5.23 was its first second).
    assert "5.23" not in rules and "5.23" not in doc
    assert "5.44 Gb/s over 10 s" in rules and "5.44 Gb/s over the 10 s run" in doc
    # NASA gives no drop counts for its backlog test; LOFAR is a WAN source.
    assert "did not drop" not in doc
    assert "WAN, 10 GigE: suggests netdev_max_backlog 30000" in rules
    # NASA's 49.7/50.0 core was its best run; Table 4 moved the application.
    assert "even its best run (20.8 Gb/s, 0 retransmits)" in rules
    assert "the application moved, not the IRQ" in rules
    assert "fewer interrupts" in doc
    # No "GRO row" for GSO; no stretches of ESnet's and LOFAR's words.
    for stretch in ("GRO row", "every 10G interface", "NIC's core", "on both ends"):
        assert stretch not in rules and stretch not in doc, stretch
