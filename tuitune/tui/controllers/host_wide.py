"""The question before a change of the whole host from a network-namespace session: a
host-wide sysctl, the CPU governor, EPP or C-states, boost, SMT, a module parameter. Which
settings are the host's is their kind handler's word (`KindHandler.host_wide`, the one
place that knows; HostAccess refuses them unasked); this module only asks, from every path
of the screen that writes one (the panels' editor, the Host view, SMT's trial)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tuitune.core.session.settings import Key
from tuitune.tui.screens.dialogs import ChoiceScreen
from tuitune.tui.shell import Shell

TITLE = "Host-wide setting"
YES = ("y", "change it for the whole host")


def host_wide_text(keys: Sequence[Key], netns: str | None) -> str | None:
    """What the question says for `keys` changed from namespace `netns` (None: a host
    session, or nothing host-wide among them: nothing to ask)."""
    if not netns:
        return None
    # The kind table loads every handler: asked on a change, not at the screen's start.
    from tuitune.core.session.kinds.table import handler

    said = next((w for k in keys if (w := handler(k.kind).host_wide(k))), None)
    if said is None:
        return None
    return (
        f"{said}.\n\nThis session is in network namespace {netns}: "
        "the change is not only this namespace's."
    )


def ask_host_wide(
    shell: Shell,
    keys: Sequence[Key],
    then: Callable[[], None],
    no: Callable[[], None] | None = None,
) -> None:
    """`then()` at once when nothing of `keys` is the whole host's (or this is no namespace
    session); else after the user agreed. Esc or any other answer writes nothing (`no()`)."""
    host = shell.selection().host
    text = host_wide_text(keys, host.netns if host is not None else None)
    if text is None:
        then()
        return

    def answer(choice: str | None) -> None:
        if choice == YES[0]:
            then()
        elif no is not None:
            no()

    shell.push_screen(ChoiceScreen(TITLE, text, [YES]), answer)
