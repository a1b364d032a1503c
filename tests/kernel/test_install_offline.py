"""Issue 39's offline host: the wheelhouse installs into a fresh venv inside a network
namespace with no route out (pip --no-index: any fetch would fail), and the installed copy, not
this checkout, runs `--version`, `show` on a veth, completion, and the trial watchdog that puts
an MTU back after the screen is SIGKILLed.

The wheelhouse is built once per session (tests/support/wheelhouse.py); what it holds (the
sdist's tests and docs, the wheel's catalog and themes) is checked here from the same build."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tarfile
import time
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kernel.conftest import VethNs
from tests.kernel.test_session_trial import mtu
from tests.kernel.test_tui_tmux import Tmux
from tests.kernel.test_tui_tmux import _env as tui_env
from tests.support.bash_complete import complete
from tests.support.wheelhouse import wheelhouse
from tuitune import __version__
from tuitune.core.host.root import HostRoot
from tuitune.core.session import watchdog_process as wd
from tuitune.core.session.journal_dir import DEFAULT_DIR
from tuitune.core.session.journal_file import Record, host_id, journal_path, lock_dir, read_records

pytestmark = pytest.mark.kernel

SYSTEM_PYTHON = "/usr/bin/python3"  # a host's own Python, not the one running these tests


@dataclass
class Installed:
    venv: Path
    bin: Path  # the linked command, as /usr/local/bin/tuitune would be
    share: Path
    ns: VethNs

    def run(self, *args: str, inside: bool = True) -> subprocess.CompletedProcess[str]:
        """`tuitune ARGS` from the install, inside the test's namespace (or the machine's own:
        the lab makes its namespaces from there), from a directory with no checkout in it and
        no PYTHONPATH."""
        where = ["ip", "netns", "exec", self.ns.ns] if inside else []
        return subprocess.run(
            [*where, str(self.bin / "tuitune"), *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.venv.parent,
            env=_clean_env(),
            check=False,
        )


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}


@pytest.fixture(scope="module")
def install_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One install per module (pip takes ~20 s here), made inside a namespace of its own that
    has only a loopback and no route, deleted after."""
    if os.geteuid() != 0:
        pytest.skip("kernel tests need root (they create network namespaces)")
    if not Path(SYSTEM_PYTHON).exists():
        pytest.skip(f"{SYSTEM_PYTHON} missing")
    house = wheelhouse()
    top = tmp_path_factory.mktemp("offline")
    ns = f"tt-offline-{uuid.uuid4().hex[:6]}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        routes = subprocess.run(
            ["ip", "-n", ns, "route", "show"], capture_output=True, text=True, check=True
        )
        assert routes.stdout == ""  # no route: nothing can be fetched from inside
        done = subprocess.run(
            ["ip", "netns", "exec", ns, str(house / "install.sh"),
             "--venv", str(top / "opt"), "--bindir", str(top / "bin"),
             "--datadir", str(top / "share"), "--python", SYSTEM_PYTHON],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=top,
            env=_clean_env(),
            check=False,
        )  # fmt: skip
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith(f"linked as {top}/bin/tuitune")
    return top


@pytest.fixture
def installed(install_dir: Path, veth_ns: VethNs) -> Installed:
    return Installed(install_dir / "opt", install_dir / "bin", install_dir / "share", veth_ns)


def test_the_offline_install_runs_from_its_own_copy(installed: Installed, tmp_path: Path) -> None:
    ns, dev = installed.ns, installed.ns.a
    assert (installed.bin / "tuitune").resolve() == (installed.venv / "bin" / "tuitune").resolve()
    version = installed.run("--version")
    assert (version.returncode, version.stdout) == (0, f"tuitune {__version__}\n")
    where = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c", "import tuitune; print(tuitune.__file__)"],
        capture_output=True, text=True, check=True, cwd=tmp_path, timeout=60,
    ).stdout  # fmt: skip
    assert where.startswith(str(installed.venv)), where

    shown = installed.run("show", "--json", dev)
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout)
    assert doc["tuitune"] == __version__
    assert json.dumps(doc).count(dev) >= 1 and "veth" in shown.stdout
    text = installed.run("show", dev)
    assert text.returncode == 0 and f"interface   {dev}  veth" in text.stdout

    # The completion install.sh wrote from the installed command, as bash would use it.
    script = installed.share / "bash-completion" / "completions" / "tuitune"
    inside = ("ip", "netns", "exec", ns.ns)
    assert complete(script, ["tuitune", "ex"], inside) == ["export"]
    assert complete(script, ["tuitune", "show", dev[:-1]], inside) == sorted([ns.a, ns.b])
    assert (installed.share / "zsh" / "site-functions" / "_tuitune").read_text().startswith("#")
    assert (installed.share / "man" / "man1" / "tuitune.1").read_text().startswith('.\\"')


def test_the_installed_screen_s_watchdog_reverts_after_sigkill(
    installed: Installed, tmp_path: Path
) -> None:
    """The installed command as the real live screen in tmux: the MTU changed on trial with
    the keys a user presses, the screen SIGKILLed before its countdown ends, and the watchdog
    it started (the install's interpreter and package, not this checkout's) puts it back."""
    ns, dev, command = installed.ns, installed.ns.a, str(installed.bin / "tuitune")
    if shutil.which("tmux") is None:
        pytest.skip("tmux missing")
    host = host_id(HostRoot(netns=ns.ns))
    path = journal_path(DEFAULT_DIR, host)
    t = Tmux(80, 24)
    watchdog = 0
    try:
        # 3 s: time enough to kill the screen after the journal names its watchdog (a poll of
        # a file), short enough that the revert comes 4.5 s after the change.
        t.start([command, "--netns", ns.ns, dev, "--trial-seconds", "3"], tui_env(tmp_path))
        t.wait_for(lambda s: "1 CPUs" in s)
        t.run("send-keys", "3")
        t.wait_for(lambda s: f"NIC {dev}" in s and "Interface MTU" in s)  # the cursor's row
        t.run("send-keys", "e")
        # Each key once the input shows the one before it: keys sent while the dialog is
        # still being set up are lost.
        t.wait_for(lambda s: f"Change {dev} mtu" in s and _typed(s) == "1500")
        t.run("send-keys", "C-u")
        t.wait_for(lambda s: _typed(s) == "")
        t.run("send-keys", "9000")
        t.wait_for(lambda s: _typed(s) == "9000")
        t.run("send-keys", "Enter")

        end = time.monotonic() + 30  # bounds a hang; the assertions are on what happened
        helper: list[Record] = []
        while not helper and time.monotonic() < end:
            helper = [r for r in read_records(path) if r["t"] == "trial-helper"]
            time.sleep(0.02)
        assert helper, t.screen()
        watchdog = int(helper[0]["pid"])
        [screen] = [int(r["pid"]) for r in read_records(path) if r["t"] == "head"]  # new journal
        os.kill(screen, signal.SIGKILL)
        assert mtu(ns, dev) == "9000"
        # Both from the install: the screen is its command, the watchdog its interpreter
        # running its package (python -I -c BOOT PKG MODULE SPEC, tuitune/core/proc.py).
        venv = f"{installed.venv}/"
        argv = [a.decode() for a in Path(f"/proc/{watchdog}/cmdline").read_bytes().split(b"\0")]
        assert argv[0].startswith(f"{venv}bin/python") and argv[1:3] == ["-I", "-c"], argv
        assert argv[4].startswith(venv) and argv[4].endswith("/site-packages/tuitune"), argv
        assert argv[5] == wd.MODULE

        while mtu(ns, dev) != "1500" and time.monotonic() < end:
            time.sleep(0.05)
        assert mtu(ns, dev) == "1500"
        t.wait_for(lambda s: f"TUITUNE-EXIT={128 + signal.SIGKILL}" in s)
        while wd.is_watchdog(watchdog) and time.monotonic() < end:
            time.sleep(0.05)
        [done] = [r for r in read_records(path) if r["t"] == "trial-end"]
        assert (done["how"], done["by"]) == ("reverted", "watchdog"), "the screen was first"
    finally:
        t.kill()
        wd.stop(watchdog)
        for left in (path, lock_dir(DEFAULT_DIR, host) / f"{host}.lock"):  # this namespace's
            left.unlink(missing_ok=True)


def _typed(screen: str) -> str | None:
    """What the edit dialog's input holds: the text of its middle line, `▊  TEXT  ▎`."""
    for line in screen.splitlines():
        _, bar, rest = line.partition("▊")
        if bar and "▎" in rest and not rest.lstrip().startswith(("▔", "▁")):
            return rest.split("▎")[0].strip()
    return None


def test_the_sdist_carries_tests_and_docs_and_the_wheel_its_data() -> None:
    dist = wheelhouse().parent
    [sdist] = dist.glob("tuitune-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for want in (
        "tests/conftest.py",
        "tests/fixtures/captures/SOURCES.md",
        "docs/testing.md",
        "CHANGELOG.md",
        "scripts/wheelhouse",
        "tuitune/themes/dark.toml",
    ):
        assert want in names, want  # fmt: skip
    [wheel] = (wheelhouse() / "wheels").glob("tuitune-*.whl")
    with zipfile.ZipFile(wheel) as whl:
        inside = set(whl.namelist())
    assert {"tuitune/core/catalog/data/sysctl.toml", "tuitune/themes/dark.toml",
            "tuitune/__main__.py"} <= inside  # fmt: skip
    assert not any(n.startswith("tests/") for n in inside)


def test_the_installed_live_screen_and_lab(installed: Installed, tmp_path: Path) -> None:
    """The screen from the install on the test's veth, read back from tmux at 80x24; then the
    lab from the install: built, listed, removed (its state in the test's own directory)."""
    ns, dev, command = installed.ns, installed.ns.a, str(installed.bin / "tuitune")
    if shutil.which("tmux") is None:
        pytest.skip("tmux missing")
    t = Tmux(80, 24)
    try:
        t.start([command, "--netns", ns.ns, dev], tui_env(tmp_path))
        t.wait_for(lambda s: "1 CPUs" in s)
        t.run("send-keys", "3")
        t.wait_for(lambda s: "NIC " + dev in s and "mtu" in s)
        t.run("send-keys", "q")
        t.wait_for(lambda s: "TUITUNE-EXIT=0" in s, timeout=15)
    finally:
        t.kill()

    state = tmp_path / "lab-state"
    state.mkdir(mode=0o700)
    try:
        built = installed.run("lab", "--state-dir", str(state), "--no-tui", inside=False)
        assert built.returncode == 0, built.stderr
        assert "iperf3 -c " in built.stdout
        status = installed.run("lab", "--state-dir", str(state), "--status", inside=False)
        assert status.returncode == 0 and "lab " in status.stdout, status.stdout
    finally:
        down = installed.run("lab", "--state-dir", str(state), "--down", inside=False)
    assert down.returncode == 0 and "removed netns tuitune-lab-" in down.stdout, down.stdout
