"""The issue's "tried as a new user" round trip, on `tuitune lab`, through the live screen.

Tune the lab's end from the screen (MTU on trial and kept, txqueuelen, an offload, RPS, a
sysctl),
open the export preview (E), install from it (under tmp_path, never /etc), leave, remove the
lab, build a new one, give the installed rules to a real systemd-udevd in the new lab's
namespace and replay the device's "add" event (what coldplug does at boot for a device that
was there before udevd), apply the sysctl file with `sysctl -p` there: the tuned state is back.

The lab has its own state dir (tmp_path), so it never meets another lab; both labs are taken
down whatever happens, and the udevd is stopped (test_export_udev.udevd).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from textual.containers import Vertical

from tests.kernel.test_export_udev import UDEVD, nsenter, udevd
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tuitune.core import lab as labmod
from tuitune.core.export import installed_files, verify
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess
from tuitune.core.watch.hostreader import HostReader
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen
from tuitune.tui.screens.export import ExportScreen

pytestmark = pytest.mark.kernel


def run(*cmd: str) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=60).stdout


def gro(ns: str, ifname: str) -> str:
    """rx-gro as `ethtool -k` shows it (by its old name)."""
    out = run("ip", "netns", "exec", ns, "ethtool", "-k", ifname)
    [line] = [ln for ln in out.splitlines() if ln.startswith("generic-receive-offload:")]
    return line.split()[1]


def link(ns: str, ifname: str) -> tuple[int, int]:
    [info] = json.loads(run("ip", "-j", "-n", ns, "link", "show", ifname))
    return info["mtu"], info["txqlen"]


def box_text(app: TuituneApp) -> str:
    """What the preview's box shows, without its border, wrapped lines rejoined."""
    region = app.screen.query_one(Vertical).content_region
    rows = screen_text(app).split("\n")[region.y : region.bottom]
    return " ".join(" ".join(row[region.x : region.right] for row in rows).split())


def rps(ns: str, ifname: str) -> str:
    path = f"/sys/class/net/{ifname}/queues/rx-0/rps_cpus"
    return run("ip", "netns", "exec", ns, "cat", path).strip().lstrip("0,") or "0"


def somaxconn(ns: str) -> str:
    return run("ip", "netns", "exec", ns, "sysctl", "-n", "net.core.somaxconn").strip()


async def tune_export_install(lab: labmod.Lab, tmp_path: Path, wanted: str) -> list[Path]:
    """Everything a user does on the screen; returns the files installed (under tmp_path)."""
    reader = HostReader(HostRoot(netns=lab.netns))
    app = screen_app(
        reader,
        lab.ifname,
        interval=0.2,
        journal_dir=tmp_path / "journal",
        export_root=tmp_path / "dest",
    )
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)

            async def edit(panel: str, row: str, value: str) -> None:
                await pilot.press(panel)
                assert app.panels[app.active].view.move_cursor_to(row), row
                await pilot.press("e")
                await until(pilot, lambda: isinstance(app.screen, EditorScreen))
                await pilot.press("ctrl+u", *value, "enter")
                await until(pilot, lambda: not isinstance(app.screen, EditorScreen))

            await edit("3", "link:mtu", "9000")
            await until(pilot, lambda: "TRIAL" in screen_text(app))  # it may drop the link
            await pilot.press("y")
            await until(pilot, lambda: "kept" in screen_text(app))
            await edit("3", "link:txqueuelen", "5000")
            await until(pilot, lambda: link(lab.netns, lab.ifname) == (9000, 5000))
            assert app.panels["nic"].view.move_cursor_to("feature:rx-gro")
            await pilot.press("space")
            await until(pilot, lambda: gro(lab.netns, lab.ifname) == wanted)
            await edit("3", "queue:rx-0", "1")  # RPS on CPU 1: mask 2
            await until(pilot, lambda: rps(lab.netns, lab.ifname) == "2")
            await edit("4", "sysctl:net.core.somaxconn", "8192")
            await until(pilot, lambda: somaxconn(lab.netns) == "8192")

            await pilot.press("E")
            await until(pilot, lambda: isinstance(app.screen, ExportScreen))
            screen = app.screen
            assert isinstance(screen, ExportScreen)
            await until(pilot, lambda: screen.preview is not None)
            assert screen.preview is not None
            names = [f.path.name for f in screen.preview.files]
            assert names == [f"netns-{lab.netns}.sysctl.conf", f"90-tuitune-{lab.ifname}.rules"]
            text = box_text(app)
            assert "+net.core.somaxconn = 8192" in text
            assert "sysctl -p" in text  # the namespace note: how to apply it
            await pilot.press("right")
            text = box_text(app)
            assert 'ATTR{mtu}="9000"' in text and 'ATTR{tx_queue_len}="5000"' in text
            assert "that name may belong to another device" in text  # a veth: by name
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            await pilot.press("y")
            await until(pilot, lambda: "wrote" in screen_text(app))
            await pilot.press("escape")
            await pilot.press("q")  # changes pending: keep them (the lab goes anyway)
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            await pilot.press("k")
            await until(pilot, lambda: not app.is_running)
    finally:
        reader.close()
    return installed_files(tmp_path / "dest" / "etc")


async def test_tune_export_tear_down_rebuild_and_find_it_back(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    if labmod.missing_tools() or not shutil.which("udevadm") or not Path(UDEVD).exists():
        pytest.skip("needs iproute2, iperf3 and udev")
    state = tmp_path / "state"
    labs: list[labmod.Lab] = []
    try:
        first = labmod.build(state)
        labs.append(first)
        wanted = "off" if gro(first.netns, first.ifname) == "on" else "on"
        files = await tune_export_install(first, tmp_path, wanted)
        dest = tmp_path / "dest" / "etc"
        rules = dest / f"udev/rules.d/90-tuitune-{first.ifname}.rules"
        sysctl_file = dest / f"tuitune/netns-{first.netns}.sysctl.conf"
        assert sorted(files) == sorted([rules, sysctl_file])

        labmod.down(first, state)  # tear the lab down
        assert not Path(f"/run/netns/{first.netns}").exists()
        second = labmod.build(state)
        labs.append(second)
        ns, ifname = second.netns, second.ifname
        assert link(ns, ifname) == (1500, 1000) and somaxconn(ns) != "8192"
        assert rps(ns, ifname) == "0"

        # Boot, in small: udevd starts with the rules installed and replays the "add" event
        # of the device that is already there (coldplug); the namespace's sysctls by hand.
        with udevd(ns, rules.parent) as pid:
            nsenter(pid, "udevadm", "trigger", "--action=add", f"/sys/class/net/{ifname}")
            settle = nsenter(pid, "udevadm", "settle", "--timeout=60", check=False)
            assert settle.returncode == 0, settle.stderr
        run("ip", "netns", "exec", ns, "sysctl", "-p", str(sysctl_file))

        assert link(ns, ifname) == (9000, 5000)
        assert gro(ns, ifname) == wanted
        assert somaxconn(ns) == "8192"
        # The queue has no uevent of its own at coldplug: the device's rule sets it.
        assert rps(ns, ifname) == "2"
        report = verify(files, lambda _netns: HostAccess(HostRoot(netns=ns)))
        assert report.ok and report.checked >= 4, (report.differences, report.problems)
    finally:
        for lab in labs:
            labmod.down(lab, state)
    assert not any(Path(f"/run/netns/{lab.netns}").exists() for lab in labs)
