"""The export preview (E): each file the export would write, where it goes, a diff against
what is installed there, the warnings in words; installing after a confirmation.

The screen never reads the kernel or the disk itself: `load` (build the preview) and `install`
(write the files) are given by the app and run in thread workers; the screen only draws their
results. Keys: left/right, [ ], Tab or 1-9 pick a file (or click its name), d shows the whole
file instead of the diff, i installs, a writes the same as an Ansible playbook and role into a
directory (asked first), r reads everything again, Esc closes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Click, Resize
from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from tuitune.core.export import ExportFile
from tuitune.core.export.fleet_write import PlaybookWritten
from tuitune.core.export.preview import NOTHING, Installed, Preview, next_steps
from tuitune.tui.look.palette import Palette
from tuitune.tui.panels.tabs import Span, tab_at, tab_text
from tuitune.tui.screens.box import BoxScreen
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen

Loader = Callable[[], Preview | str]  # a preview, or why there is none (a sentence)
Installer = Callable[[Sequence[ExportFile]], Installed]
Playbook = Callable[[Path], PlaybookWritten | str]  # written, or why not (a sentence)

HINT = "<- -> Tab: file  d: diff/whole  i: install  a: Ansible  r: read again  Esc: close"


def state_of(f: ExportFile) -> str:
    """How the file stands against what is installed at its path, in words."""
    if not f.installable:
        return "a snippet to merge by hand: never installed"
    if f.installed is None:
        return "new file"
    if not f.changed:
        return "same as installed: nothing to write"
    return "differs from the installed file"


def plan_lines(preview: Preview) -> list[tuple[str, str]]:
    """(kind, text) of what concerns the whole export, shown on every page."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for r in preview.refused:
        for p in r.problems:
            if p not in seen:
                seen.add(p)
                out.append(("refused", f"{r.format} not offered: {p}"))
    out += [("warning", w) for w in preview.warnings]
    out += [("left out", s) for s in preview.skipped]
    out += [("left out", u) for u in preview.unreadable]
    return out


def diff_text(diff: str, palette: Palette) -> Text:
    """A unified diff, coloured by line (the +/- stay, for a terminal without colour)."""
    t = Text()
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = palette.muted
        elif line.startswith("@@"):
            style = palette.section
        elif line.startswith("+"):
            style = palette.on
        elif line.startswith("-"):
            style = palette.off
        else:
            style = None
        t.append(line + "\n", style=style)
    return t


def page_text(preview: Preview, f: ExportFile | None, palette: Palette, whole: bool) -> Text:
    """The scrolling part of a page: the export's and the file's warnings, then the diff."""
    t = Text()
    lines = plan_lines(preview)
    if f is not None:
        lines += [("warning", w) for w in f.warnings] + [("note", n) for n in f.notes]
    for kind, line in lines:
        style = palette.warn if kind in ("refused", "warning") else palette.muted
        t.append(f"{kind}: ", style=style)
        t.append(line + "\n")
    if f is None:
        return t
    if lines:
        t.append("\n")
    if whole:
        t.append(f.text)
    elif not f.changed:
        t.append("(no difference: the installed file is the same)\n", style=palette.muted)
    else:
        t.append_text(diff_text(f.diff, palette))
    return t


class FileBar(Static):
    """The files' names, the shown one highlighted, wrapped to the width; a click picks one."""

    class Picked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self) -> None:
        super().__init__("", id="export-bar", markup=False)
        self.names: list[str] = []
        self.active = 0
        self._spans: list[Span] = []

    def show(self, names: Sequence[str], active: int) -> None:
        self.names, self.active = list(names), active
        self._draw()

    def on_resize(self, event: Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        names = enumerate(self.names)
        labels = [f" {i + 1} {name} " if i < 9 else f" {name} " for i, name in names]
        text, self._spans = tab_text(labels, self.active, max(20, self.size.width or 80))
        self.update(text)

    def on_click(self, event: Click) -> None:
        i = tab_at(self._spans, event.x, event.y)
        if i is not None:
            self.post_message(self.Picked(i))


class ExportScreen(BoxScreen[None]):
    """The preview of one interface's export; see the module docstring for the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        # Priority: the focused diff would take left/right to scroll sideways (it wraps).
        Binding("right,right_square_bracket", "step(1)", "Next file", priority=True),
        Binding("left,left_square_bracket", "step(-1)", "Previous file", priority=True),
        Binding("d", "toggle_whole", "Diff / whole file"),
        Binding("i", "install", "Install"),
        Binding("a", "ansible", "Ansible playbook"),
        Binding("r", "reload", "Read again"),
        *(Binding(str(n), f"pick({n - 1})", f"File {n}", show=False) for n in range(1, 10)),
    ]
    DEFAULT_CSS = """
    ExportScreen > Vertical { width: 100%; height: 100%; }
    ExportScreen #export-bar { height: auto; }
    ExportScreen #export-where { height: auto; text-style: bold; }
    ExportScreen #export-scroll { height: 1fr; }
    ExportScreen #export-status { height: auto; max-height: 8; }
    ExportScreen .hint { height: auto; color: $text-muted; }
    """

    def __init__(
        self,
        title: str,
        load: Loader,
        install: Installer,
        palette: Palette,
        playbook: Playbook | None = None,
        playbook_dir: Path | None = None,
        lab: bool = False,
    ) -> None:
        super().__init__()
        self.lab = lab  # the lab is for trying things: installing there writes the machine's /etc
        self.playbook = playbook
        self.playbook_dir = playbook_dir
        self.title_text = title
        self.loader = load
        self.installer = install
        self.palette = palette
        self.preview: Preview | None = None
        self.index = 0
        self.whole = False
        self.status = Text()

    # -- drawing ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield FileBar()
            yield Static("reading what changed...", id="export-where", markup=False)
            with VerticalScroll(id="export-scroll"):
                yield Static("", id="export-body", markup=False)
            yield Static("", id="export-status", markup=False)
            yield Static(HINT, classes="hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#export-status", Static).display = False
        self.query_one(VerticalScroll).focus()
        self.action_reload()

    @property
    def current(self) -> ExportFile | None:
        files = self.preview.files if self.preview is not None else ()
        return files[self.index] if 0 <= self.index < len(files) else None

    def _draw(self) -> None:
        p = self.preview
        if p is None:
            return
        bar = self.query_one(FileBar)
        bar.display = bool(p.files)
        bar.show([f.path.name for f in p.files], self.index)
        f = self.current
        where = self.query_one("#export-where", Static)
        if f is not None:
            shown = " (whole file: d for the diff)" if self.whole else ""
            where.update(f"{self.index + 1}/{len(p.files)} {f.path}: {state_of(f)}{shown}")
        elif p.changes == 0:
            where.update(NOTHING)
        elif p.refused:
            where.update("nothing can be exported: these values cannot go into a file safely")
        else:
            where.update("nothing to write: no format carries these changes")
        body = page_text(p, f, self.palette, self.whole)
        self.query_one("#export-body", Static).update(body)

    def _set_status(self, text: Text) -> None:
        self.status = text
        status = self.query_one("#export-status", Static)
        status.update(text)
        status.display = bool(text.plain)

    # -- loading and installing (thread workers) ------------------------------------------------
    def action_reload(self) -> None:
        self.run_worker(self.loader, thread=True, group="export", exit_on_error=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state == WorkerState.ERROR:
            # Whatever went wrong is a message on the screen, never a traceback.
            self._set_status(Text(f"failed: {worker.error}", style=self.palette.warn))
            return
        if event.state != WorkerState.SUCCESS:
            return
        result = worker.result
        if isinstance(result, PlaybookWritten):
            self._playbook_written(result)
        elif worker.name == "playbook" and isinstance(result, str):
            self._set_status(Text(result, style=self.palette.warn))
        elif isinstance(result, Installed):
            self._installed(result)
        elif isinstance(result, Preview):
            self.preview = result
            self.index = min(self.index, max(0, len(result.files) - 1))
            self._draw()
        elif isinstance(result, str):
            self.preview = None
            self.query_one(FileBar).display = False
            self.query_one("#export-where", Static).update(result)
            self.query_one("#export-body", Static).update("")

    def action_install(self) -> None:
        p = self.preview
        if p is None:
            return
        files = p.to_install
        if not files:
            why = "nothing to install: " + (
                "every file is installed as shown" if p.files else "no file is offered"
            )
            self._set_status(Text(why, style=self.palette.warn))
            return
        paths = "\n".join(f"  {f.path}" for f in files)
        text = (
            f"Install {len(files)} file(s) to:\n{paths}\n"
            "Each is written atomically; an existing file is copied aside first "
            "(FILE.tuitune-bak-DATE)."
        )
        title, yes = "Install the export", f"install {len(files)} file(s)"
        if self.lab:
            # The namespaces are throwaway; these files are not. Say so before the one key.
            title, yes = "This is the lab: install into this machine?", "install anyway"
            text = (
                "This is the lab: its namespaces go when you quit, these files do not. "
                f"Installing writes {len(files)} file(s) into this machine's own configuration "
                f"(not into the lab):\n{paths}\n"
                "They stay after the lab is removed and apply to this machine at its next "
                "boot (udev rules matching the lab's interface names, sysctls for the whole "
                "host). To keep a copy instead: a (Ansible files) or `tuitune export --out "
                "DIR`. An existing file is copied aside first (FILE.tuitune-bak-DATE)."
            )

        def answer(choice: str | None) -> None:
            if choice != "y":
                self._set_status(Text("install cancelled: nothing was written"))
                return
            self._set_status(Text("installing..."))
            self.run_worker(
                lambda: self.installer(files), thread=True, group="export", exit_on_error=False
            )

        self.app.push_screen(
            ChoiceScreen(title, text, [("y", yes), ("n", "do not install")]),
            answer,
        )

    def _installed(self, result: Installed) -> None:
        t = Text()
        for w in result.done:
            t.append(f"{w}\n")
        if result.failed is not None:
            t.append(f"could not write {result.failed}\n", style=self.palette.warn)
            if result.not_tried:
                names = ", ".join(str(p) for p in result.not_tried)
                t.append(f"not tried: {names}\n", style=self.palette.warn)
        elif self.preview is not None:
            wrote = [w.path for w in result.done if w.status == "written"]
            for line in next_steps(self.preview, wrote):
                t.append(line + "\n", style=self.palette.muted)
        self._set_status(t)
        self.action_reload()  # the diffs against what is there now

    def action_ansible(self) -> None:
        if self.playbook is None or self.preview is None or not self.preview.files:
            self._set_status(Text("no playbook: nothing to export", style=self.palette.warn))
            return
        hint = (
            "An absolute path: DIR/playbook.yml, verify.yml and roles/tuitune_nic are written "
            "there (a file holding the same text is left alone). Enter writes, Esc cancels."
        )
        self._ask_dir(str(self.playbook_dir or ""), hint, "")

    def _ask_dir(self, current: str, hint: str, error: str, typed: str | None = None) -> None:
        def answer(text: str | None) -> None:
            if text is None:
                self._set_status(Text("no playbook written"))
                return
            where = text.strip()
            # Never relative: the cwd is wherever root happened to start us, maybe a user's.
            if not where.startswith("/") or "\x00" in where:
                self._ask_dir(current, hint, "give an absolute path (/...)", text)
                return
            playbook = self.playbook
            assert playbook is not None
            self._set_status(Text("writing the playbook..."))
            self.run_worker(
                lambda: playbook(Path(where)),
                name="playbook",
                thread=True,
                group="export",
                exit_on_error=False,
            )

        self.app.push_screen(
            EditorScreen("the Ansible playbook's directory", current, hint, error, typed), answer
        )

    def _playbook_written(self, result: PlaybookWritten) -> None:
        t = Text()
        n = len(result.written)
        t.append(
            f"wrote {n} file(s) of the playbook in {result.out}\n"
            if n
            else f"unchanged: {result.out} already holds this playbook\n"
        )
        t.append(result.match + "\n", style=self.palette.muted)
        t.append(
            f"next: ansible-playbook -i INVENTORY {result.out}/playbook.yml --check --diff\n",
            style=self.palette.muted,
        )
        self._set_status(t)

    # -- moving between files ---------------------------------------------------------------
    def action_step(self, step: int) -> None:
        n = len(self.preview.files) if self.preview is not None else 0
        if n:
            self.action_pick((self.index + step) % n)

    def action_pick(self, index: int) -> None:
        n = len(self.preview.files) if self.preview is not None else 0
        if 0 <= index < n and index != self.index:
            self.index = index
            self._draw()
            self.query_one(VerticalScroll).scroll_home(animate=False)

    def on_file_bar_picked(self, message: FileBar.Picked) -> None:
        self.action_pick(message.index)

    def action_toggle_whole(self) -> None:
        self.whole = not self.whole
        self._draw()

    def action_close(self) -> None:
        self.dismiss(None)
