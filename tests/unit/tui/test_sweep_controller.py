"""The sweep screen's controller refuses, in one line and before anything runs, a form it
cannot read and a sweep over changes of the user's own (the sweep's end puts back everything
the journal holds, which would take those with it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tuitune.tui.controllers.sweep import SweepController
from tuitune.tui.shell import Selection


@dataclass
class _Session:
    pending: bool


@dataclass
class _Shell:
    session: Any
    threads: list[object] = field(default_factory=list)

    def selection(self) -> Selection:
        return Selection("eth0", None, None)

    def in_thread(self, work: object, then: object = None, *, group: str) -> None:
        self.threads.append(work)


FORM = {"dim1": "tso = on | off", "design": "grid", "repeats": "1", "seconds": "1"}


def test_pending_changes_of_the_user_stop_the_sweep_before_it_starts() -> None:
    shell = _Shell(_Session(pending=True))
    ctl = SweepController(shell)  # type: ignore[arg-type]
    why = ctl.start({**FORM, "peer": "192.0.2.1"})
    assert why is not None and why.startswith("changes of yours are pending: undo (u)")
    assert not ctl.running and shell.threads == []


def test_a_bad_form_or_no_peer_is_one_line_and_nothing_runs() -> None:
    shell = _Shell(_Session(pending=False))
    ctl = SweepController(shell)  # type: ignore[arg-type]
    assert ctl.start({**FORM, "dim1": "tso = on |"}) == "dimension 1: an empty value between bars"
    why = ctl.start({**FORM, "peer": " "})
    assert why is not None and why.startswith("peer: name the host running `iperf3 -s`")
    assert not ctl.running and shell.threads == []
