"""Exported files, proven by their real consumers on a veth lab in a test namespace.

The lab is tuned through the change journal, exported, torn down and rebuilt fresh; then
`sysctl -p` (in a fresh namespace) and `udevadm test-builtin net_setup_link` (the .link file)
must bring the tuned values back. The udev rules with a real udevd are in test_export_udev.py,
which uses the `Lab` here. Nothing touches the host's interfaces: every device is created
inside a uniquely named namespace that is always deleted.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tuitune.core.export import (
    Change,
    ExportContext,
    ExportPlan,
    Format,
    build_plan,
    from_journal,
    gather_context,
    verify,
)
from tuitune.core.export import affinity as aff
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

pytestmark = pytest.mark.kernel


def run(*cmd: str, check: bool = True) -> str:
    return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=60).stdout


def edits(a: str) -> list[tuple[Key, str]]:
    """Every kind a veth can take (rings, coalescing and pause it has not), on 2 CPUs."""
    return [
        (Key.sysctl("net.core.somaxconn"), "8192"),
        (Key.sysctl("net.ipv4.tcp_rmem"), "4096 262144 33554432"),
        (Key.mtu(a), "9000"),
        (Key.txqueuelen(a), "5000"),
        (Key.feature(a, "rx-gro"), "on"),
        (Key.feature(a, "tx-tcp-segmentation"), "off"),
        (Key.feature(a, "tx-nocache-copy"), "on"),
        (Key.feature(a, "rx-vlan-hw-parse"), "off"),
        (Key.field(a, "channels", "rx"), "2"),
        (Key.field(a, "channels", "tx"), "2"),
        (Key.rps_cpus(a, "rx-0"), "1"),
        (Key.rps_cpus(a, "rx-1"), "0-1"),
        (Key.rps_flow_cnt(a, "rx-0"), "4096"),
        (Key.xps_cpus(a, "tx-0"), "1"),
        (Key.xps_cpus(a, "tx-1"), "0"),
    ]


@dataclass
class Lab:
    tmp: Path
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:6])
    namespaces: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.ns = self.new_ns()
        self.a, self.b = f"tx{self.tag}a", f"tx{self.tag}b"

    def new_ns(self) -> str:
        name = f"tt-export-{self.tag}-{len(self.namespaces)}"
        run("ip", "netns", "add", name)
        self.namespaces.append(name)
        return name

    def add_veth(self, address: str | None = None) -> None:
        mac = ["address", address] if address else []
        queues = ["numtxqueues", "4", "numrxqueues", "4"]
        run("ip", "-n", self.ns, "link", "add", self.a, *mac, *queues, "type", "veth",
            "peer", "name", self.b, *queues)  # fmt: skip

    def del_veth(self) -> None:
        run("ip", "-n", self.ns, "link", "del", self.a)

    def access(self, netns: str | None = None) -> HostAccess:
        return HostAccess(HostRoot(netns=netns or self.ns))

    def tune(self) -> tuple[list[Change], ExportContext]:
        """Tune the lab like a user (through the journal) and read back what to export."""
        self.add_veth()
        for dev in (self.a, self.b):
            run("ip", "-n", self.ns, "link", "set", dev, "up")
        with self.access() as access:
            with Journal.open(access, self.tmp / "journal") as journal:
                outs = journal.apply_all(edits(self.a))
                assert all(o.ok for o in outs), [o.reason for o in outs if not o.ok]
            changes, problems = from_journal(access, self.tmp / "journal", self.a)
            ctx = gather_context(access, self.a)
        assert problems == []
        assert {c.key for c in changes} == {k for k, _ in edits(self.a)}
        return changes, ctx

    def close(self) -> None:
        for ns in self.namespaces:
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    if shutil.which("ip") is None or shutil.which("udevadm") is None:
        pytest.skip("needs iproute2 and udev")
    lab = Lab(tmp_path)
    try:
        yield lab
    finally:
        lab.close()


def export(
    changes: Sequence[Change], ctx: ExportContext, formats: tuple[Format, ...]
) -> ExportPlan:
    plan = build_plan(changes, ctx, formats)
    assert plan.files, plan.warnings
    return plan


def live(lab: Lab, keys: list[Key], netns: str | None = None) -> dict[Key, object]:
    with lab.access(netns) as access:
        return dict(access.read_many(keys))


def test_sysctl_p_in_a_fresh_namespace_reproduces_every_value(lab: Lab) -> None:
    changes, ctx = lab.tune()
    [f] = export(changes, ctx, ("sysctl",)).files
    path = lab.tmp / f.path.name
    path.write_text(f.text)
    fresh = lab.new_ns()
    run("ip", "netns", "exec", fresh, "sysctl", "-p", str(path))
    wanted = {c.key: c.current for c in changes if c.key.kind == "sysctl"}
    assert len(wanted) == 2
    for key, value in wanted.items():
        got = run("ip", "netns", "exec", fresh, "sysctl", "-n", key.name)
        assert " ".join(got.split()) == value, key
    report = verify([path], lambda _ns: lab.access(fresh))
    assert report.ok and report.checked == 2, (report.differences, report.problems)


def test_link_file_applied_by_net_setup_link_to_a_fresh_veth(lab: Lab) -> None:
    changes, ctx = lab.tune()
    [f] = export(changes, ctx, ("link",)).files
    path = lab.tmp / f.path.name
    path.write_text(f.text)
    lab.del_veth()
    lab.add_veth()
    a = lab.a
    assert run("ip", "-n", lab.ns, "-o", "link", "show", a).split()[4] == "1500"
    # The .link directories hidden by a tmpfs in a private mount namespace: only ours is read.
    script = (
        "set -e; mount -t tmpfs tmpfs /etc/systemd/network; mount -t tmpfs tmpfs /run; "
        f'cp "$1" /etc/systemd/network/; udevadm test-builtin net_setup_link /sys/class/net/{a}'
    )
    out = subprocess.run(
        ["ip", "netns", "exec", lab.ns, "unshare", "-m", "--propagation", "private",
         "sh", "-c", script, "sh", str(path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert f"Config file /etc/systemd/network/{path.name} is applied" in out.stderr
    # What systemd 252 can say; tx-nocache-copy and RPS/XPS are the udev rules' job.
    carried = {
        Key.mtu(a): "9000",
        Key.txqueuelen(a): "5000",
        Key.field(a, "channels", "rx"): "2",
        Key.field(a, "channels", "tx"): "2",
        Key.feature(a, "rx-gro"): "on",
        Key.feature(a, "tx-tcp-segmentation"): "off",
        Key.feature(a, "rx-vlan-hw-parse"): "off",
    }
    assert live(lab, list(carried)) == carried
    assert "ReceiveVLANCTAGHardwareAcceleration=no" in f.text
    channels = run("ip", "netns", "exec", lab.ns, "ethtool", "-l", a).split("Current")[1]
    assert "RX:\t\t2" in channels and "TX:\t\t2" in channels
    report = verify([path], lambda _ns: lab.access())
    assert report.ok, (report.differences, report.problems)


def test_follow_reapplies_affinity_when_the_link_comes_up(lab: Lab) -> None:
    """The driver side is a recorded /proc (a veth has no IRQs); the link events are real."""
    lab.add_veth()
    a = lab.a
    proc = lab.tmp / "proc"
    (proc / "irq/200").mkdir(parents=True)
    (proc / "interrupts").write_text(
        "           CPU0       CPU1\n"
        f" 200:         10          0  IR-PCI-MSI 1-edge      {a}-TxRx-0\n"
    )
    affinity_file = proc / "irq/200/smp_affinity_list"
    affinity_file.write_text("0-1\n")
    pins = [aff.Pin(f"{a}-TxRx-0", "1", 1)]
    root = HostRoot(proc=proc, netns=lab.ns)
    applied = threading.Event()
    with HostAccess(root) as access:
        sock = access.run(aff.open_link_socket)
        stop = threading.Event()
        result: list[str] = []

        def reapply() -> None:
            aff.apply(access, a, pins)
            applied.set()

        worker = threading.Thread(
            target=lambda: result.append(
                aff.follow(aff.link_events(sock, stop.is_set), a, reapply, flags=0)
            )
        )
        worker.start()
        try:
            run("ip", "-n", lab.ns, "link", "set", a, "up")
            assert applied.wait(30), "no re-apply after the link came up"
            assert affinity_file.read_text().strip() == "1"
            # The driver resets affinity when it reopens the device: down, reset, up.
            applied.clear()
            run("ip", "-n", lab.ns, "link", "set", a, "down")
            affinity_file.write_text("0-1\n")
            run("ip", "-n", lab.ns, "link", "set", a, "up")
            assert applied.wait(30), "no re-apply after the second link up"
            assert affinity_file.read_text().strip() == "1"
            lab.del_veth()
            worker.join(30)
            assert result == [f"{a} is gone"]
        finally:
            stop.set()
            worker.join(30)
            sock.close()
