"""`a` in the export preview: the same export as an Ansible playbook and role, written into a
directory the user confirms (an absolute path; a relative one is refused and nothing is
written). What is asserted is what the screen says and what lands on disk: the same files
`tuitune export --ansible` writes, rendered back to the previewed text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.screen_text import until
from tests.tui.test_export_preview import flat, open_preview, running, shown, the_app, tune
from tuitune.tui.screens.dialogs import EditorScreen
from tuitune.tui.screens.export import ExportScreen

jinja2 = pytest.importorskip("jinja2", reason="jinja2 comes with ansible-core (test extra)")


async def test_a_writes_the_playbook_of_the_previewed_files(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        app = the_app(pilot)
        await tune(pilot)
        screen = await open_preview(pilot)
        assert screen.preview is not None
        sysctl = next(f for f in screen.preview.files if f.format == "sysctl")
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen))
        # The default sits under the test's export root, named for the interface.
        assert "ansible-eth0" in flat(shown(pilot))
        out = tmp_path / "play"
        await pilot.press("ctrl+u", *str(out), "enter")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        await until(pilot, lambda: "of the playbook in" in flat(shown(pilot)))
        text = flat(shown(pilot))
        assert "wrote" in text and "ansible-playbook -i INVENTORY" in text
        # The fleet's default match, said with why.
        assert "match the NIC by ID_PATH pci-0000:02:00.0" in text, text
        assert (out / "playbook.yml").is_file() and (out / "verify.yml").is_file()
        role = out / "roles/tuitune_nic"
        template = role / "templates/etc/sysctl.d/90-tuitune.conf.j2"
        env = jinja2.Environment(trim_blocks=True, keep_trailing_newline=True)
        rendered = env.from_string(template.read_text()).render(tuitune_iface="eth0")
        # Same settings as the preview's file (its header's export time may differ).
        body = [ln for ln in sysctl.text.splitlines() if not ln.startswith("#")]
        assert [ln for ln in rendered.splitlines() if not ln.startswith("#")] == body


async def test_a_relative_directory_is_refused_and_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    async with running(tmp_path) as pilot:
        app = the_app(pilot)
        await tune(pilot)
        await open_preview(pilot)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen))
        await pilot.press("ctrl+u", *"play", "enter")
        await until(pilot, lambda: "give an absolute path" in flat(shown(pilot)))
        assert isinstance(app.screen, EditorScreen)
        await pilot.press("escape")
        await until(pilot, lambda: "no playbook written" in flat(shown(pilot)))
        assert not (tmp_path / "play").exists()
