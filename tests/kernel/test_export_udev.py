"""The exported udev rules, applied by a real systemd-udevd to a freshly created veth.

The udevd runs inside the test's network namespace (so it only ever sees that namespace's
devices: never eth0 or any host interface) and in a private mount namespace where tmpfs hides
every rules directory but ours and gives it its own /run. It is stopped with
`udevadm control --exit` (killed if it does not go) even when the test fails. The rules match
the test device by its unique name, by a MAC, or by an ID_PATH (veth has none: a test rule
gives it one, as path_id would for a PCI NIC), and must reproduce MTU, txqueuelen, features,
channels and RPS/XPS exactly, including on the queues that the rules' own `ethtool -L` makes.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.kernel.test_export_lab import Lab, export, lab, live, run
from tuitune.core.export import DeviceMatch, verify

pytestmark = pytest.mark.kernel
__all__ = ["lab"]  # the fixture, shared with test_export_lab

UDEVD = "/lib/systemd/systemd-udevd"
# Runs inside `ip netns exec NS unshare -m`: hide the system's rules, bring ours, start udevd.
START = """set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /etc/udev/rules.d
mount -t tmpfs tmpfs /usr/lib/udev/rules.d
cp "$1"/*.rules /etc/udev/rules.d/
exec {udevd}
"""


def nsenter(pid: int, *cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["nsenter", "-t", str(pid), "-m", "-n", *cmd],
        capture_output=True, text=True, timeout=60, check=check,
    )  # fmt: skip


@contextlib.contextmanager
def udevd(ns: str, rules: Path, start: str | None = None) -> Iterator[int]:
    """A systemd-udevd in namespace `ns` reading only the rules in `rules`; its pid."""
    proc = subprocess.Popen(
        ["ip", "netns", "exec", ns, "unshare", "-m", "--propagation", "private",
         "sh", "-c", (start or START).format(udevd=UDEVD), "sh", str(rules)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while nsenter(proc.pid, "udevadm", "control", "--ping", check=False).returncode != 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read() if proc.stdout else ""
                pytest.fail(f"udevd did not start: {out}")
            time.sleep(0.05)
        yield proc.pid
    finally:
        if proc.poll() is None:
            nsenter(proc.pid, "udevadm", "control", "--exit", check=False)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout:
            proc.stdout.close()


NET_SETUP_LINK = Path("/usr/lib/udev/rules.d/80-net-setup-link.rules")


@pytest.mark.parametrize("kind", ["name", "mac", "path", "driver"])
def test_rules_given_to_a_real_udevd_rebuild_the_tuned_veth(lab: Lab, kind: str) -> None:
    changes, ctx = lab.tune()
    assert ctx.match.kind == "name"  # a veth: no ID_PATH, a random MAC
    mac = f"02:54:{lab.tag[0:2]}:{lab.tag[2:4]}:{lab.tag[4:6]}:01"
    match = {
        "name": ctx.match,
        "mac": DeviceMatch("mac", mac),
        "path": DeviceMatch("path", f"tuitune-test-{lab.tag}"),
        "driver": DeviceMatch("driver", "veth"),
    }[kind]
    [f] = export(changes, replace(ctx, match=match), ("udev",)).files
    rules = lab.tmp / "rules"
    rules.mkdir()
    (rules / f.path.name).write_text(f.text)
    if kind == "path":
        # What 80-net-setup-link.rules does for a PCI NIC: ID_PATH in the device's properties.
        (rules / "10-tuitune-test-path.rules").write_text(
            f'ACTION=="add", SUBSYSTEM=="net", KERNEL=="{lab.a}", '
            f'ENV{{ID_PATH}}="tuitune-test-{lab.tag}"\n'
        )
    if kind == "driver":
        # The system's own rule: its net_setup_link builtin asks ethtool for the driver and
        # stores it as ID_NET_DRIVER, which is all the driver match has to go on.
        if not NET_SETUP_LINK.exists():
            pytest.skip(f"{NET_SETUP_LINK} is not on this machine")
        (rules / NET_SETUP_LINK.name).write_text(NET_SETUP_LINK.read_text())

    lab.del_veth()  # tear the lab down
    with udevd(lab.ns, rules) as pid:
        lab.add_veth(address=mac if kind == "mac" else None)  # a fresh device, same name
        settle = nsenter(pid, "udevadm", "settle", "--timeout=60", check=False)
        assert settle.returncode == 0, settle.stderr

    wanted = {c.key: c.current for c in changes if c.key.kind != "sysctl"}
    assert live(lab, list(wanted)) == wanted
    # Cross-checked with the usual tools and sysfs.
    a = lab.a
    [link] = json.loads(run("ip", "-j", "-n", lab.ns, "link", "show", a))
    assert (link["mtu"], link["txqlen"]) == (9000, 5000)
    current = run("ip", "netns", "exec", lab.ns, "ethtool", "-l", a).split("Current")[1]
    assert "RX:\t\t2" in current and "TX:\t\t2" in current
    features = run("ip", "netns", "exec", lab.ns, "ethtool", "-k", a)
    assert "generic-receive-offload: on" in features
    assert "tx-tcp-segmentation: off" in features
    queues = f"/sys/class/net/{a}/queues"
    sysfs = run(
        "ip", "netns", "exec", lab.ns, "cat",
        f"{queues}/rx-0/rps_cpus", f"{queues}/rx-1/rps_cpus", f"{queues}/rx-0/rps_flow_cnt",
        f"{queues}/tx-0/xps_cpus", f"{queues}/tx-1/xps_cpus",
    ).split()  # fmt: skip
    assert sysfs == ["2", "3", "4096", "2", "1"]
    assert "rx-2" not in run("ip", "netns", "exec", lab.ns, "ls", queues)
    # And tuitune verify agrees with the file.
    path = rules / f.path.name
    report = verify([path], lambda _ns: lab.access())
    assert report.ok and report.checked == len(wanted), report.differences
    [peer] = json.loads(run("ip", "-j", "-n", lab.ns, "link", "show", lab.b))
    if kind == "driver":
        # As the export warns: by driver, every NIC that driver runs is tuned, the peer too.
        assert (peer["mtu"], peer["txqlen"]) == (9000, 5000)
        return
    # The peer was never touched: the rules match the test device only.
    assert (peer["mtu"], peer["txqlen"]) == (1500, 1000)


# As START, with the system's .link directory replaced by ours and net_setup_link's own rule.
START_LINK = """set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /etc/udev/rules.d
mount -t tmpfs tmpfs /usr/lib/udev/rules.d
mount -t tmpfs tmpfs /etc/systemd/network
cp "$1"/*.rules /etc/udev/rules.d/
cp "$1"/*.link /etc/systemd/network/
exec {udevd}
"""


def test_where_the_link_file_and_the_rules_differ_the_rules_win(lab: Lab) -> None:
    """Issue 22 item 23: the export says the rules' value is the one that stays when the .link
    file (applied by 80-net-setup-link.rules' net_setup_link) and the rules ever differ, as
    when a .link of an older tuning is left behind. A real systemd-udevd, with the system's
    own net_setup_link rule, decides it: first the .link alone (it is really applied: MTU
    4000), then with the rules too (MTU 9000, the rules' value)."""
    if not NET_SETUP_LINK.exists():
        pytest.skip(f"{NET_SETUP_LINK} is not on this machine")
    changes, ctx = lab.tune()
    plan = export(changes, ctx, ("udev", "link"))
    rules = next(f for f in plan.files if f.format == "udev")
    link = next(f for f in plan.files if f.format == "link")
    assert "MTUBytes=9000" in link.text
    older = link.text.replace("MTUBytes=9000", "MTUBytes=4000")
    files = lab.tmp / "files"
    files.mkdir()
    (files / NET_SETUP_LINK.name).write_text(NET_SETUP_LINK.read_text())
    (files / link.path.name).write_text(older)

    def boot() -> int:
        lab.del_veth()
        with udevd(lab.ns, files, START_LINK) as pid:
            lab.add_veth()
            settle = nsenter(pid, "udevadm", "settle", "--timeout=60", check=False)
            assert settle.returncode == 0, settle.stderr
        [info] = json.loads(run("ip", "-j", "-n", lab.ns, "link", "show", lab.a))
        return int(info["mtu"])

    assert boot() == 4000  # the .link alone: udev did apply it
    (files / rules.path.name).write_text(rules.text)
    assert boot() == 9000  # with the rules: theirs stays, as the export says
