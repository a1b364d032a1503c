"""What the screen's rows mean to the journal: row key -> setting Key, and how to edit it.

Pure functions (no Textual), so the mapping is tested without a terminal. The journal itself
(tuitune.core.session) does the validating, recording, writing and verifying.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tuitune.core.cpulist import CpuListError, format_mask, parse_cpulist
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.session.kinds.edit import CANNOT_CHANGE, PICK_INTERFACE, EditContext
from tuitune.core.session.kinds.edit import EditSpec as EditSpec  # where the screens find it
from tuitune.core.watch.snapshot import HostState, NicState

# The kinds' handlers load on the first edit or note, not with the screen (issue 38).
if TYPE_CHECKING:
    from tuitune.core.session import Key, Outcome
    from tuitune.core.session.kinds.base import KindHandler


@functools.cache
def _edits() -> dict[str, KindHandler]:
    """Each row kind ("rings" of "rings:rx") -> the handler that edits its settings."""
    from tuitune.core.session.kinds.table import HANDLERS

    return {row: h for h in HANDLERS.values() for row in h.rows}


def edit_spec(
    row_key: str | None,
    ifname: str | None,
    nic: NicState | None,
    host: HostState | None,
    irq_affinity: Mapping[str, IrqAffinity] | None = None,
) -> EditSpec | str:
    """How to edit the setting behind a panel row, or why it cannot be edited: the handler of
    the row's kind says (`KindHandler.edit`). `irq_affinity`: what the IRQ panel shows (the
    host's IRQs too); default: the NIC's."""
    if not row_key or row_key.startswith("§"):
        return "nothing to change on this line"
    row, _, rest = row_key.partition(":")
    edits = _edits().get(row)
    if edits is None:
        return PICK_INTERFACE if ifname is None or nic is None else CANNOT_CHANGE
    return edits.edit(row, rest, EditContext(ifname, nic, host, irq_affinity))


def row_key_of(key: Key) -> str:
    """The panel row that shows a setting (the inverse of edit_spec): its kind's handler says."""
    from tuitune.core.session.kinds.table import handler

    return handler(key.kind).row_key(key)


def state_note(out: Outcome, locked: str = "") -> str | None:
    """A kernel refusal that is a lasting state of the setting, as its row says it: a managed
    IRQ is locked, an EOPNOTSUPP is not supported, EPERM needs root. None for anything else
    (a bad value, a busy device: the message line says those)."""
    if out.status != "refused" or out.state is None:
        return None
    reason = out.state.reason
    tail = reason.split(": ", 1)[1] if ": " in reason else reason
    mark = f"{locked} " if locked else ""
    if out.state.kind == "permission":
        return f"{mark}read-only: {tail}"
    if out.state.kind != "unsupported":
        return None
    if "managed by the kernel" in reason or "fixed" in reason:
        return f"{mark}locked: {tail}"
    return mark + (tail if tail.startswith("not supported") else f"not supported: {tail}")


def mask_preview(text: str, ncpus: int, possible: int | None = None) -> str:
    """The hex mask the kernel will show for a typed CPU list (32-bit groups, comma-separated),
    or what is wrong with the list: shown live under the editor, rebuilt on every keystroke, so
    the list is bounded by the host's CPUs before it is expanded, and the line by PREVIEW_MAX
    (a mask of thousands of CPUs would push the editor's error off the screen)."""
    text = text.strip()
    if text in ("", "none"):
        return "mask: 0 (no CPU)"
    try:
        cpus = parse_cpulist(text, possible)
        mask = format_mask(cpus, max(ncpus, max(cpus, default=0) + 1))
    except CpuListError as exc:
        return _clip(f"not a CPU list: {exc}")
    return _clip(f"mask: {mask}")


PREVIEW_MAX = 76  # one line of the editor's box at 80 columns


def _clip(line: str) -> str:
    """Elide the middle: a mask's low CPUs are at its right end, a message's point at its left."""
    if len(line) <= PREVIEW_MAX:
        return line
    head = PREVIEW_MAX // 2
    return line[:head] + "…" + line[-(PREVIEW_MAX - head - 1) :]
