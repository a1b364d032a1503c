"""The export preview (E): after changes made on the screen, each file the export would write,
where it goes, a diff against what is there, the warnings; installing under a test root.

The host is the 32-CPU fixture tree, whose /proc/sys, /sys and /proc/irq files the journal
writes; `export_root` puts every destination under tmp_path (never /etc). What is asserted is
what the screen shows and what lands on disk.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.containers import Vertical
from textual.pilot import Pilot
from textual.screen import ModalScreen

from tests.support.fixture_hosts import host_32cpu
from tests.support.screen_text import screen_text, until
from tuitune.core.export import Change, DeviceMatch, ExportContext, ExportFile
from tuitune.core.export.preview import offer, rebase
from tuitune.core.host.root import HostRoot
from tuitune.core.lab import Lab
from tuitune.core.session import HostAccess, Key
from tuitune.core.session.kinds import safe
from tuitune.core.session.outcome import Effect
from tuitune.core.values import Unavailable
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen
from tuitune.tui.screens.export import ExportScreen, FileBar

IRQ = "92"  # eth0-TxRx-0 of the fixture host
SYSCTLS = {"net.core.somaxconn": "4096", "net.core.rmem_max": "212992"}
NOTHING = "nothing to export: no setting differs from what tuitune found at start"


def add_sysctls(tree: Path) -> None:
    for key, value in SYSCTLS.items():
        path = tree / "proc/sys" / key.replace(".", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")


class HostileAccess(HostAccess):
    """Reads back, once armed, a value with a newline for one setting: the journal never
    writes such a value, so only a read (a buggy driver, a tampered file) brings it to the
    export, which must refuse it."""

    hostile: dict[Key, str] = {}  # noqa: RUF012 - set by the test, read by every instance

    def read_many(self, keys: Iterable[Key]) -> dict[Key, str | Unavailable]:
        got = super().read_many(keys)
        return {k: self.hostile.get(k, v) for k, v in got.items()}


@asynccontextmanager
async def running(
    tmp_path: Path,
    *,
    size: tuple[int, int] = (160, 48),
    export_root: Path | None = None,
    prepare: Callable[[Path], None] = add_sysctls,
    access: type[HostAccess] | None = None,
    term: str = "xterm-256color",
    lab: Lab | None = None,
) -> AsyncIterator[Pilot[int]]:
    reader, ifname = host_32cpu(tmp_path / "host", samples=5)
    prepare(reader.root.proc.parent)
    root: HostRoot = reader.root
    factory = None if access is None else (lambda: access(root, call=reader.call))
    app = TuituneApp(
        reader,
        ifname,
        interval=0.05,
        env={"TERM": term, "LANG": "C.UTF-8"},
        limit=3,
        show_cost=False,
        save_settings=False,
        editable=True,
        journal_dir=tmp_path / "journal",
        access=factory,
        export_root=tmp_path / "dest" if export_root is None else export_root,
        lab=lab,
    )
    try:
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: app.samples_drawn >= 3 and app.nic is not None)
            yield pilot
    finally:
        reader.close()


def the_app(pilot: Pilot[int]) -> TuituneApp:
    assert isinstance(pilot.app, TuituneApp)
    return pilot.app


async def edit(pilot: Pilot[int], panel: str, row: str, value: str) -> None:
    """Change the setting of `row` the way a user does: its panel, e, type, Enter."""
    app = the_app(pilot)
    await pilot.press(panel)
    assert app.panels[app.active].view.move_cursor_to(row), row
    await pilot.press("e")
    await until(pilot, lambda: isinstance(app.screen, EditorScreen))
    await pilot.press("ctrl+u", *value, "enter")
    await until(pilot, lambda: not isinstance(app.screen, EditorScreen))


async def tune(pilot: Pilot[int]) -> None:
    """A sysctl, the txqueuelen and one IRQ's affinity, each checked in the tree."""
    app = the_app(pilot)
    tree = app.reader.root.proc.parent
    await edit(pilot, "4", "sysctl:net.core.somaxconn", "8192")
    await until(pilot, lambda: (tree / "proc/sys/net/core/somaxconn").read_text() == "8192\n")
    await edit(pilot, "3", "link:txqueuelen", "5000")
    await until(pilot, lambda: (tree / "sys/class/net/eth0/tx_queue_len").read_text() == "5000\n")
    await edit(pilot, "2", f"irq:{IRQ}", "5")
    await until(pilot, lambda: (tree / f"proc/irq/{IRQ}/smp_affinity_list").read_text() == "5\n")


async def open_preview(pilot: Pilot[int]) -> ExportScreen:
    app = the_app(pilot)
    await pilot.press("E")
    await until(pilot, lambda: isinstance(app.screen, ExportScreen))
    screen = app.screen
    assert isinstance(screen, ExportScreen)
    await until(pilot, lambda: "reading what changed" not in screen_text(app))
    return screen


def shown(pilot: Pilot[int]) -> str:
    """What the topmost box shows (the preview, or the question over it), without its border:
    one string per line, as on the terminal."""
    app = pilot.app
    box = app.screen.query(Vertical).first() if isinstance(app.screen, ModalScreen) else None
    if box is None:
        return screen_text(app)
    region = box.content_region
    rows = screen_text(app).split("\n")[region.y : region.bottom]
    return "\n".join(row[region.x : region.right].rstrip() for row in rows)


def flat(text: str) -> str:
    """Line breaks and runs of spaces as one space: a sentence the box wrapped, rejoined."""
    return " ".join(text.split())


def squeezed(text: str) -> str:
    """Without any whitespace: a path the box broke anywhere, whole again."""
    return "".join(text.split())


async def go_to(pilot: Pilot[int], name: str) -> None:
    """Step right until the file called `name` is the one shown."""
    for _ in range(12):
        if f"/{name}: " in flat(shown(pilot)):
            return
        await pilot.press("right")
    raise AssertionError(f"no page for {name}:\n{shown(pilot)}")


async def test_footer_names_the_export_key(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        await until(pilot, lambda: "E Export" in screen_text(pilot.app).splitlines()[-1])


async def test_nothing_changed_says_so_and_installs_nothing(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        await open_preview(pilot)
        assert NOTHING in shown(pilot)
        await pilot.press("i")
        await until(pilot, lambda: "nothing to install" in shown(pilot))
        assert not isinstance(pilot.app.screen, ChoiceScreen)
        assert not (tmp_path / "dest").exists()
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(pilot.app.screen, ExportScreen))


async def test_a_change_put_back_leaves_nothing_to_export(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        app = the_app(pilot)
        await edit(pilot, "4", "sysctl:net.core.somaxconn", "8192")
        await until(pilot, lambda: "1 changed" in shown(pilot) or "changed" in shown(pilot))
        await pilot.press("u")
        await until(pilot, lambda: "put back" in shown(pilot))
        await open_preview(pilot)
        assert NOTHING in shown(pilot)
        assert app.screen.query_one(FileBar).display is False


async def test_preview_after_changes_shows_each_file_with_its_destination(
    tmp_path: Path,
) -> None:
    async with running(tmp_path) as pilot:
        await tune(pilot)
        await open_preview(pilot)
        dest = tmp_path / "dest" / "etc"
        text = shown(pilot)
        # The files the changes need: sysctl.d, udev rules, the affinity pieces.
        for name in ("90-tuitune.conf", "90-tuitune-eth0.rules", "affinity-eth0.conf"):
            assert name in text, name
        # The first page: where it goes, that it is new, and the line it adds.
        assert "1/" in text and f"{dest}/sysctl.d/90-tuitune.conf: new file" in flat(text)
        assert "+net.core.somaxconn = 8192" in text
        assert "+net.core.rmem_max" not in text  # unchanged settings are not exported
        await go_to(pilot, "90-tuitune-eth0.rules")
        text = shown(pilot)
        assert f"{dest}/udev/rules.d/90-tuitune-eth0.rules: new file" in flat(text)
        assert 'ATTR{tx_queue_len}="5000"' in text
        assert 'ENV{ID_PATH}!="pci-0000:02:00.0", GOTO' in text  # matched by its bus position
        await go_to(pilot, "affinity-eth0.conf")
        text = flat(shown(pilot))
        assert "+eth0-TxRx-0 = 5" in text
        # The affinity and irqbalance notes, in words.
        assert "note: udev cannot set IRQ affinity" in text
        # d: the whole file rather than the diff.
        await pilot.press("d")
        assert "eth0-TxRx-0 = 5" in shown(pilot) and "+eth0-TxRx-0" not in shown(pilot)
        await go_to(pilot, "irqbalance-policy.sh")
        assert "note: irqbalance is not installed here" in flat(shown(pilot))


async def test_a_device_without_bus_or_permanent_mac_warns_that_the_name_may_move(
    tmp_path: Path,
) -> None:
    def virtual(tree: Path) -> None:
        add_sysctls(tree)
        net = tree / "sys/class/net/eth0"
        (net / "device").unlink()  # no PCI parent: no ID_PATH
        (net / "addr_assign_type").write_text("3\n")  # a MAC someone set: not stable

    async with running(tmp_path, prepare=virtual) as pilot:
        await edit(pilot, "3", "link:txqueuelen", "5000")
        await open_preview(pilot)
        await go_to(pilot, "90-tuitune-eth0.rules")
        text = flat(shown(pilot))
        assert "warning: eth0 has no ID_PATH" in text
        assert "that name may belong to another device" in text
        assert 'KERNEL!="eth0", GOTO' in text


class SlowWrites(HostAccess):
    """Holds every write until the test lets it go: the change is still on its way to the
    kernel when E is pressed."""

    go = threading.Event()

    def write(self, key: Key, value: str) -> tuple[Effect, ...]:
        assert self.go.wait(30), "the test never let the write go"
        return super().write(key, value)


async def test_e_pressed_while_a_change_is_written_shows_that_change(tmp_path: Path) -> None:
    SlowWrites.go.clear()
    async with running(tmp_path, access=SlowWrites) as pilot:
        app = the_app(pilot)
        await edit(pilot, "3", "link:txqueuelen", "5000")
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        SlowWrites.go.set()  # the write lands only after the preview began to load
        await until(pilot, lambda: "reading what changed" not in screen_text(app))
        assert NOTHING not in shown(pilot)
        await go_to(pilot, "90-tuitune-eth0.rules")
        assert 'ATTR{tx_queue_len}="5000"' in shown(pilot)


async def test_switching_files_by_key_and_by_mouse(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        app = the_app(pilot)
        await tune(pilot)
        screen = await open_preview(pilot)
        assert screen.preview is not None
        names = [f.path.name for f in screen.preview.files]
        assert len(names) >= 4

        def page() -> str:
            # The "N/M PATH: state" line under the file names.
            return next(ln for ln in shown(pilot).splitlines() if f"/{len(names)} " in ln)

        assert f"1/{len(names)}" in page() and names[0] in page()
        await pilot.press("right")
        assert f"2/{len(names)}" in page() and names[1] in page()
        await pilot.press("left", "left")  # wraps round to the last
        assert f"{len(names)}/{len(names)}" in page() and names[-1] in page()
        await pilot.press("tab")
        assert names[0] in page()
        await pilot.press("3")
        assert names[2] in page()
        # A click on a file's name in the bar.
        bar = screen.query_one(FileBar)
        y, start, _, index = next(s for s in bar._spans if s[3] == 1)
        await pilot.click(bar, offset=(start + 2, y))
        await pilot.pause()
        assert f"2/{len(names)}" in page() and names[1] in page()
        assert index == 1 and app.screen is screen


async def test_on_the_linux_console_the_preview_is_plain_ascii(tmp_path: Path) -> None:
    async with running(tmp_path, size=(80, 24), term="linux") as pilot:
        await tune(pilot)
        await open_preview(pilot)
        for _ in range(3):
            text = screen_text(pilot.app)
            assert "90-tuitune" in text
            assert text.isascii(), sorted({c for c in text if not c.isascii()})
            await pilot.press("right")


async def test_the_diff_against_an_installed_file_shows_the_line_that_differs(
    tmp_path: Path,
) -> None:
    async with running(tmp_path) as pilot:
        await tune(pilot)
        screen = await open_preview(pilot)
        assert screen.preview is not None
        sysctl = screen.preview.files[0]
        assert sysctl.path.name == "90-tuitune.conf"
        # What an earlier export left there: the same file but for one value.
        older = sysctl.text.replace("net.core.somaxconn = 8192", "net.core.somaxconn = 6000")
        assert older != sysctl.text
        sysctl.path.parent.mkdir(parents=True)
        sysctl.path.write_text(older)
        await pilot.press("r")
        await until(pilot, lambda: "differs from the installed file" in shown(pilot))
        lines = shown(pilot).splitlines()
        assert "-net.core.somaxconn = 6000" in lines
        assert "+net.core.somaxconn = 8192" in lines
        # Lines that are the same are context, not changes.
        marked = [ln for ln in lines if ln.startswith(("+", "-")) and "somaxconn" not in ln]
        assert all("Written by" in ln or ln.startswith(("+++", "---")) for ln in marked), marked


async def test_install_writes_the_files_and_backs_up_the_old_one(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        app = the_app(pilot)
        await tune(pilot)
        dest = tmp_path / "dest" / "etc"
        old = dest / "sysctl.d/90-tuitune.conf"
        old.parent.mkdir(parents=True)
        old.write_text("# an older file\n")
        screen = await open_preview(pilot)
        assert screen.preview is not None
        files = screen.preview.to_install
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        question = shown(pilot)
        assert f"Install {len(files)} file(s) to:" in question
        for f in files:
            assert str(f.path) in squeezed(question)
        await pilot.press("y")
        await until(pilot, lambda: "wrote" in shown(pilot))
        # On disk: every file under the test root, with the previewed text.
        for f in files:
            assert f.path.is_relative_to(tmp_path)
            assert f.path.read_text() == f.text
        [backup] = old.parent.glob("90-tuitune.conf.tuitune-bak-*")
        assert backup.read_text() == "# an older file\n"
        text = flat(shown(pilot))
        assert f"wrote {old} (the old one is {backup})" in text
        # Read again after the install: nothing differs any more.
        await until(pilot, lambda: "same as installed" in shown(pilot))


async def test_cancel_writes_nothing(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        app = the_app(pilot)
        await tune(pilot)
        await open_preview(pilot)
        for key in ("escape", "n"):
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            await pilot.press(key)
            await until(pilot, lambda: "install cancelled: nothing was written" in shown(pilot))
            assert isinstance(app.screen, ExportScreen)
        assert not (tmp_path / "dest").exists()


async def test_a_failed_install_is_a_message(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the root should be\n")
    async with running(tmp_path, export_root=blocked) as pilot:
        app = the_app(pilot)
        await tune(pilot)
        await open_preview(pilot)
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("y")
        await until(pilot, lambda: "could not write" in shown(pilot))
        text = flat(shown(pilot))
        assert f"could not write {blocked}/etc/sysctl.d/90-tuitune.conf:" in text
        assert "not tried:" in text
        assert "Traceback" not in text
        assert isinstance(app.screen, ExportScreen)
        assert blocked.read_text() == "a file where the root should be\n"


async def test_a_hostile_value_is_refused_with_the_core_message(tmp_path: Path) -> None:
    hostile = "8192\nnet.ipv4.ip_forward = 1"
    with pytest.raises(safe.UnsafeValue) as refusal:
        safe.sysctl_value("net.core.somaxconn", hostile)
    HostileAccess.hostile = {}
    async with running(tmp_path, size=(200, 60), access=HostileAccess) as pilot:
        app = the_app(pilot)
        await tune(pilot)
        HostileAccess.hostile = {Key.sysctl("net.core.somaxconn"): hostile}
        try:
            screen = await open_preview(pilot)
        finally:
            HostileAccess.hostile = {}
        text = flat(shown(pilot))
        assert flat(f"refused: sysctl not offered: {refusal.value}") in text
        assert screen.preview is not None
        names = [f.path.name for f in screen.preview.files]
        assert "90-tuitune.conf" not in names  # the file holding it is not offered
        assert "90-tuitune-eth0.rules" in names  # the others are
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("y")
        await until(pilot, lambda: "wrote" in shown(pilot))
        assert not (tmp_path / "dest/etc/sysctl.d").exists()
        written = "".join(p.read_text() for p in (tmp_path / "dest").rglob("*") if p.is_file())
        assert "ip_forward" not in written


def test_a_hostile_interface_name_offers_no_file() -> None:
    """The name is in every file: no format can be offered, each says why."""
    name = "eth0$(reboot)"
    ctx = ExportContext(ifname=name, match=DeviceMatch("name", name), ncpus=2)
    plan, refused = offer([Change(Key.mtu(name), "1500", "9000")], ctx)
    assert plan is None
    assert refused and all("interface name" in p for r in refused for p in r.problems)


def test_rebase_keeps_the_text_and_reads_what_is_under_the_new_root(tmp_path: Path) -> None:
    etc = Path("/etc")
    f = ExportFile("sysctl", etc / "sysctl.d/90-tuitune.conf", "a = 1\n", installed="real\n")
    (tmp_path / "etc/sysctl.d").mkdir(parents=True)
    (tmp_path / "etc/sysctl.d/90-tuitune.conf").write_text("staged\n")
    [moved] = rebase([f], etc, tmp_path)
    assert moved.path == tmp_path / "etc/sysctl.d/90-tuitune.conf"
    assert (moved.text, moved.installed) == ("a = 1\n", "staged\n")
