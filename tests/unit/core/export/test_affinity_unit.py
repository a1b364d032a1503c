"""The affinity unit (issue 22 #21): it names a tuitune that survives a reinstall and that
only root can change, and it is bound to the device: started after it appears, stopped when
it goes, wanted by it. Checked against the installed systemd's own reading of the unit."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tuitune.core.export import DeviceMatch, ExportContext
from tuitune.core.export import context as ctxmod

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (chown to nobody)")


def _script(path: Path, interpreter: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{interpreter}\nprint('tuitune')\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def bins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A system bin directory of the test's own (root's, in a root-only tree), no PATH hit and
    no tuitune script as argv[0]."""
    tmp_path.chmod(0o755)
    system = tmp_path / "usr-local-bin"
    system.mkdir()
    monkeypatch.setattr(ctxmod, "SYSTEM_BIN", (str(system),))
    monkeypatch.setattr(ctxmod.shutil, "which", lambda name: None)
    monkeypatch.setattr(ctxmod.sys, "argv", ["pytest"])
    return tmp_path


@needs_root
def test_a_system_directory_wins_over_this_installation(
    bins: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _script(bins / "venv/bin/tuitune", "/usr/bin/python3")
    monkeypatch.setattr(ctxmod.sys, "argv", [str(venv)])
    # Only this installation's script: taken, with the warning that a reinstall breaks it.
    path, warning = ctxmod.tuitune_command()
    assert path == str(venv)
    assert warning is not None and f"`ln -s {venv} /usr/local/bin/tuitune`" in warning
    # A link in the system directory: named as the link, so the next install is followed.
    link = bins / "usr-local-bin/tuitune"
    link.symlink_to(venv)
    assert ctxmod.tuitune_command() == (str(link), None)


@needs_root
def test_nothing_a_user_can_replace_is_named(bins: Path) -> None:
    """A script of another user, or one whose interpreter another user owns, is refused: the
    unit runs it as root at every boot."""
    theirs = _script(bins / "usr-local-bin/tuitune", "/usr/bin/python3")
    os.chown(theirs, 65534, 65534)
    path, warning = ctxmod.tuitune_command()
    assert path == ctxmod.DEFAULT_TUITUNE and warning is not None
    os.chown(theirs, 0, 0)
    assert ctxmod.tuitune_command() == (str(theirs), None)
    fake = _script(bins / "home/python3", "/bin/sh")
    os.chown(fake, 65534, 65534)
    _script(theirs, str(fake))
    assert ctxmod.tuitune_command()[0] == ctxmod.DEFAULT_TUITUNE


def test_instances_are_escaped_as_systemd_does() -> None:
    from tuitune.core.export.affinity import unit_instance

    names = ["eth0", "veth-lab", ".x", "eno1.200", "a_b"]
    assert [unit_instance(n) for n in names] == [
        "eth0",
        "veth\\x2dlab",
        "\\x2ex",
        "eno1.200",
        "a_b",
    ]
    if shutil.which("systemd-escape"):
        out = subprocess.run(["systemd-escape", "--", *names], capture_output=True, text=True)
        assert out.stdout.split() == [unit_instance(n) for n in names]


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="needs systemd-analyze")
def test_systemd_binds_the_unit_to_its_device(tmp_path: Path) -> None:
    """systemd's own reading of the unit for an interface with a '-' in its name: bound to and
    after that device, and the command gets the name unescaped."""
    from tuitune.core.export.affinity import unit_instance, unit_text

    ctx = ExportContext("veth-lab", DeviceMatch(kind="name", value="veth-lab"), tuitune="/bin/true")
    template = tmp_path / "tuitune-affinity@.service"
    template.write_text(unit_text(ctx))
    instance = tmp_path / f"tuitune-affinity@{unit_instance('veth-lab')}.service"
    out = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(instance)],
        capture_output=True, text=True, cwd=tmp_path,
        env={**os.environ, "SYSTEMD_LOG_LEVEL": "debug"},
    )  # fmt: skip
    said = out.stdout + out.stderr
    device = "sys-subsystem-net-devices-veth\\x2dlab.device"
    assert f"BindsTo: {device}" in said and f"After: {device}" in said, said[-3000:]
    assert "Command Line: /bin/true apply-affinity --follow veth-lab" in said
    assert "WantedBy=sys-subsystem-net-devices-%i.device" in template.read_text()


def test_a_name_systemd_escapes_is_enabled_not_wired_through_udev() -> None:
    """udev and systemd versions differ on a backslash in SYSTEMD_WANTS: for such a name the
    export gives `systemctl enable` (the unit's WantedBy= its device) instead of a rule."""
    from tuitune.core.export import Change, build_plan
    from tuitune.core.session import Key

    def plan(ifname: str) -> list[str]:
        ctx = ExportContext(ifname, DeviceMatch(kind="name", value=ifname), tuitune="/bin/true")
        pin = Change(Key.irq("45", f"{ifname}-TxRx-0", ifname), "0-1", "1")
        got = build_plan([pin], ctx, ("affinity",), read_installed=False)
        notes = [n for f in got.files for n in f.notes]
        return [f.path.name for f in got.files] + notes

    assert "91-tuitune-affinity-eth2.rules" in plan("eth2")
    out = plan("veth-lab")
    assert "91-tuitune-affinity-veth-lab.rules" not in out
    assert any("`systemctl enable 'tuitune-affinity@veth\\x2dlab.service'`" in line for line in out)
