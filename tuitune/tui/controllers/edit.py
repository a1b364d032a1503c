"""Changing things from the live screen: toggle, edit, undo, revert, trial changes, drag.

Every change goes through the core's journal (record the original, write, re-read, verify);
journal calls block (fsync, netlink, a NIC reset), so they run in a thread worker and report
back with call_from_thread. After a change the NIC and host state are re-read, and every row
that moved since just before the change says what it was: that is how a toggle that also flips
other features (tx off turns TSO off) shows its consequences.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.message import Message

from tuitune.core.host.ethtool import short_name
from tuitune.core.host.root import HostRoot
from tuitune.core.irqplan import spread_plan
from tuitune.core.session.journal_file import JournalError
from tuitune.core.session.outcome import Outcome, kernel_extras
from tuitune.core.session.risk import is_risky, ssh_interface
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.controllers.edit_leave import ask_quit, ask_revert_all, offer_restore
from tuitune.tui.controllers.editing import (
    EditSpec,
    edit_spec,
    mask_preview,
    row_key_of,
    state_note,
)
from tuitune.tui.controllers.host_wide import ask_host_wide
from tuitune.tui.controllers.irqbalance import IrqbalanceGate
from tuitune.tui.controllers.pause_offer import offer_autoneg_off
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen
from tuitune.tui.screens.edit_choices import ChoiceListScreen
from tuitune.tui.shell import Shell

# The journal, the host's access and the sysctl choices load on the first change or pick
# (the session does that), not with the screen (issue 38).
if TYPE_CHECKING:
    from tuitune.core.session import DriftNews, Journal, Session
    from tuitune.core.session.choices import Choices

TRIAL_SECONDS = 30.0
EDIT_ACTIONS = frozenset(
    {
        "edit",
        "toggle_setting",
        "toggle_group",
        "undo",
        "revert_all",
        "confirm_trial",
        "spread",
        "move_irq",
    }
)


class Editor:
    """The screen's side of the journal: every kernel call off the UI thread, through the
    shell's Session. It posts `StateChanged` when the host state should be re-read and
    `TrialStarted` when a trial change's countdown begins."""

    class StateChanged(Message):
        """Something was written (or drifted): re-read the NIC and host state now."""

    class TrialStarted(Message):
        """A trial change is waiting for y: count the seconds down on the header."""

    def __init__(
        self,
        shell: Shell,
        *,
        env: Mapping[str, str],
        trial_seconds: float = TRIAL_SECONDS,
    ) -> None:
        self.shell = shell
        self.session: Session = shell.session
        self._checking = False  # a drift check is under way: the next sample skips its own
        self.trial_seconds = trial_seconds
        self.trial_deadline: float | None = None
        self.trial_label = ""
        self.changes = 0
        # The NIC and sysctls before the first change since the baseline: every row a change
        # moved says "was X" until the baseline changes, not only the last change's rows.
        self.compare_nic: NicState | None = None
        self.compare_sysctls: dict[str, str] | None = None
        self.irqbalance = IrqbalanceGate(shell, self)
        # The interface carrying this SSH session, from the machine's own routing table.
        live = self.session.root.live
        self.ssh_iface = ssh_interface(HostRoot(), env) if live else None

    @property
    def journal(self) -> Journal | None:
        return self.session.journal

    # -- journal (worker thread) --------------------------------------------------------------
    def read_key(self, key: Key, done: Callable[[str | Unavailable], None]) -> None:
        """Read one setting off the UI thread (no journal needed), then `done(value)` on it."""
        session = self.session
        self.shell.in_thread(lambda: session.access().read(key), done, group="edit-read")

    def run_journal(self, work: Callable[[Journal], Any], done: Callable[[Any], None]) -> None:
        self._run(work, done)

    def _run(self, work: Callable[[Journal], Any], done: Callable[[Any], None]) -> None:
        """Run `work(journal)` off the UI thread, then `done(result)` on it."""
        session, shell = self.session, self.shell

        def job() -> tuple[Any, str | None]:
            fresh = session.journal is None
            try:
                value = session.run(work)
            except JournalError as exc:
                return None, f"cannot change anything: {exc}"
            finally:
                session.finished()
            journal = session.journal
            if fresh and journal is not None and journal.discarded:
                # An earlier journal's originals were set aside: never without saying so.
                return value, journal.discarded
            return value, None

        def back(result: tuple[Any, str | None]) -> None:
            value, note = result
            if value is None and note is not None:
                shell.notify_line(note, True)
                return
            done(value)
            if note is not None:
                shell.notify_line(note, True)

        session.asked()  # before the worker exists: an E pressed next waits for it
        shell.in_thread(job, back, group="edit")

    # -- entry points (UI thread) -------------------------------------------------------------
    def spec(self) -> EditSpec | str:
        sel = self.shell.selection()
        return edit_spec(sel.row, sel.ifname, sel.nic, sel.host, sel.irq_affinity)

    def edit(self, error: str = "", typed: str | None = None) -> None:
        spec = self.spec()
        if isinstance(spec, str):
            self.shell.notify_line(spec, True)
            return
        from tuitune.core.session.choices import has_choices

        if has_choices(spec.key):
            self._pick(spec, error)
            return
        start = spec.current if typed is None else typed
        self.shell.push_screen(
            EditorScreen(
                spec.key.label,
                spec.current,
                spec.hint,
                error,
                typed=start,
                preview=(
                    partial(mask_preview, ncpus=spec.cpus, possible=spec.possible)
                    if spec.cpus
                    else None
                ),
            ),
            lambda text: self.submit(spec, text) if text is not None else None,
        )

    def _pick(self, spec: EditSpec, error: str) -> None:
        """A value from a list (congestion control...): read the list, then offer it."""
        shell, session = self.shell, self.session

        def show(found: Choices | str) -> None:
            if isinstance(found, str):
                shell.notify_line(found, True)
                return
            shell.push_screen(
                ChoiceListScreen(spec.key.label, found, error),
                lambda name: self.submit(spec, name) if name is not None else None,
            )

        from tuitune.core.session.choices import sysctl_choices

        shell.in_thread(lambda: sysctl_choices(session.access(), spec.key), show, group="edit-read")

    def toggle(self) -> None:
        spec = self.spec()
        if isinstance(spec, str):
            self.shell.notify_line(spec, True)
        elif spec.toggle is None:
            self.shell.notify_line("not an on/off setting: press e to type a value", True)
        else:
            self.submit(spec, spec.toggle)

    def toggle_group(self) -> None:
        """`ethtool -K IF tso off` from a row: every changeable member of the row's short name
        to the row's toggled value, as one step (one undo), all or nothing."""
        app, spec = self.shell, self.spec()
        short = short_name(spec.key.name) if not isinstance(spec, str) else ""
        if isinstance(spec, str) and (app.selection().row or "").startswith("feature:"):
            # An offload row that cannot change (fixed, not root...): say why, not where g works.
            app.notify_line(f"g: {spec}", True)
            return
        if isinstance(spec, str) or spec.key.kind != "feature" or not short or not spec.toggle:
            app.notify_line("g: on an offload row with a short name (tso, gso, sg, tx...)", True)
            return
        if self.trial_deadline is not None:
            app.notify_line("a trial change is waiting: y keeps it, u puts it back", True)
            return
        if is_risky(spec.key, self.ssh_iface):  # a trial is one setting: go one by one
            app.notify_line(f"{spec.key.ifname} carries this SSH session: space, row by row", True)
            return
        ifname, target, before_nic = spec.key.ifname or "", spec.toggle, app.selection().nic

        def work(j: Journal) -> list[Outcome]:
            return j.apply_all([(k, target) for k in j.access.feature_keys(ifname, short)])

        def done(outs: list[Outcome]) -> None:
            moved = [o for o in outs if o.status != "skipped"]
            if not moved:
                app.notify_line(f"{short}: every member is {target} already")
                return
            if any(o.status == "changed" for o in moved):
                self.changes += 1
                self.compare_from(before_nic)
            names = ", ".join(o.key.name for o in moved if o.status == "changed")
            extra = kernel_extras(moved)
            self._report(
                moved,
                summary=f"{short} {target}: changed {names}"
                + (f"; the kernel also changed {extra}" if extra else "")
                + " (one step: u)",
            )

        self._run(work, done)

    def set_irq(self, irq: str, cpus: str) -> None:
        """The drop of a dragged IRQ onto a CPU, or a typed CPU list."""
        sel = self.shell.selection()
        queue = next((q.name for q in sel.nic.irqs if q.irq == irq), None) if sel.nic else None
        key = Key.irq(irq, queue, sel.ifname if queue else None)
        self.submit(EditSpec(key, "", ""), cpus)

    def submit(self, spec: EditSpec, text: str, *, agreed: bool = False) -> None:
        """`agreed`: the user has said yes to a host-wide change already (SMT's question
        names it), so it is not asked twice."""
        # The kind table loads every handler: asked here, not at the live screen's start.
        from tuitune.core.session.kinds.table import handler

        if handler(spec.key.kind).moved_back_by:  # irqbalance would move it back: ask first
            self.irqbalance.before_move(lambda: self._submit(spec, text, agreed))
        else:
            self._submit(spec, text, agreed)

    def _submit(self, spec: EditSpec, text: str, agreed: bool) -> None:
        if agreed:
            self._apply(spec, text)
            return
        # From a namespace, a setting of the whole host (its handler says) asks first.
        ask_host_wide(self.shell, [spec.key], lambda: self._apply(spec, text))

    def _apply(self, spec: EditSpec, text: str) -> None:
        app = self.shell
        if self.trial_deadline is not None:
            app.notify_line("a trial change is waiting: y keeps it, u puts it back", True)
            return
        sel = app.selection()
        before_nic = sel.nic
        before_sysctls = _sysctls(sel.host)
        risky = is_risky(spec.key, self.ssh_iface)

        def work(j: Journal) -> tuple[Outcome, bool]:
            if risky:
                out, trial = j.apply_trial(spec.key, text, self.trial_seconds)
                return out, trial is not None
            return j.apply(spec.key, text), False

        def done(result: tuple[Outcome, bool]) -> None:
            out, on_trial = result
            if out.status == "invalid":
                self.edit(error=out.reason or "not valid", typed=text)
                return
            if out.status == "changed":
                self.changes += 1
                self.compare_from(before_nic, before_sysctls)
            if on_trial:
                self.trial_deadline = time.monotonic() + self.trial_seconds
                self.trial_label = out.key.label
                app.post_message(Editor.TrialStarted())
            self._report([out])
            offer_autoneg_off(app, out, text, self.apply_step)  # pause the partner decides

        self._run(work, done)

    def spread(self) -> None:
        """Propose one queue per core over the NIC-local CPUs; apply it only when confirmed."""
        sel = self.shell.selection()
        if sel.nic is None or sel.host is None or not sel.nic.irqs:
            self.shell.notify_line(
                "no queue IRQs to spread (pick a NIC with IRQs of its own)", True
            )
            return
        self.irqbalance.before_move(self._spread)

    def _spread(self) -> None:
        app = self.shell
        sel = app.selection()
        if sel.nic is None or sel.host is None:
            return
        plan = spread_plan(sel.nic, sel.host)
        lines = [f"{q.name:<24} IRQ {q.irq:>5}  ->  CPU {cpu}" for q, cpu in plan]
        warn = ""
        if sel.host.irqbalance.running and not self.irqbalance.stopped:
            warn = "\nirqbalance is running: it will move these IRQs again unless told not to."

        def answer(choice: str | None) -> None:
            if choice != "y":
                return
            now = app.selection()
            changes = [(Key.irq(q.irq, q.name, now.ifname), str(cpu)) for q, cpu in plan]
            self.apply_step(changes, now.nic)

        app.push_screen(
            ChoiceScreen(
                "Spread the queue IRQs",
                "One queue per core over the NIC-local CPUs (SMT siblings last):\n"
                + "\n".join(lines)
                + warn,
                [("y", "apply this plan (one step: u undoes it)")],
            ),
            answer,
        )

    def apply_step(self, changes: list[tuple[Key, str]], before_nic: NicState | None) -> None:
        """`changes` as one journal step (one undo, all or nothing), then counted, compared
        from `before_nic` (the NIC state before them) and reported."""

        def done(outs: list[Outcome]) -> None:
            if any(o.status == "changed" for o in outs):
                self.changes += 1
                self.compare_from(before_nic)
            self._report(outs)

        self._run(lambda j: j.apply_all(changes), done)

    def check_drift(self) -> None:
        """After every sample: did someone else change what tuitune set? Only the settings
        tuitune holds are read (a few files), so a change made outside shows on the next
        sample, not at the next full re-read. Shown, never undone."""
        if self.session.journal is None or self._checking:
            return
        self._checking = True
        app = self.shell

        def done(news: DriftNews | None) -> None:
            self._checking = False
            if news is None:  # no journal, a change under way (the next sample), unreadable
                return
            new = news.new
            if new:
                d = new[0]
                more = f" (and {len(new) - 1} more)" if len(new) > 1 else ""
                app.notify_line(
                    f"drift: {d.key.label} is {d.found}, tuitune had set {d.expected}{more}; "
                    "left as it is",
                    True,
                )
            if news.moved:  # re-read now: the rows show the new value beside the note
                app.post_message(Editor.StateChanged())

        app.in_thread(self.session.check_drift, done, group="edit-drift")

    def row_notes(self) -> dict[str, str]:
        """Row key -> what the row says instead of its usual note: a kernel refusal as a state
        (locked, not supported, needs root), or drift (which wins: it is newer news)."""
        notes: dict[str, str] = {}
        locked = self.shell.look().glyphs.locked
        for key, out in self.session.refusals.items():
            note = state_note(out, locked)
            if note is not None:
                notes[row_key_of(key)] = note
        for key, d in self.session.drift.items():
            notes[row_key_of(key)] = f"drift: now {d.found}, tuitune set {d.expected}"
        return notes

    def offer_restore(self) -> None:
        offer_restore(self)

    def undo(self) -> None:
        self.journal_op(lambda j: j.undo(), "nothing to undo")

    def revert_all(self) -> None:
        ask_revert_all(self)

    def confirm_trial(self) -> None:
        if self.trial_deadline is None:
            self.shell.notify_line("no trial change is waiting", True)
            return

        def done(ok: bool) -> None:
            self.trial_deadline = None
            self.shell.notify_line(f"kept: {self.trial_label}" if ok else "the trial had ended")

        self._run(lambda j: j.confirm(), done)

    def tick(self) -> None:
        """Once a second: end the countdown of a trial change nobody confirmed."""
        if self.trial_deadline is not None and time.monotonic() >= self.trial_deadline:
            self.trial_deadline = None
            self.journal_op(lambda j: j.revert_trial(), "the trial had ended", opened=True)

    def journal_op(
        self,
        op: Callable[[Journal], list[Outcome]],
        empty: str,
        opened: bool = False,
        prefix: str = "trial ended, put back",
    ) -> None:
        """`op` then say what it put back. `opened`: also when this session has not opened
        the journal (a trial's end, an earlier run's originals); `prefix` then words it."""
        if self.journal is None and not opened:
            self.shell.notify_line(empty, True)
            return
        sel = self.shell.selection()
        before_nic, before_sysctls = sel.nic, _sysctls(sel.host)

        def done(outs: list[Outcome]) -> None:
            if not outs:
                self.shell.notify_line(empty, True)
                return
            self.trial_deadline = None
            self.compare_from(before_nic, before_sysctls)
            if any(o.status == "changed" for o in outs):
                self.changes += 1  # putting back is a change too: worth measuring again
            self._report(outs, prefix="put back" if not opened else prefix)

        self._run(op, done)

    def report(self, outs: list[Outcome], prefix: str = "") -> None:
        self._report(outs, prefix)

    def _report(self, outs: list[Outcome], prefix: str = "", summary: str = "") -> None:
        """Say what happened on the header's line (`summary` instead of one clause per
        outcome, when all went well), note refusals on their rows, re-read the state."""
        lines = []
        bad = False
        self.session.note(outs)  # refusals that are states, shown on their rows (row_notes)
        for out in outs:
            word = prefix if prefix and out.status == "changed" else out.status
            line = f"{word} {out.describe()}"
            if out.also:  # what the kernel changed along with it: the rows say "was ..."
                line += f" (the kernel also changed {kernel_extras([out])})"
            lines.append(line)
            bad = bad or out.status in ("refused", "failed", "drift", "invalid")
        # The rows first, in the same frame as the report: the journal read the values back
        # (issue 18, goal 3); the re-read asked for below replaces them whole.
        self.shell.show_read_back(outs)
        self.shell.notify_line(summary if summary and not bad else "; ".join(lines), bad)
        self.shell.post_message(Editor.StateChanged())

    def compare_from(self, nic: NicState | None, sysctls: dict[str, str] | None = None) -> None:
        """Keep the state before the first change (see compare_nic); later ones add nothing."""
        if self.compare_nic is None:
            self.compare_nic = nic
        if self.compare_sysctls is None:
            self.compare_sysctls = sysctls

    def forget_compare(self) -> None:
        """The baseline changed (b): "was" notes count from it again."""
        self.compare_nic = self.compare_sysctls = None

    @property
    def pending(self) -> bool:
        return self.session.pending

    def quit(self, exit_app: Callable[[], None]) -> None:
        """Ask whether to keep or revert what this session changed, then leave."""
        ask_quit(self, exit_app)

    def close(self, forget: bool) -> None:
        """forget: nothing left to restore, delete the journal; else leave it for restore."""
        if forget:
            self.session.forget()
        else:
            self.session.release()


def _sysctls(host: HostState | None) -> dict[str, str] | None:
    if host is None:
        return None
    return {v.key: v.value for v in host.sysctls if isinstance(v.value, str)}
