"""After a pause rx/tx change the kernel did not keep because pause autoneg is on (the link
partner decides: core/session/pause.py), offer what forces it: autoneg off with the change,
as one step (one undo)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuitune.core.session import Journal, Outcome
from tuitune.core.session.pause import PARTNER_DECIDES, autoneg_key
from tuitune.tui.screens.dialogs import ChoiceScreen

if TYPE_CHECKING:
    from tuitune.tui.controllers.edit import Editor


def offer_autoneg_off(editor: Editor, out: Outcome, target: str) -> None:
    """Ask to turn pause autoneg off and set `out.key` to `target` (nothing when `out` is
    not such a negotiated refusal)."""
    auto = autoneg_key(out.key)
    if auto is None or out.ok or PARTNER_DECIDES not in (out.reason or ""):
        return
    key, before_nic = out.key, editor.shell.selection().nic

    def work(j: Journal) -> list[Outcome]:
        return j.apply_all([(auto, "off"), (key, target)])

    def done(outs: list[Outcome]) -> None:
        if any(o.status == "changed" for o in outs):
            editor.changes += 1
            editor.compare_from(before_nic)
        editor.report(outs)

    def answer(choice: str | None) -> None:
        if choice == "a":
            editor.run_journal(work, done)

    editor.shell.push_screen(
        ChoiceScreen(
            "Pause is negotiated",
            f"{key.label} stayed {out.after}: with pause autoneg on, the link partner decides "
            "rx/tx pause. With autoneg off the device does what it is told (the partner may "
            "then pause when this side does not, or the other way round).",
            [("a", f"turn pause autoneg off and set {key.name} {target}"), ("k", "keep as is")],
        ),
        answer,
    )
