"""The entries of the sysctl catalog, kept importable under their old name.

The entries are data now: tuitune/core/catalog/data/sysctl.toml, read once by
tuitune.core.catalog (which holds the types, the lookup and the parsing). This module imports
that one, never the other way round, so there is no import cycle.
"""

from __future__ import annotations

from tuitune.core.catalog import SYSCTLS, SysctlEntry


def build() -> tuple[SysctlEntry, ...]:
    """The sysctl entries in catalog order (loaded once; this returns the same tuple)."""
    return SYSCTLS
