"""Changing things from the live screen: toggle, edit, undo, revert, trial changes, drag.

Every change goes through the core's journal (record the original, write, re-read, verify);
journal calls block (fsync, netlink, a NIC reset), so they run in a thread worker and report
back with call_from_thread. After a change the NIC and host state are re-read, and every row
that moved since just before the change says what it was: that is how a toggle that also flips
other features (tx off turns TSO off) shows its consequences.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuitune.core.host.root import HostRoot
from tuitune.core.session import Drift, HostAccess, Journal, Key, Outcome, host_id, list_journals
from tuitune.core.session.journal_file import DEFAULT_DIR, JournalError
from tuitune.core.session.risk import is_risky, ssh_interface
from tuitune.core.snapshot import NicState
from tuitune.tui.editing import EditSpec, edit_spec, mask_preview, row_key_of, spread_plan
from tuitune.tui.screens import ChoiceScreen, EditorScreen

if TYPE_CHECKING:
    from tuitune.tui.app import TuituneApp

TRIAL_SECONDS = 30.0
EDIT_ACTIONS = frozenset(
    {"edit", "toggle_setting", "undo", "revert_all", "confirm_trial", "spread"}
)


class Editor:
    """The app's side of the journal. Owned by TuituneApp; every kernel call off the UI thread."""

    def __init__(
        self,
        app: TuituneApp,
        *,
        editable: bool,
        journal_dir: Path | None,
        access: Callable[[], HostAccess] | None,
        trial_seconds: float = TRIAL_SECONDS,
    ) -> None:
        self.app = app
        reader = app.reader
        self.read_only: str | None = None
        if not editable:
            self.read_only = "read-only (a recorded host tree)"
        elif reader.root.live and os.geteuid() != 0:
            self.read_only = "not root: read-only (changes need root: run it with sudo)"
        self.journal_dir = journal_dir or DEFAULT_DIR
        self._make_access = access or (lambda: HostAccess(reader.root, call=reader.call))
        self.journal: Journal | None = None
        self.trial_seconds = trial_seconds
        self.trial_deadline: float | None = None
        self.trial_label = ""
        self.changes = 0
        self.compare_nic: NicState | None = None  # the NIC just before the last change
        self.compare_sysctls: dict[str, str] | None = None
        self.drift: dict[str, Drift] = {}  # row key -> a value someone else changed
        # The interface carrying this SSH session, from the machine's own routing table.
        self.ssh_iface = ssh_interface(HostRoot(), app.env) if reader.root.live else None

    # -- journal (worker thread) --------------------------------------------------------------
    def _journal(self) -> Journal:
        if self.journal is None:
            self.journal = Journal.open(self._make_access(), self.journal_dir)
        return self.journal

    def _run(self, work: Callable[[Journal], Any], done: Callable[[Any], None]) -> None:
        """Run `work(journal)` off the UI thread, then `done(result)` on it."""
        app = self.app

        def job() -> None:
            try:
                result = work(self._journal())
            except JournalError as exc:
                app.call_from_thread(app.notify_line, f"cannot change anything: {exc}", True)
                return
            app.call_from_thread(done, result)

        app.run_worker(job, thread=True, exit_on_error=False, group="edit")

    # -- entry points (UI thread) -------------------------------------------------------------
    def spec(self) -> EditSpec | str:
        app = self.app
        view = app.panels[app.active].view
        return edit_spec(view.cursor_key, app.ifname, app.nic, app.host)

    def edit(self, error: str = "", typed: str | None = None) -> None:
        spec = self.spec()
        if isinstance(spec, str):
            self.app.notify_line(spec, True)
            return
        start = spec.current if typed is None else typed
        self.app.push_screen(
            EditorScreen(
                spec.key.label,
                spec.current,
                spec.hint,
                error,
                typed=start,
                preview=partial(mask_preview, ncpus=spec.cpus) if spec.cpus else None,
            ),
            lambda text: self.submit(spec, text) if text is not None else None,
        )

    def toggle(self) -> None:
        spec = self.spec()
        if isinstance(spec, str):
            self.app.notify_line(spec, True)
        elif spec.toggle is None:
            self.app.notify_line("not an on/off setting: press e to type a value", True)
        else:
            self.submit(spec, spec.toggle)

    def set_irq(self, irq: str, cpus: str) -> None:
        """The drop of a dragged IRQ onto a CPU, or a typed CPU list."""
        app = self.app
        queue = next((q.name for q in app.nic.irqs if q.irq == irq), None) if app.nic else None
        key = Key.irq(irq, queue, app.ifname if queue else None)
        self.submit(EditSpec(key, "", ""), cpus)

    def submit(self, spec: EditSpec, text: str) -> None:
        app = self.app
        host = app.host
        if spec.key.kind == "sysctl" and spec.key.scope == "host" and host and host.netns:

            def answer(choice: str | None) -> None:
                if choice == "y":
                    self._apply(spec, text)

            app.push_screen(
                ChoiceScreen(
                    "Host-wide setting",
                    f"{spec.key.name} is one value for the whole host, not only for netns "
                    f"{host.netns}: changing it changes every namespace.",
                    [("y", "change it for the whole host")],
                ),
                answer,
            )
            return
        self._apply(spec, text)

    def _apply(self, spec: EditSpec, text: str) -> None:
        app = self.app
        if self.trial_deadline is not None:
            app.notify_line("a trial change is waiting: y keeps it, u puts it back", True)
            return
        before_nic = app.nic
        before_sysctls = _sysctls(app)
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
                self.compare_nic, self.compare_sysctls = before_nic, before_sysctls
            if on_trial:
                self.trial_deadline = time.monotonic() + self.trial_seconds
                self.trial_label = out.key.label
            self._report([out])

        self._run(work, done)

    def spread(self) -> None:
        """Propose one queue per core over the NIC-local CPUs; apply it only when confirmed."""
        app = self.app
        if app.nic is None or app.host is None or not app.nic.irqs:
            app.notify_line("no queue IRQs to spread (pick a NIC with IRQs of its own)", True)
            return
        plan = spread_plan(app.nic, app.host)
        lines = [f"{q.name:<24} IRQ {q.irq:>5}  ->  CPU {cpu}" for q, cpu in plan]
        warn = ""
        if app.host.irqbalance.running:
            warn = "\nirqbalance is running: it will move these IRQs again unless told not to."

        def answer(choice: str | None) -> None:
            if choice != "y":
                return
            changes = [(Key.irq(q.irq, q.name, app.ifname), str(cpu)) for q, cpu in plan]
            before_nic = app.nic

            def done(outs: list[Outcome]) -> None:
                changed = [o for o in outs if o.status == "changed"]
                if changed:
                    self.changes += 1
                    self.compare_nic = before_nic
                self._report(outs)

            self._run(lambda j: j.apply_all(changes), done)

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

    def check_drift(self) -> None:
        """After a re-read: did someone else change what tuitune set? Shown, never undone."""
        if self.journal is None:
            return

        def done(found: list[Drift]) -> None:
            self.drift = {row_key_of(d.key): d for d in found}
            if found:
                d = found[0]
                more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
                self.app.notify_line(
                    f"drift: {d.key.label} is {d.found}, tuitune had set {d.expected}{more}; "
                    "left as it is",
                    True,
                )

        self._run(lambda j: j.check_drift(), done)

    def offer_restore(self) -> None:
        """At start: an earlier tuitune left originals recorded (a crash, a lost SSH session,
        kept changes). Offer to put them back; never do it unasked."""
        if self.read_only:
            return
        me = host_id(self.app.reader.root)
        found = [j for j in list_journals(self.journal_dir) if j.host == me and j.originals]
        if not found or found[0].holder is not None:
            return
        n = len(found[0].originals)

        def answer(choice: str | None) -> None:
            if choice == "r":
                self._journal_op(lambda j: j.revert_all(), "nothing to restore", trial=True)

        self.app.push_screen(
            ChoiceScreen(
                "Settings from an earlier run",
                f"An earlier tuitune on this host recorded {n} original value(s) it did not put "
                "back (it was stopped, lost its terminal, or the changes were kept).",
                [("r", "restore the originals now"), ("k", "keep things as they are")],
            ),
            answer,
        )

    def undo(self) -> None:
        self._journal_op(lambda j: j.undo(), "nothing to undo")

    def revert_all(self) -> None:
        self._journal_op(lambda j: j.revert_all(), "nothing to revert")

    def confirm_trial(self) -> None:
        if self.trial_deadline is None:
            self.app.notify_line("no trial change is waiting", True)
            return

        def done(ok: bool) -> None:
            self.trial_deadline = None
            self.app.notify_line(f"kept: {self.trial_label}" if ok else "the trial had ended")

        self._run(lambda j: j.confirm(), done)

    def tick(self) -> None:
        """Once a second: end the countdown of a trial change nobody confirmed."""
        if self.trial_deadline is not None and time.monotonic() >= self.trial_deadline:
            self.trial_deadline = None
            self._journal_op(lambda j: j.revert_trial(), "the trial had ended", trial=True)

    def _journal_op(
        self, op: Callable[[Journal], list[Outcome]], empty: str, trial: bool = False
    ) -> None:
        if self.journal is None and not trial:
            self.app.notify_line(empty, True)
            return
        before_nic, before_sysctls = self.app.nic, _sysctls(self.app)

        def done(outs: list[Outcome]) -> None:
            if not outs:
                self.app.notify_line(empty, True)
                return
            self.trial_deadline = None
            self.compare_nic, self.compare_sysctls = before_nic, before_sysctls
            self._report(outs, prefix="put back" if not trial else "trial ended, put back")

        self._run(op, done)

    def _report(self, outs: list[Outcome], prefix: str = "") -> None:
        lines = []
        bad = False
        for out in outs:
            word = prefix if prefix and out.status == "changed" else out.status
            line = f"{word} {out.describe()}"
            if out.also:  # what the kernel changed along with it: the rows say "was ..."
                names = ", ".join(e.key.name for e in out.also[:3])
                more = f" and {len(out.also) - 3} more" if len(out.also) > 3 else ""
                line += f" (it also changed {names}{more})"
            lines.append(line)
            bad = bad or out.status in ("refused", "failed", "drift", "invalid")
        self.app.notify_line("; ".join(lines), bad)
        self.app.sampler.refresh_state()

    @property
    def pending(self) -> bool:
        return self.journal is not None and bool(self.journal.originals())

    def quit(self, exit_app: Callable[[], None]) -> None:
        """Ask whether to keep or revert what this session changed, then leave."""
        if not self.pending:
            self._close(forget=True)
            exit_app()
            return
        n = len(self.journal.originals()) if self.journal else 0

        def answer(choice: str | None) -> None:
            if choice == "k":
                self._close(forget=False)  # the originals stay on disk for `tuitune restore`
                exit_app()
            elif choice == "r":

                def done(outs: list[Outcome]) -> None:
                    failed = [o for o in outs if not o.ok]
                    if failed:
                        self._report(failed)
                        return
                    self._close(forget=True)
                    exit_app()

                self._run(lambda j: j.revert_all(), done)

        self.app.push_screen(
            ChoiceScreen(
                "Leave tuitune",
                f"{n} setting(s) differ from what tuitune found. Keep them (`tuitune restore` "
                "can still put the originals back until the next boot) or revert them now?",
                [("k", "keep the changes"), ("r", "revert everything")],
            ),
            answer,
        )

    def _close(self, forget: bool) -> None:
        """forget: nothing left to restore, delete the journal; else leave it for restore."""
        if self.journal is not None:
            if forget:
                self.journal.close(keep=True)
            else:
                self.journal.detach()


def _sysctls(app: TuituneApp) -> dict[str, str] | None:
    if app.host is None:
        return None
    return {v.key: v.value for v in app.host.sysctls if isinstance(v.value, str)}
