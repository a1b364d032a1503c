"""`tuitune show`'s platform table: the Host view's rows (core/platformview.py) in Rich."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from tuitune.core.host.platform import Platform
from tuitune.core.platformnote import worst
from tuitune.core.platformview import platform_rows
from tuitune.core.watch.snapshot import Snapshot


def platform_table(snap: Snapshot, platform: Platform) -> Table:
    found = worst(snap.host, snap.nic, platform)
    title = "platform (BIOS/platform, firmware, driver, NIC)"
    if found is not None:
        title += f"  worst: {found.severity}: {found.id}"
    t = Table(title=title, box=box.SIMPLE, title_justify="left", title_style="bold")
    t.add_column("section", style="dim")
    t.add_column("")
    t.add_column("value")
    t.add_column("help", style="dim")
    last = None
    for row in platform_rows(platform, snap.host, snap.nic):
        style = "dim italic" if row.unavailable else ""
        t.add_row(
            row.section if row.section != last else "",
            row.label,
            Text(row.value, style=style),
            row.help or "",
        )
        last = row.section
    return t
