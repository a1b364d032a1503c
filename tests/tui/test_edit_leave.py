"""What outlives the screen (issue 22, item 12): keeping the changes on quit with a trial
change still waiting confirms it (its watchdog would otherwise put it back once tuitune is
gone), and the start-up offer names the originals an earlier run left and says "put back",
not "trial ended", when it restores them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from tests.support.edit_host import DEV, EditHost, editing
from tests.tui.test_edit_refusals import edit
from tuitune.core.session import HostAccess, Journal, JournalState, Key, watchdog_process
from tuitune.core.session.journal_file import read_records
from tuitune.tui.screens.dialogs import ChoiceScreen


async def question(h: EditHost) -> str:
    def said() -> str:
        screen = h.app.screen
        if not isinstance(screen, ChoiceScreen):
            return ""
        return " ".join(h.shown(s) for s in screen.query(Static)).strip()

    await h.wait(said)
    return said()


def journal_state(tmp_path: Path) -> JournalState:
    [path] = (tmp_path / "journal").glob("*.journal")
    return JournalState.replay(read_records(path))


async def test_keeping_on_quit_confirms_the_waiting_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watchdog_process, "spawn", lambda spec: 0)  # the stand-in watchdog: none
    async with editing(tmp_path) as h:
        await edit(h, "nic", "link:mtu", "9000")
        await h.wait(lambda: f"TRIAL {DEV} mtu: reverts in" in h.tui.header())
        await h.tui.press("q")
        said = await question(h)
        assert f"The trial change of {DEV} mtu is still waiting: keeping confirms it" in said
        await h.tui.press("k")
        await h.wait(lambda: not h.app.is_running)
    state = journal_state(tmp_path)
    assert state.trial is None  # nothing left for a watchdog to put back
    assert state.trial_end is not None and state.trial_end.how == "confirmed"
    assert (h.tree / f"sys/class/net/{DEV}/mtu").read_text().strip() == "9000"


async def test_the_start_offer_names_what_it_restores(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        # An earlier tuitune changed somaxconn and was killed: its journal is on disk.
        access: HostAccess = h.app.session.access()
        with Journal.open(access, tmp_path / "journal") as journal:
            assert journal.apply(Key.sysctl("net.core.somaxconn"), "8192").ok
        h.app.editor.offer_restore()
        said = await question(h)
        assert "recorded 1 original value(s)" in said
        assert "net.core.somaxconn (was 4096)" in said
        await h.tui.press("r")
        await h.wait(lambda: "put back net.core.somaxconn: 8192 -> 4096" in h.tui.header())
        assert "trial" not in h.tui.header()
    assert (h.tree / "proc/sys/net/core/somaxconn").read_text().strip() == "4096"


async def test_a_watchdog_revert_is_told_at_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watchdog_process, "spawn", lambda spec: 0)
    monkeypatch.setattr(watchdog_process, "stop", lambda pid: None)
    async with editing(tmp_path) as h:
        # An earlier tuitune tried an MTU and lost its terminal; its watchdog put it back.
        access: HostAccess = h.app.session.access()
        with Journal.open(access, tmp_path / "journal") as journal:
            out, trial = journal.apply_trial(Key.mtu(DEV), "9000")
            assert out.ok and trial is not None
            journal.expire_trial(trial.id, by="watchdog")
        h.app.editor.offer_restore()
        await h.wait(lambda: "the trial watchdog put back" in h.tui.header())
        said = " ".join(h.tui.header().split())
        assert f"the trial watchdog put back {DEV} mtu (9000 -> 1500) at " in said
        assert "it was not confirmed" in said
        # Told once: the journal, which held nothing more, is gone.
        await h.wait(lambda: not list((tmp_path / "journal").glob("*.journal")))
        assert not isinstance(h.app.screen, ChoiceScreen)  # nothing left to offer
