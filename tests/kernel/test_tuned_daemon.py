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

What it shows: the [sysctl] and [net] units of the exported file are applied by tuned itself
(the kernel holds the sysctl, the veth's MTU, channels and GRO while the daemon runs) and
rolled back when it stops. tuned's net plugin takes no device whose udev path has /virtual/
in it (a veth, a dummy: every software device; this kernel has no netdevsim), so inside the
daemon's private mount namespace the veth's sysfs directory is shown at a path without it
(SCRIPT says how); tuned then reads and sets the real veth with ip and ethtool.
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
# tuned's net plugin takes only devices whose udev path has no /virtual/ (a veth's has):
# in this private mount namespace the veth's own sysfs directory is shown to it at a path
# without one, /sys/devices/platform/net/DEV (tmpfs over /sys/devices/platform, a bind of
# the real directory, the same depth so its `subsystem` link still resolves), and
# /sys/class/net lists it there. Only the path is masked: tuned reads and sets the real veth
# (ip link, ethtool) in the test's network namespace.
mount -t tmpfs none /sys/devices/platform
mkdir -p "/sys/devices/platform/net/$DEV"
mount --bind "/sys/devices/virtual/net/$DEV" "/sys/devices/platform/net/$DEV"
mount -t tmpfs none /sys/class/net
ln -s "../../devices/platform/net/$DEV" "/sys/class/net/$DEV"
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


def _net(ns: str, dev: str) -> tuple[str, str, str]:
    """(MTU, rx channels, rx-gro) as the kernel holds them (`ethtool -k` says GRO in full)."""
    mtu = run("ip", "netns", "exec", ns, "cat", f"/sys/class/net/{dev}/mtu").strip()
    chans = run("ip", "netns", "exec", ns, "ethtool", "-l", dev).split("Current hardware")[1]
    rx = next(ln.split()[-1] for ln in chans.splitlines() if ln.startswith("RX:"))
    k = run("ip", "netns", "exec", ns, "ethtool", "-k", dev)
    gro = next(ln.split()[1] for ln in k.splitlines() if ln.startswith("generic-receive-offload:"))
    return mtu, rx, gro


def _sysctl(ns: str) -> str:
    return run("ip", "netns", "exec", ns, "sysctl", "-n", TS).strip()


def test_the_tuned_daemon_applies_the_exported_sysctls_and_net_and_rolls_them_back(
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
    assert "features=gro on" in conf.read_text()  # the name tuned takes for rx-gro
    before = _sysctl(netns)
    assert before == "1"  # a new namespace's default: the file changes it
    profile = f"tuitune-{dev}"
    (tmp_path / "profiles" / profile).mkdir(parents=True)
    shutil.copy(conf, tmp_path / "profiles" / profile / "tuned.conf")
    (tmp_path / "profiles" / "tuned-main.conf").write_text(MAIN_CONF)
    net_before = _net(netns, dev)
    env = {"T": str(tmp_path), "TUNED": script, "TUNED_PY": py, "PROFILE": profile,
           "DEV": dev, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}  # fmt: skip
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
        net_during = _net(netns, dev)
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
    # The [net] unit, by tuned's net plugin on the veth: what the file says, while it runs.
    assert net_before == ("1500", "1", "off"), net_before
    assert net_during == ("9000", "2", "on"), text[-3000:]
    net_after = _net(netns, dev)
    assert net_after == net_before, text[-3000:]  # tuned's rollback of the [net] unit
    if script != "/usr/sbin/tuned":  # unpacked: nothing of tuned's reached the host's dirs
        for d in ("/etc/tuned", "/run/tuned", "/var/lib/tuned", "/var/log/tuned"):
            assert not Path(d).exists(), d
