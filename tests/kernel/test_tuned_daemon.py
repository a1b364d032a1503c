"""The real tuned daemon (2.20, Debian's) applies a profile `tuitune export --format tuned`
wrote, in a throwaway namespace, and puts it back when it stops.

tuned is not installed on this machine (installing it starts its daemon, which would tune the
shared host). The test runs its code unpacked, not installed: set TUITUNE_TUNED_ROOT to a tree
made with

    apt-get download tuned python3-dbus python3-gi python3-linux-procfs python3-pyudev
    for d in *.deb; do dpkg -x "$d" "$TUITUNE_TUNED_ROOT"; done

(or install tuned where that is wanted: /usr/sbin/tuned is then used). Without either, the
test is skipped and says so.

Isolation: the daemon runs in the test's network namespace (its sysctl writes land there),
in a private mount namespace where /etc, /run and /var are overlays on the test's own
directories (tuned writes /etc/tuned/active_profile, /run/tuned, /var/lib/tuned: those land
in the overlays, never on the host), and a private PID namespace; `tuned-main.conf` turns off
dynamic tuning, the re-application of /etc/sysctl.d (which would write host-wide values) and
the recommend command; D-Bus and the socket are off.

What it shows: the [sysctl] unit of the exported file is applied by tuned itself (the kernel
holds it while the daemon runs) and rolled back when it stops. The [net] unit cannot be shown
here: tuned's net plugin skips devices under /sys/devices/virtual (a veth), and this kernel
has no netdevsim module; the VM guest's netdevsim would do (not written: tests/vm).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.test_sweep_kernel import run

pytestmark = pytest.mark.kernel
TS = "net.ipv4.tcp_timestamps"
MAIN_CONF = "daemon = 1\ndynamic_tuning = 0\nreapply_sysctl = 0\nrecommend_command = 0\n"
SCRIPT = r"""
set -e
for d in etc run var; do
    mkdir -p "$T/up-$d" "$T/work-$d"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$T/up-$d,workdir=$T/work-$d" "/$d"
done
mkdir -p /etc/tuned /run/tuned /var/lib/tuned /var/log/tuned
cp -r "$T/profiles/." /etc/tuned/
cd /
PYTHONPATH="$TUNED_PY" /usr/bin/python3 -s "$TUNED" --no-dbus --no-socket --debug \
    --profile "$PROFILE" 2>&1 &
pid=$!
read -r _stop
kill -TERM "$pid"
wait "$pid"
"""


def _tuned() -> tuple[str, str] | None:
    """(the tuned script, its python path), unpacked or installed; None: neither."""
    root = os.environ.get("TUITUNE_TUNED_ROOT")
    for base in ([Path(root)] if root else []) + [Path("/")]:
        script = base / "usr/sbin/tuned"
        py = base / "usr/lib/python3/dist-packages"
        if script.is_file() and (py / "tuned" / "daemon").is_dir():
            return str(script), str(py)
    return None


@pytest.fixture
def ns() -> Iterator[tuple[str, str]]:
    tag = uuid.uuid4().hex[:6]
    name, dev = f"tt-tuned-{tag}", f"tt{tag}a"
    try:
        run("ip", "netns", "add", name)
        run("ip", "-n", name, "link", "add", dev, "type", "veth", "peer", "name", f"tt{tag}b")
        yield name, dev
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)


def _sysctl(ns: str) -> str:
    return run("ip", "netns", "exec", ns, "sysctl", "-n", TS).strip()


def test_the_tuned_daemon_applies_the_exported_sysctls_and_rolls_them_back(
    ns: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = _tuned()
    if found is None:
        pytest.skip("no tuned: set TUITUNE_TUNED_ROOT to an unpacked tuned (see the docstring)")
    if shutil.which("unshare") is None or not Path("/usr/bin/python3").is_file():
        pytest.skip("unshare or the system python3 missing")
    script, py = found
    netns, dev = ns
    from tuitune import cli  # in this process: CLI starts cost seconds on the loaded host

    # The file tuned reads: what tuitune exports after a change, then the change put back.
    journal = ["--netns", netns, "--journal-dir", str(tmp_path / "j")]
    assert cli.main(["profile", "apply", "lan-40g", dev, *journal]) == 0
    out = tmp_path / "export"
    assert cli.main(["export", dev, "--format", "tuned", "--out", str(out), *journal]) == 0
    assert cli.main(["restore", *journal]) == 0
    capsys.readouterr()
    conf = out / "tuned.conf"
    assert f"{TS}=0" in conf.read_text()
    before = _sysctl(netns)
    assert before == "1"  # a new namespace's default: the file changes it
    profile = f"tuitune-{dev}"
    (tmp_path / "profiles" / profile).mkdir(parents=True)
    shutil.copy(conf, tmp_path / "profiles" / profile / "tuned.conf")
    (tmp_path / "profiles" / "tuned-main.conf").write_text(MAIN_CONF)
    env = {"T": str(tmp_path), "TUNED": script, "TUNED_PY": py, "PROFILE": profile,
           "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}  # fmt: skip
    daemon = subprocess.Popen(
        ["ip", "netns", "exec", netns, "unshare", "--mount", "--pid", "--fork",
         "--mount-proc", "--propagation", "private", "sh", "-c", SCRIPT],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=env,
    )  # fmt: skip
    assert daemon.stdin is not None and daemon.stdout is not None
    log: list[str] = []
    try:
        for line in daemon.stdout:  # the daemon's own word that the profile is applied
            log.append(line)
            if f"static tuning from profile '{profile}' applied" in line:
                break
        else:
            pytest.fail("tuned never applied the profile:\n" + "".join(log[-30:]))
        during = _sysctl(netns)
        daemon.stdin.write("stop\n")
        daemon.stdin.flush()
        log += daemon.stdout.readlines()
        daemon.wait(30)
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    text = "".join(log)
    assert during == "0", text[-3000:]
    assert f"Setting sysctl parameter '{TS}' to '0'" in text
    assert daemon.returncode == 0, text[-3000:]
    assert _sysctl(netns) == before  # tuned's own rollback when it stops
    if script != "/usr/sbin/tuned":  # unpacked: nothing of tuned's reached the host's dirs
        for d in ("/etc/tuned", "/run/tuned", "/var/lib/tuned", "/var/log/tuned"):
            assert not Path(d).exists(), d
