"""The two help screens of the live screen: every key (? or F1), and one row in full (Enter)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.binding import BindingType

from tuitune.tui.controllers.irqmove import HOW as MOVE_HOW
from tuitune.tui.hostview import HOST_BINDINGS
from tuitune.tui.panels.cpugrid import CpuList
from tuitune.tui.panels.panels import IrqList, NicList, SysctlList
from tuitune.tui.panels.rowview import RowView, plain_text
from tuitune.tui.panels.sysctlpanel import help_text, own_help
from tuitune.tui.screens.dialogs import TextScreen, keys_text


def keys_screen(everywhere: Sequence[BindingType], theme_problems: Sequence[str]) -> TextScreen:
    """Every binding, by the panel it works in, then the mouse and the IRQ move explained."""
    text = keys_text(
        [
            ("Everywhere", [*everywhere, *HOST_BINDINGS]),
            ("In every list", RowView.BINDINGS),
            ("CPU grid", CpuList.BINDINGS),
            ("IRQ panel", IrqList.BINDINGS),
            ("NIC panel", NicList.BINDINGS),
            ("sysctl panel", SysctlList.BINDINGS),
        ]
    )
    text.append(
        "Mouse: click a panel or a tab to focus it, a row to move the cursor, a CPU in the "
        "heat map to find it in the list. Everything has a key too.\n"
    )
    text.append(
        f"\n{MOVE_HOW} A preview says where it lands now and after; y moves it. Its row "
        'says "pending" until the kernel\'s effective affinity follows (x86 moves an IRQ '
        "at its next interrupt). With the mouse (150x40 and more, both panels on screen): "
        "drag the IRQ's row onto a CPU row or heat-map cell; e types a CPU list.\n"
    )
    if theme_problems:
        text.append("\nTheme files that did not load:\n" + "\n".join(theme_problems))
    return TextScreen("Keys", text)


def row_screen(view: RowView) -> TextScreen | None:
    """Enter: the help text of the row under the cursor, or the row itself with every cell in
    full when it has none (None: nothing to explain)."""
    row = view.cursor_row
    key = view.cursor_key
    title, body = help_text(key)
    if row is not None and (not body or not own_help(key)):
        # No entry of its own (a CPU row): the row in full, then what it also explains.
        names = [c.title for c in view.columns]
        cells = [plain_text(c) for c in row.values]
        title = cells[0].strip() + (f" ({title.partition(' (')[2]}" if body else "")
        whole = "\n".join(f"{n}: {c}" for n, c in zip(names, cells, strict=False) if c)
        body = whole + (f"\n\n{body}" if body else "")
    return TextScreen(title, body) if body else None
