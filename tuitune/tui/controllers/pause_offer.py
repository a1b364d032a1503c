"""After a pause rx/tx change the kernel did not keep because pause autoneg is on (the link
partner decides: core/session/pause.py), offer what forces it: autoneg off with the change,
as one step (one undo)."""

from __future__ import annotations

from collections.abc import Callable

from tuitune.core.session import Key, Outcome
from tuitune.core.session.pause import PARTNER_DECIDES, autoneg_key
from tuitune.core.watch.snapshot import NicState
from tuitune.tui.screens.dialogs import ChoiceScreen
from tuitune.tui.shell import Shell

# The Editor's one-step apply (Editor.apply_step): the changes as one journal step, counted
# and reported as any change is, with the NIC state from before them.
ApplyStep = Callable[[list[tuple[Key, str]], NicState | None], None]


def offer_autoneg_off(shell: Shell, out: Outcome, target: str, apply_step: ApplyStep) -> None:
    """Ask to turn pause autoneg off and set `out.key` to `target` (nothing when `out` is
    not such a negotiated refusal)."""
    auto = autoneg_key(out.key)
    if auto is None or out.ok or PARTNER_DECIDES not in (out.reason or ""):
        return
    key, before_nic = out.key, shell.selection().nic

    def answer(choice: str | None) -> None:
        if choice == "a":
            apply_step([(auto, "off"), (key, target)], before_nic)

    shell.push_screen(
        ChoiceScreen(
            "Pause is negotiated",
            f"{key.label} stayed {out.after}: with pause autoneg on, the link partner decides "
            "rx/tx pause. With autoneg off the device does what it is told (the partner may "
            "then pause when this side does not, or the other way round).",
            [("a", f"turn pause autoneg off and set {key.name} {target}"), ("k", "keep as is")],
        ),
        answer,
    )
