"""`w` on the live screen offers a new recording under the user's state directory
(~/.local/state/tuitune/recordings, made 0700 on the first use). tuitune runs as root: a local
user who can plant something on that path (a link owned by them, a directory of their own)
must not get root to follow it or to write a file there. Each test plants what such a user
could (owned by nobody, uid 65534), takes the offered path as Enter would, and asserts what
the screen said and that nothing was written anywhere: no file, no REC, no mode changed."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from tests.support.fixture_hosts import host_4cpu_series
from tuitune.core.record.live import LiveRecording
from tuitune.core.watch.snapshot import HostState
from tuitune.tui.controllers.record_key import RecordKey, RecordShell, recordings_dir
from tuitune.tui.screens.dialogs import EditorScreen

NOBODY = 65534

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="plants files owned by nobody")


@dataclass
class _Sampler:
    record_affinity: bool = False
    refreshed: int = 0

    def refresh_state(self) -> None:
        self.refreshed += 1


@dataclass
class _Root:
    netns: str | None = None


@dataclass
class _Session:
    root: _Root = field(default_factory=_Root)


@dataclass
class _Selection:
    ifname: str | None = "eth4"


@dataclass
class _App:
    """The screen as the record key sees it (RecordShell): its lines kept, Enter pressed on
    whatever the dialog offers."""

    host: HostState
    sampler: _Sampler = field(default_factory=_Sampler)
    rec: LiveRecording = field(default_factory=LiveRecording)
    session: _Session = field(default_factory=_Session)
    interval: float = 1.0
    reader: object = None
    lines: list[str] = field(default_factory=list)

    def selection(self) -> _Selection:
        return _Selection()

    def notify_line(self, text: str, warn: bool = False) -> None:
        self.lines.append(text)

    def push_screen(self, screen: EditorScreen, callback: Callable[[Any], None]) -> None:
        callback(screen.current)  # Enter on the offered path, as it stands


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> HostState:
    reader, _ = host_4cpu_series(tmp_path_factory.mktemp("host"), samples=1)
    with reader:
        return reader.host_state()


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """XDG_STATE_HOME in a root-owned 0700 directory; the offered place is under it. Its path
    is long on purpose (CI's build directory made one, and the message lost its reason in the
    elided middle): the refusal's reason must reach the screen whole."""
    home = tmp_path / ("state-" + "s" * 120)
    home.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    assert recordings_dir() == home / "tuitune" / "recordings"
    yield home


def press_w(host: HostState) -> _App:
    app = _App(host)
    RecordKey(cast(RecordShell, app)).toggle()
    return app


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if not p.is_dir())


def assert_refused(app: _App, why: str) -> None:
    assert app.rec.recorder is None, "recording started"
    assert not app.sampler.record_affinity and app.sampler.refreshed == 0
    assert len(app.lines) == 1 and app.lines[0].startswith("not recording: "), app.lines
    assert why in app.lines[0], app.lines


def test_the_offered_place_is_made_private_when_nothing_is_planted(
    state: Path, host: HostState
) -> None:
    """The control: with nothing planted, Enter records into the offered place."""
    app = press_w(host)
    assert app.rec.recorder is not None, app.lines
    app.rec.stop()
    (made,) = files_under(state)
    assert made.parent == recordings_dir()
    assert stat.S_IMODE(recordings_dir().stat().st_mode) == 0o700


@pytest.mark.parametrize("planted", ["tuitune", "tuitune/recordings"])
def test_a_link_another_user_planted_on_the_offered_path_is_not_followed(
    state: Path, tmp_path: Path, host: HostState, planted: str
) -> None:
    """nobody's link at ~/.local/state/tuitune (or .../recordings) pointing into a root-owned
    directory: root would create its recording (and the directories) there."""
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o700)
    link = state / planted
    link.parent.mkdir(mode=0o700, exist_ok=True)
    os.symlink(victim, link)
    os.lchown(link, NOBODY, NOBODY)
    app = press_w(host)
    assert_refused(app, "a symbolic link owned by")
    assert list(victim.iterdir()) == []  # no directory made there, no file
    assert os.readlink(link) == str(victim)  # left as it was


def test_a_directory_another_user_owns_at_the_offered_path_is_not_written_into(
    state: Path, host: HostState
) -> None:
    """nobody's own directory at .../recordings: root's recording there would be theirs to
    swap, read or fill; its mode and owner stay as they were."""
    (state / "tuitune").mkdir(mode=0o700)
    theirs = state / "tuitune" / "recordings"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, NOBODY, NOBODY)
    app = press_w(host)
    assert_refused(app, "owned by")
    assert list(theirs.iterdir()) == []
    st = theirs.stat()
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (NOBODY, 0o755)


def test_a_world_writable_place_without_the_sticky_bit_is_not_written_into(
    state: Path, host: HostState
) -> None:
    """A root-owned 0777 recordings directory (no sticky bit): anyone could swap the file."""
    (state / "tuitune").mkdir(mode=0o700)
    loose = state / "tuitune" / "recordings"
    loose.mkdir()
    loose.chmod(0o777)
    app = press_w(host)
    assert_refused(app, "writable by")
    assert list(loose.iterdir()) == []
    assert stat.S_IMODE(loose.stat().st_mode) == 0o777
