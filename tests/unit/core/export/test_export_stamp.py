"""An export made again a minute later says the same as the installed file: its header's
"Written by ... on MINUTE" is the only line that moved. It is not "changed" in the preview,
and installing it again writes nothing and leaves no backup (the VM bench's reboot run left
.tuitune-bak copies for that alone, and the preview said "differs" right after an install
that crossed a minute)."""

from __future__ import annotations

from pathlib import Path

from tuitune.core.export import ExportFile, install

TEXT = """# sysctls tuitune changed on host
# Written by tuitune 0.1.0 on 2026-11-25 08:{minute} UTC.
net.core.somaxconn = {value}
"""


def _file(path: Path, minute: str, value: str = "8192", installed: str | None = None) -> ExportFile:
    return ExportFile("sysctl", path, TEXT.format(minute=minute, value=value), installed)


def test_only_the_minute_differs_is_not_a_change(tmp_path: Path) -> None:
    there = TEXT.format(minute="30", value="8192")
    assert not _file(tmp_path / "f", "31", installed=there).changed
    assert _file(tmp_path / "f", "31", value="4096", installed=there).changed
    assert _file(tmp_path / "f", "31").changed  # nothing installed yet
    # The stamp of another line is content, not the header.
    moved = there.replace("net.core.somaxconn", "# Written by tuitune 0.1.0 on X\nnet.core.x")
    assert _file(tmp_path / "f", "30", installed=moved).changed


def test_installing_the_same_export_again_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "etc" / "90-tuitune.conf"
    path.parent.mkdir()
    [first] = install([_file(path, "30")])
    assert first.status == "written"
    [again] = install([_file(path, "31")])
    assert again.status == "unchanged" and again.backup is None
    assert "08:30 UTC" in path.read_text()
    assert [p.name for p in path.parent.iterdir()] == ["90-tuitune.conf"]
    [other] = install([_file(path, "32", value="4096")])
    assert other.status == "written" and other.backup is not None
