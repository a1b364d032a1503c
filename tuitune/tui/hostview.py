"""The App's Host view key (H), the connections view key (C) and the NIC panel title's note:
a base class between Frame and the App (tui/app.py), so the platform's wiring lives beside its
screen (screens/host.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar, cast

from textual.binding import Binding, BindingType

from tuitune.core.session.outcome import Outcome, summary
from tuitune.core.session.settings import Key, cpus_value
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.sampler import Sampler
from tuitune.tui.controllers.advisor import COUNT_FROM, Advisor
from tuitune.tui.controllers.edit import Editor
from tuitune.tui.controllers.editing import EditSpec
from tuitune.tui.controllers.host_wide import ask_host_wide, host_wide_text
from tuitune.tui.frame import Frame
from tuitune.tui.screens.dialogs import ChoiceScreen
from tuitune.tui.shell import Shell

if TYPE_CHECKING:  # the platform reader loads with the Host view, on first use
    from tuitune.core.host.platform import Platform

# What the Host view says when a host-wide change was not agreed to (Esc on the question).
NOT_ASKED = "not changed: the whole host's, not agreed to"

HOST_BINDINGS: list[BindingType] = [
    Binding("H", "host", "Host: CPU power, SMT, PCIe, IOMMU, driver (BIOS to NIC)", show=False),
    Binding("C", "connections", "Connections: cwnd, RTT, retransmits, pacing, wscale", show=False),
]


class HostView(Frame):
    BINDINGS: ClassVar[list[BindingType]] = HOST_BINDINGS

    reader: HostReader  # set by the App
    sampler: Sampler  # set by the App: reads the connections while the view is open
    interval: float  # the refresh, seconds (the App's)
    editor: Editor  # set by the App
    advisor: Advisor  # set by the App: judges the platform read here
    ifname: str | None
    samples_drawn: int
    # The NIC panel title's tail: the platform's worst finding, or "" (tui/scene.py).
    platform_note = ""
    _platform_of: str | None = None  # the interface the note was read for

    def sample_drawn(self) -> None:
        """One more sample on screen. From the Advisor's first count on (its rules are
        loaded by then: the first frames stay light), and for each new interface, the
        platform is read again for the NIC panel's note."""
        self.samples_drawn += 1
        if self.samples_drawn >= COUNT_FROM and self.ifname != self._platform_of:
            self._platform_of = self.ifname
            # Not the Host view's module: the note needs none of the kinds' (issue 38, goal 3).
            from tuitune.tui.platform_note import read_note

            read_note(cast(Shell, self), self.reader, self._platform_note, self._platform_read)

    def action_host(self) -> None:
        """Read the platform (off the UI thread); name its worst finding in the NIC panel's
        title, and open the Host view."""
        from tuitune.tui.screens.host import refresh_platform  # its module loads on first use

        shell = cast(Shell, self)
        # A read-only session (a recorded tree, a replay, not root) changes nothing from
        # here either: the view then says so on e, as the header says why.
        editable = not shell.session.read_only
        refresh_platform(
            shell,
            self.reader,
            self._platform_note,
            apply=self._apply if editable else None,
            trial=self._smt_trial if editable else None,
            read=self._platform_read,
        )

    def _platform_read(self, ifname: str | None, platform: Platform) -> None:
        """The live Advisor's rules judge the platform from here on (A shows them)."""
        self.advisor.platform = (ifname, platform)

    def _smt_trial(self, key: Key, current: str, wanted: str) -> None:
        """SMT from the Host view: the CPUs it takes offline named first, then the editor's
        trial (the header counts down; y keeps it, u or the deadline puts it back)."""
        spec = EditSpec(key, current, "on or off")
        shell = cast(Shell, self)
        host = shell.selection().host
        wide = host_wide_text([key], host.netns if host is not None else None)
        if wanted.strip().lower() != "off":
            self.editor.submit(spec, wanted)  # asks when it is the whole host's
            return
        from tuitune.core.session.kinds.smt import offlined  # loaded on this key (issue 38)

        going = offlined(self.reader.root)
        what = (
            f"SMT off takes CPUs {cpus_value(going)} offline now: the processes and IRQs on "
            "them move to the other CPUs."
            if going
            else "SMT off takes no CPU offline that the topology shows (no sibling online)."
        )
        text = (
            f"{what} It is on trial: put back after {self.editor.trial_seconds:.0f} s unless "
            "you press y."
        )
        if wide is not None:  # one question: the host-wide words with SMT's own
            text = f"{wide}\n\n{text}"

        def answer(choice: str | None) -> None:
            if choice == "y":
                self.editor.submit(spec, wanted, agreed=True)

        shell.push_screen(
            ChoiceScreen("SMT off, on trial", text, [("y", "turn SMT off on trial")]), answer
        )

    def _apply(self, changes: Sequence[tuple[Key, str]], done: Callable[[Outcome], None]) -> None:
        """A change from the Host view, through the screen's editor (its journal, its undo):
        several keys (every NIC-local CPU's C6) are one step, all or nothing. From a
        namespace session, a setting of the whole host (the CPU governor...) asks first;
        Esc writes nothing and the view says so."""
        keys = [k for k, _ in changes]
        ask_host_wide(
            cast(Shell, self),
            keys,
            lambda: self._write(changes, done),
            lambda: done(Outcome(keys[0], "skipped", reason=NOT_ASKED)),
        )

    def _write(self, changes: Sequence[tuple[Key, str]], done: Callable[[Outcome], None]) -> None:
        editor = self.editor

        def finished(out: Outcome) -> None:
            if out.status == "changed":
                editor.changes += 1
                self.post_message(Editor.StateChanged())
            done(out)

        if len(changes) == 1:
            key, text = changes[0]
            editor.run_journal(lambda j: j.apply(key, text), finished)
            return
        editor.run_journal(lambda j: summary(j.apply_all(changes)), finished)

    def action_connections(self) -> None:
        """The TCP connections on the NIC's addresses (screens/conns.py): the sampler reads
        them at each tick while the view is open, and the advisor judges the same reading."""
        ifname = self.ifname
        if ifname is None:
            cast(Shell, self).notify_line("no interface picked (n picks one)", True)
            return
        from tuitune.tui.screens.conns import ConnsScreen

        advisor, sampler = self.advisor, self.sampler
        advisor.connections = None  # an earlier opening's reading is not this one's
        shell = cast(Shell, self)
        sampler.want_connections("view", True)
        shell.push_screen(
            ConnsScreen(
                shell,
                ifname,
                lambda: advisor.connections,
                self.interval,
                live=self.reader.root.live,
            ),
            lambda _: sampler.want_connections("view", False),
        )

    def _platform_note(self, note: str) -> None:
        self.platform_note = note
        self.view.nic()
