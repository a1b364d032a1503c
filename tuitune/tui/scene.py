"""What the live screen shows, as its presenters (tui/view.py, tui/grid_view.py) read it.

The App holds this state (tests and controllers read it there); the presenters get the App
typed as `Scene`, never the App itself (import-linter: only the CLI imports tuitune.tui.app).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from textual.containers import Container

from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.record.live import LiveRecording
from tuitune.core.session import Session
from tuitune.core.watch.rates import Rates
from tuitune.core.watch.sampler import Sample, Sampler
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.look.glyphs import Glyphs
from tuitune.tui.look.palette import Palette
from tuitune.tui.panels.headerview import HeaderView
from tuitune.tui.panels.panels import Panel
from tuitune.tui.panels.rowview import RowView


@dataclass
class Baseline:
    sysctls: dict[str, str]


class EditsShown(Protocol):
    """What the presenters read of the editor (controllers/edit.py's Editor): the trial under
    way, the "was" baseline a change compares with, and each changed row's note."""

    @property
    def trial_deadline(self) -> float | None: ...
    @property
    def trial_label(self) -> str: ...
    @property
    def compare_nic(self) -> NicState | None: ...
    @property
    def compare_sysctls(self) -> dict[str, str] | None: ...
    def row_notes(self) -> dict[str, str]: ...


class FindingsShown(Protocol):
    """What the presenters ask of the advisor (controllers/advisor.py): every sample drawn, and
    the counts the header shows."""

    def feed(self, sample: Sample) -> None: ...
    def counts(self) -> tuple[int, int, int] | None: ...


class Scene(Protocol):
    # The last sample and the states it brought (a state is kept until it is re-read).
    sample: Sample | None
    nic: NicState | None
    host: HostState | None
    ifname: str | None
    baseline: Baseline | None
    all_affinity: dict[str, IrqAffinity]  # every IRQ's, for the "all" view
    show_all_irqs: bool
    grid_mode: str  # auto / list / heat
    cpu_sort: str  # auto (heat map: by load; list: topology) or core.cpuview.SORTS
    notice: str | None
    platform_note: str  # the NIC panel title's tail: the platform's worst finding, or ""
    active: str  # the focused panel's name
    # How it is drawn, and by what.
    palette: Palette
    glyphs: Glyphs
    interval: float
    show_cost: bool
    panels: dict[str, Panel]
    header: HeaderView
    body: Container
    sampler: Sampler
    rec: LiveRecording  # the header's REC while a recording runs

    @property
    def session(self) -> Session: ...
    @property
    def recorded(self) -> bool: ...  # the samples are a recording's (`tuitune replay`)

    # Not the controllers: only what the presenters read of them (read-only, so the App's
    # Editor and Advisor fit).
    @property
    def editor(self) -> EditsShown: ...
    @property
    def advisor(self) -> FindingsShown: ...

    def has_class(self, *class_names: str) -> bool: ...

    def call_after_refresh(
        self, callback: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> bool: ...


def shown_rates(scene: Scene) -> Rates | None:
    """The rates on screen: since the baseline when one is set, else the last interval's."""
    s = scene.sample
    return None if s is None else s.since_baseline or s.rates or s.boot_rates


def irq_affinity(scene: Scene) -> dict[str, IrqAffinity]:
    """What the IRQ panel shows: the NIC's IRQs, and in the "all" view the host's too."""
    nic = scene.nic.irq_affinity if scene.nic else {}
    return scene.all_affinity | nic if scene.show_all_irqs else dict(nic)


def subtitle(view: RowView) -> str:
    return f"filter: {view.filter}" if view.filter else ""
