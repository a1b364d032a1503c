"""A sweep spec from the live screen's form: a few lines a user types instead of a file.

Each dimension is one line, `SETTING = V1 | V2 | V3` (a bar between values, since CPU lists
and `pin 0,1` hold commas); the rest is the spec's own fields. The result goes through the
spec file's parser, so the form refuses exactly what a file would, with the same one line.
"""

from __future__ import annotations

from collections.abc import Sequence

from tuitune.core.sweep.spec import MAX_DIMENSIONS, SpecError, SweepSpec, parse

DESIGN_WORDS = ("grid", "one-at-a-time")


def _value(text: str) -> object:
    """What the TOML file would hold: numbers as numbers (streams need them), the rest text."""
    t = text.strip()
    return int(t) if t.isascii() and t.isdigit() and len(t) <= 18 else t


def dimension_line(line: str, where: str) -> dict[str, object]:
    setting, sep, rest = line.partition("=")
    if not sep or not setting.strip() or not rest.strip():
        raise SpecError(f"{where}: write SETTING = VALUE | VALUE (like tso = on | off)")
    values = [_value(v) for v in rest.split("|")]
    if any(v == "" for v in values):
        raise SpecError(f"{where}: an empty value between bars")
    return {"setting": " ".join(setting.split()), "values": values}


def from_form(
    dimensions: Sequence[str],
    *,
    design: str = "grid",
    repeats: str = "2",
    seconds: str = "3",
    name: str = "screen",
) -> SweepSpec:
    """The spec the form describes, or SpecError (one line, naming the field)."""
    lines = [d for d in dimensions if d.strip()]
    if not lines:
        raise SpecError("dimension 1: name a setting and its values (like tso = on | off)")
    if len(lines) > MAX_DIMENSIONS:
        raise SpecError(f"at most {MAX_DIMENSIONS} dimensions")
    dims = [dimension_line(d, f"dimension {i}") for i, d in enumerate(lines, 1)]
    numbers = {}
    for field, text in (("repeats", repeats), ("seconds", seconds)):
        t = text.strip()
        if not (t.isascii() and t.isdigit() and len(t) <= 6):
            raise SpecError(f"{field}: {t[:20]!r} is not a whole number")
        numbers[field] = int(t)
    doc: dict[str, object] = {
        "sweep": {"name": name, "design": design.strip(), "repeats": numbers["repeats"]},
        "bench": {"seconds": numbers["seconds"]},
        "dimension": dims,
    }
    try:
        return parse(doc)
    except SpecError as exc:
        text = str(exc).replace("[[dimension]] ", "dimension ").replace("[sweep] ", "")
        raise SpecError(text.replace("[bench] ", "")) from None
