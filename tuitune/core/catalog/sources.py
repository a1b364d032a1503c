"""The reference documents behind tuitune's advice.

Five field reports (the seed files in shared/seeds) measured what the knobs do; every Advice in
the catalogs names one of them by id. A sixth record, "kernel-doc", stands for the kernel's own
documentation and marks statements that are general knowledge rather than something the
reports measured.

The records are data: tuitune/core/catalog/data/sources.toml, read once at import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tuitune.core.catalog.load import DATA_DIR, load

Setting = Literal["LAN", "WAN", "general"]


@dataclass(frozen=True, slots=True)
class Source:
    id: str  # short id used by Advice.source
    file: str | None  # seed file name in shared/seeds; None for a non-seed reference
    title: str
    organisation: str
    authors: str | None
    year: int | None  # only when the document states it
    link: str | None  # where the document itself lives, when it says so
    context: Setting  # the kind of network it tested
    setting: str  # the testbed or path it describes
    citation: str  # short form for help text and export comments
    see_also: tuple[str, ...] = ()  # further links the document itself points to


def load_sources(path: Path = DATA_DIR / "sources.toml") -> tuple[Source, ...]:
    """The sources of a data file; CatalogDataError naming the file and entry if bad."""
    return load(path, "source", Source, id_field="id")


SOURCES: tuple[Source, ...] = load_sources()
_BY_ID: dict[str, Source] = {s.id: s for s in SOURCES}
SOURCE_IDS: frozenset[str] = frozenset(_BY_ID)
SEED_SOURCES: tuple[Source, ...] = tuple(s for s in SOURCES if s.file is not None)


def source(source_id: str) -> Source:
    """The source with this id; KeyError listing the known ids otherwise."""
    try:
        return _BY_ID[source_id]
    except KeyError:
        known = ", ".join(sorted(_BY_ID))
        raise KeyError(f"unknown source id {source_id!r} (known: {known})") from None
