"""Snapshot tests of every exported file, for a state with every kind of change: sysctls, MTU,
txqueuelen, channels, rings, coalescing (a number and a flag), pause, features (one that a
.link key covers alone, one it covers as a group), RPS, XPS, rps_flow_cnt, IRQ affinity.

The state is made the way a user makes it: through the change journal on a recorded host
with a fake NIC. The expected files live in tests/export_expected/; after a deliberate change
to a generator, regenerate them with TUITUNE_UPDATE_EXPECTED=1 and read the diff.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.export import (
    FORMATS,
    Change,
    DeviceMatch,
    ExportContext,
    ExportPlan,
    build_plan,
    from_originals,
    gather_context,
    sysctld,
)
from tuitune.core.host.irqbalance import IrqbalanceState
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

EXPECTED = Path(__file__).resolve().parents[3] / "export_expected"
DEV = "eno49"
WHEN = 1735812000.0  # 2025-01-02 10:00 UTC
EDITS = [
    (Key.sysctl("net.core.rmem_max"), "16777216"),
    (Key.sysctl("net.ipv4.tcp_rmem"), "4096 131072 33554432"),
    (Key.sysctl("net.core.default_qdisc"), "fq"),
    (Key.mtu(DEV), "9000"),
    (Key.txqueuelen(DEV), "5000"),
    (Key.field(DEV, "channels", "combined"), "2"),
    (Key.field(DEV, "ring", "rx"), "4096"),
    (Key.field(DEV, "ring", "tx"), "2048"),
    (Key.field(DEV, "coalesce", "rx-usecs"), "100"),
    (Key.field(DEV, "coalesce", "adaptive-rx"), "off"),
    (Key.field(DEV, "pause", "autoneg"), "off"),
    (Key.field(DEV, "pause", "rx"), "off"),
    (Key.feature(DEV, "rx-gro"), "off"),
    (Key.feature(DEV, "tx-checksum-ip-generic"), "off"),
    (Key.feature(DEV, "tx-scatter-gather"), "off"),
    (Key.rps_cpus(DEV, "rx-0"), "1-2"),
    (Key.rps_cpus(DEV, "rx-1"), "0"),
    (Key.rps_flow_cnt(DEV, "rx-0"), "4096"),
    (Key.xps_cpus(DEV, "tx-1"), "2"),
    (Key.irq(101, "eno49-TxRx-0", DEV), "2"),
    (Key.irq(102, "eno49-TxRx-1", DEV), "0-1"),
]


def _fixed(ctx: ExportContext, **kw: object) -> ExportContext:
    """A context that reads the same on any machine and day."""
    base = {
        "host": "fixture-host",
        "etc": Path("/etc"),
        "now": WHEN,
        "systemd_version": 252,
        "ethtool": "/usr/sbin/ethtool",
        "tuitune": "/usr/bin/tuitune",
        "networkd": False,
        "network_manager": False,
        "irqbalance": IrqbalanceState(
            True, (4242,), "/etc/default/irqbalance", frozenset(), (), False
        ),
        "irqbalance_config": (
            Path("/etc/default/irqbalance"),
            '# irqbalance\nIRQBALANCE_ARGS="--hintpolicy=exact"\n',
        ),
        "link_policy": (),
    }
    base.update(kw)
    return replace(ctx, **base)  # type: ignore[arg-type]


class Tuned:
    """The recorded host after the edits, with its context and the changes to export."""

    def __init__(self, base: Path) -> None:
        self.tree = build_host(base / "host")
        self.dev = FakeDevice(DEV)
        self.access = HostAccess(HostRoot.fixture(self.tree), ethtool=lambda name: self.dev)
        with Journal.open(self.access, base / "journal") as journal:
            outs = journal.apply_all(EDITS)
            assert all(o.ok for o in outs), [o.reason for o in outs if not o.ok]
            originals = journal.originals()
        self.changes, problems = from_originals(
            self.access, originals, DEV, {k: WHEN for k in originals}
        )
        assert problems == []
        self.ctx = _fixed(gather_context(self.access, DEV))

    def plan(self, **ctx: object) -> ExportPlan:
        return build_plan(self.changes, _fixed(self.ctx, **ctx), FORMATS, read_installed=False)


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tuned]:
    t = Tuned(tmp_path_factory.mktemp("export"))
    yield t
    t.access.close()


def _check_expected(variant: str, plan: ExportPlan) -> None:
    """Every file of the plan equals tests/export_expected/VARIANT/NAME, and no file is missing."""
    folder = EXPECTED / variant
    got = {f.path.name: f.text for f in plan.files}
    if os.environ.get("TUITUNE_UPDATE_EXPECTED"):
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for name, text in got.items():
            (folder / name).write_text(text)
    want = {p.name: p.read_text() for p in sorted(folder.iterdir())}
    assert sorted(got) == sorted(want)
    for name, text in want.items():
        assert got[name] == text, f"{variant}/{name} differs (TUITUNE_UPDATE_EXPECTED=1 to update)"


def test_every_kind_of_change_by_mac(tuned: Tuned) -> None:
    plan = tuned.plan()
    assert tuned.ctx.match == DeviceMatch("mac", "00:1b:21:00:00:01")
    _check_expected("mac", plan)
    # Every change is carried by some file; what a format cannot say is said per format.
    assert plan.skipped == ()
    kinds = {c.key.kind for c in tuned.changes}
    assert kinds == {
        "sysctl", "mtu", "txqueuelen", "channels", "ring", "coalesce", "pause", "feature",
        "rps_cpus", "rps_flow_cnt", "xps_cpus", "irq_affinity",
    }  # fmt: skip


def test_by_id_path_on_a_two_port_function_with_networkmanager(tuned: Tuned) -> None:
    match = DeviceMatch("path", "pci-0000:3b:00.0", dev_port="1")
    plan = tuned.plan(match=match, network_manager=True, irqbalance=None, irqbalance_config=None)
    _check_expected("path", plan)
    [link_file] = plan.by_format("link")
    assert any("cannot tell ports apart" in w for w in link_file.warnings)


def test_by_name_in_a_namespace_warns(tuned: Tuned) -> None:
    match = DeviceMatch("name", DEV, warning="eno49 matched by name")
    plan = build_plan(
        [c for c in tuned.changes if c.key.kind in ("sysctl", "mtu", "rps_cpus")],
        _fixed(tuned.ctx, match=match, netns="lab"),
        ("sysctl", "udev"),
        read_installed=False,
    )
    _check_expected("netns", plan)
    [rules] = plan.by_format("udev")
    assert rules.warnings[0] == "eno49 matched by name"
    assert "network namespace lab" in rules.warnings[1]
    # A namespace's sysctls never go to /etc/sysctl.d, where the host would apply them.
    own, wide = plan.by_format("sysctl")
    assert own.path == Path("/etc/tuitune/netns-lab.sysctl.conf")
    assert "net.ipv4.tcp_rmem" in own.text and "net.core.rmem_max" not in own.text
    # Host-wide sysctls changed from the namespace (the screen asked first) are the host's:
    # a file of their own in /etc/sysctl.d, with a warning that they change the whole machine.
    assert wide.path == Path("/etc/sysctl.d/90-tuitune-from-netns-lab.conf")
    assert [k for k, _, _ in sysctld.parse(wide.text)] == [
        Key.sysctl("net.core.rmem_max"),
        Key.sysctl("net.core.default_qdisc"),
    ]
    assert "changes the whole machine at boot" in wide.warnings[0]
    assert "ip netns exec" not in wide.text and plan.skipped == ()
    # Read now: the namespace's file inside the namespace, the host's on the host.
    assert sysctld.apply_command(own.path, "lab").startswith("ip netns exec lab sysctl -p /etc/")
    assert sysctld.apply_command(wide.path, "lab") == f"sysctl -p {wide.path}"


def test_old_systemd_gets_only_the_keys_it_knows(tuned: Tuned) -> None:
    plan = tuned.plan(systemd_version=244)
    [link_file] = plan.by_format("link")
    assert "RxBufferSize=4096" in link_file.text  # 244
    assert "TransmitQueueLength" not in link_file.text  # 248
    assert "RxFlowControl" not in link_file.text  # 246
    assert "RxCoalesceSec" not in link_file.text  # 250
    assert "MTUBytes=9000" in link_file.text


def test_link_leaves_out_a_group_it_cannot_say_exactly(tuned: Tuned) -> None:
    """TransmitChecksumOffload sets every tx-checksum-* feature: when they would differ, the
    .link file leaves it to the udev rules instead of changing more than was tuned."""
    device = dict(tuned.ctx.device)
    device[Key.feature(DEV, "tx-checksum-sctp")] = "on"  # a second, changeable csum feature
    plan = tuned.plan(device=device, networkd=True)
    [link_file] = plan.by_format("link")
    assert "TransmitChecksumOffload" not in link_file.text
    [rules] = plan.by_format("udev")
    assert "tx-checksum-ip-generic off" in rules.text


def test_only_what_differs_is_exported() -> None:
    from tuitune.core.export import between, changes_from

    k = Key.mtu(DEV)
    assert changes_from({k: ("1500", "1500")}) == []
    assert between({k: "1500"}, {k: "9000"}) == [Change(k, "1500", "9000")]
    assert between({}, {k: "9000"}) == [Change(k, None, "9000")]


def test_the_diff_is_against_the_installed_file(tmp_path: Path, tuned: Tuned) -> None:
    etc = tmp_path / "etc"
    plan = build_plan(tuned.changes, _fixed(tuned.ctx, etc=etc), ("sysctl",))
    [f] = plan.files
    assert f.installed is None and f.diff.startswith("--- /dev/null")
    f.path.parent.mkdir(parents=True)
    f.path.write_text(f.text.replace("16777216", "8388608"))
    [again] = build_plan(tuned.changes, _fixed(tuned.ctx, etc=etc), ("sysctl",)).files
    assert again.changed
    assert "-net.core.rmem_max = 8388608\n+net.core.rmem_max = 16777216" in again.diff
