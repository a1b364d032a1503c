"""What the live screen shows, as its presenters (tui/view.py, tui/grid_view.py) read it.

The App holds this state (tests and controllers read it there); the presenters get the App
typed as `Scene`, never the App itself (import-linter: only the CLI imports tuitune.tui.app).
A Scene holds values and narrow read-only views, no widget and no controller: the presenters
compute what each panel, the header and the heat map show (`PanelUpdate`, a header text) and
hand it to the Scene's `show_*` methods, which the App (tui/frame.py) applies to its widgets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from rich.text import Text

from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.watch.rates import Rates
from tuitune.core.watch.sampler import Sample
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.look.glyphs import Glyphs
from tuitune.tui.look.palette import Palette
from tuitune.tui.panels.cpugrid import GridData
from tuitune.tui.panels.rowview import Column, Row


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
    """What the presenters read of the advisor (controllers/advisor.py): the counts the header
    shows. The App feeds it each sample, between `LiveView.take` and the redraw."""

    def counts(self) -> tuple[int, int, int] | None: ...


class PanelShown(Protocol):
    """What the presenters read of one panel: its list's rows, cursor and filter, and its
    size. Read when asked, not a copy: new rows move the cursor (a row gone, a filter)."""

    @property
    def rows(self) -> Sequence[Row]: ...  # what it holds, before the filter
    @property
    def cursor_key(self) -> str | None: ...
    @property
    def cursor_row(self) -> Row | None: ...
    @property
    def filter(self) -> str: ...  # "" when not filtered
    @property
    def width(self) -> int: ...  # its list's, the scrollbar's included; 0 before the layout
    @property
    def scrollbar(self) -> int: ...  # the width a vertical scrollbar takes there
    @property
    def height(self) -> int: ...  # the panel's, border and help strip included
    @property
    def dragging(self) -> str | None: ...  # the IRQ picked up with the mouse (IRQ panel)


@dataclass(frozen=True, slots=True)
class PanelUpdate:
    """What a presenter computed for one panel, applied by the App in this order (columns,
    rows, empty text, title, help strip); None leaves that part as it is. The subtitle
    follows the panel's filter (`subtitle`)."""

    columns: Sequence[Column] | None = None
    rows: Sequence[Row] | None = None
    empty_text: str | None = None
    title: str | None = None
    help: str | None = None


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

    @property
    def read_only(self) -> str | None: ...  # why this screen changes nothing; None: it may
    @property
    def changed_settings(self) -> int: ...  # how many settings tuitune changed (the header)
    @property
    def recorded(self) -> bool: ...  # a recording's samples (replay) or a recorded tree's
    @property
    def paused(self) -> bool: ...  # sampling paused (p, or a replay stepped by hand)
    @property
    def recording(self) -> str | None: ...  # the header's "REC 41.2 KiB" while one runs
    @property
    def rows_height(self) -> int: ...  # the wide layout's two rows of panels; 0: tabs, zoom

    def panel(self, name: str) -> PanelShown: ...

    # Not the controllers: only what the presenters read of them (read-only, so the App's
    # Editor and Advisor fit).
    @property
    def editor(self) -> EditsShown: ...
    @property
    def advisor(self) -> FindingsShown: ...

    # What the presenters computed, for the App to put on its widgets.
    def show_panel(self, name: str, update: PanelUpdate) -> None: ...
    def show_header(self, text: Text) -> None: ...
    def show_top_rows(self, rows: int) -> None:
        """The wide layout's top row of panels `rows` high (the bottom row has the rest);
        the CPU grid is drawn again once laid out (heat map or list: by the new height)."""

    def show_heat(self, data: GridData | None, max_lines: int) -> int:
        """The CPU grid's heat map over `data` in at most `max_lines` (None: hidden). How
        many CPUs each of its cells holds, as it laid them out."""
        ...

    def show_heat_cursor(self, cpu: int | None) -> None: ...  # the heat map marks this CPU


def shown_rates(scene: Scene) -> Rates | None:
    """The rates on screen: since the baseline when one is set, else the last interval's."""
    s = scene.sample
    return None if s is None else s.since_baseline or s.rates or s.boot_rates


def irq_affinity(scene: Scene) -> dict[str, IrqAffinity]:
    """What the IRQ panel shows: the NIC's IRQs, and in the "all" view the host's too."""
    nic = scene.nic.irq_affinity if scene.nic else {}
    return scene.all_affinity | nic if scene.show_all_irqs else dict(nic)


def subtitle(filter_text: str) -> str:
    """A panel's subtitle: its filter, if any."""
    return f"filter: {filter_text}" if filter_text else ""
