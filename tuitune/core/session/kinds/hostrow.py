"""A row of the Host view (and of `show`'s platform text): what core/platformview.py writes
for the platform, and a kind's handler for its own read (`host_rows`, over its
`platform_read`'s value). Here, below both, so a handler writes its rows without importing
the view that walks the handlers."""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.text import printable
from tuitune.core.values import Unavailable

SECTIONS = ("BIOS / platform", "firmware", "driver", "NIC")


@dataclass(frozen=True, slots=True)
class Row:
    section: str
    label: str
    value: str
    help: str | None  # a device catalog entry (catalog_device.device_help)
    unavailable: bool = False  # the value is a state (dim on screen)
    # What `e` changes from the Host view (tui/host_edit.py): a kind's `HostRowEdit.row`
    # (kinds/edit.py), or "cpu_freq" (governor/EPP of the row's CPUs), "cstate" (NAME on|off
    # per CPU), "cpu_boost"; None: nothing to change here.
    edit: str | None = None
    cpus: frozenset[int] = frozenset()  # the CPUs a CPU power row covers (its edit's default)
    now: str = ""  # the editable value as one types it ("governor powersave", "C6 on")
    # A setting's row (a kind's handler wrote it): with no `edit`, `e` says it cannot be
    # changed here and why (its value), not that the row holds nothing to change.
    setting: bool = False


def shown(text: object) -> str:
    """Text from the host, safe on one line (the one sanitiser)."""
    return printable(str(text))


def state_text(u: Unavailable) -> str:
    return shown(u.reason)
