"""The whole read side against the real kernel, inside a test namespace.

Every value is cross-checked against what `ip`, `ethtool` and /sys say in the test (never in
the product), after the test has set it to something other than the default.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys

import pytest

from tests.kernel.conftest import VethNs, run
from tests.support.command import tuitune
from tuitune.core.host.ethtool import Channels
from tuitune.core.host.netdev import parse_net_dev
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader, UnknownInterface
from tuitune.core.watch.rates import compute_rates

pytestmark = pytest.mark.kernel


@pytest.fixture
def reader(veth_ns: VethNs) -> HostReader:
    r = HostReader(HostRoot(netns=veth_ns.ns))
    yield r  # type: ignore[misc]
    r.close()


def test_link_values_match_ip(veth_ns: VethNs, reader: HostReader) -> None:
    veth_ns.ip("link", "set", veth_ns.a, "mtu", "4321", "txqueuelen", "777")
    nic = reader.nic_state(veth_ns.a)
    detail = veth_ns.ip("-d", "-j", "link", "show", veth_ns.a)
    ip = json.loads(detail)[0]
    assert nic.link.mtu == ip["mtu"] == 4321
    assert nic.link.txqlen == ip["txqlen"] == 777
    assert nic.link.min_mtu == ip["min_mtu"]
    assert nic.link.max_mtu == ip["max_mtu"]
    # Queues in use, as `ethtool -l` and sysfs count them, not the allocated ones netlink
    # reports (a veth allocates one per possible CPU): issue 22 item 14 saw "2/2" for 1/1.
    in_use = veth_ns.nsexec("ls", f"/sys/class/net/{veth_ns.a}/queues").split()
    assert in_use == ["rx-0", "tx-0"]
    assert (nic.link.num_rx_queues, nic.link.num_tx_queues) == (1, 1)
    assert nic.link.kind == "veth"
    assert nic.link.address == ip["address"]
    assert nic.placement.bus is None and nic.irqs == ()  # veth: no PCI parent, no IRQs


def test_features_and_channels_match_ethtool(veth_ns: VethNs, reader: HostReader) -> None:
    veth_ns.nsexec("ethtool", "-K", veth_ns.a, "tso", "off", "gro", "off")
    veth_ns.nsexec("ethtool", "-L", veth_ns.a, "rx", "2", "tx", "2")
    nic = reader.nic_state(veth_ns.a)
    assert not isinstance(nic.features, Unavailable)
    text = veth_ns.nsexec("ethtool", "-k", veth_ns.a)
    cli = dict(re.findall(r"^\s*([\w-]+): (on|off)", text, re.M))
    ours = {f.name: "on" if f.active else "off" for f in nic.features}
    # ethtool prints a few features under legacy names (generic-receive-offload for rx-gro)
    common = ours.keys() & cli.keys()
    assert len(common) >= 40
    assert {k: ours[k] for k in common} == {k: cli[k] for k in common}
    assert ours["tx-tcp-segmentation"] == "off" and cli["tcp-segmentation-offload"] == "off"
    assert ours["rx-gro"] == "off" and cli["generic-receive-offload"] == "off"
    assert isinstance(nic.channels, Channels)
    assert (nic.channels.rx, nic.channels.tx) == (2, 2)
    assert [q.name for q in nic.queues] == ["rx-0", "rx-1", "tx-0", "tx-1"]
    assert (nic.link.num_rx_queues, nic.link.num_tx_queues) == (2, 2)


def test_unsupported_groups_are_states(veth_ns: VethNs, reader: HostReader) -> None:
    nic = reader.nic_state(veth_ns.a)
    for group in (nic.rings, nic.coalesce, nic.pause):
        assert isinstance(group, Unavailable)
        assert group.kind == "unsupported"
        assert "veth" in group.reason


def test_rps_xps_masks_match_sysfs(veth_ns: VethNs, reader: HostReader) -> None:
    ncpus = int(run("nproc"))  # online CPUs: an RPS mask may name only those
    last = ncpus - 1
    base = f"/sys/class/net/{veth_ns.a}/queues"
    veth_ns.nsexec("sh", "-c", f"echo {1 << last:x} > {base}/rx-0/rps_cpus")
    veth_ns.nsexec("sh", "-c", f"echo 64 > {base}/rx-0/rps_flow_cnt")
    veth_ns.nsexec("sh", "-c", f"echo 1 > {base}/tx-0/xps_cpus")
    nic = reader.nic_state(veth_ns.a)
    q = {m.name: m for m in nic.queues}
    assert q["rx-0"].cpus == frozenset({last})
    assert q["rx-0"].rps_flow_cnt == 64
    assert q["tx-0"].cpus == frozenset({0})
    # and the kernel holds what /sys says, read back by the test itself
    assert veth_ns.nsexec("cat", f"{base}/tx-0/xps_cpus").strip().lstrip("0,") == "1"


def test_per_netns_sysctls_read_in_the_namespace(veth_ns: VethNs, reader: HostReader) -> None:
    veth_ns.nsexec("sysctl", "-qw", "net.ipv4.tcp_rmem=4096 100000 2000000")
    veth_ns.nsexec("sysctl", "-qw", "net.core.somaxconn=1234")
    values = {s.key: s.value for s in reader.host_state().sysctls}
    assert values["net.ipv4.tcp_rmem"] == "4096 100000 2000000"
    assert values["net.core.somaxconn"] == "1234"
    # The host's own values are untouched and differ (this test wrote only in its netns).
    with open("/proc/sys/net/core/somaxconn") as f:
        assert f.read().strip() != "1234"
    assert values["net.ipv4.route.flush"] == Unavailable(
        "unsupported", "net.ipv4.route.flush: write-only trigger"
    )


def _send_frames(ifname: str, count: int, size: int) -> None:
    # Raw frames out of one veth end arrive at the other: exact, known byte counts.
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    try:
        s.bind((ifname, 0))
        frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + b"\x00" * (size - 14)
        for _ in range(count):
            s.send(frame)
    finally:
        s.close()


def test_link_counters_and_rates(veth_ns: VethNs, reader: HostReader) -> None:
    first = reader.counters(veth_ns.a)
    veth_ns.kt.call(_send_frames, veth_ns.a, 10, 100)
    second = reader.counters(veth_ns.a)
    assert first.link is not None and second.link is not None
    assert second.link.get("tx_packets") - first.link.get("tx_packets") == 10
    assert second.link.get("tx_bytes") - first.link.get("tx_bytes") == 1000
    sysfs = int(veth_ns.nsexec("cat", f"/sys/class/net/{veth_ns.a}/statistics/tx_bytes"))
    assert sysfs == second.link.get("tx_bytes")
    rates = compute_rates(first, second)
    assert rates.link["tx_packets"] == pytest.approx(10 / (second.time - first.time))
    # The counters came from the namespace's own /proc/net/dev (the cheap path), not from a
    # netlink fallback: the reader's kernel thread sees the veth listed there.
    seen = reader._kt.call(lambda: parse_net_dev(reader.root.read_net("dev"), veth_ns.a))
    assert seen is not None and seen.get("tx_bytes") >= second.link.get("tx_bytes")


def test_unknown_interface_lists_the_real_ones(veth_ns: VethNs, reader: HostReader) -> None:
    with pytest.raises(UnknownInterface) as err:
        reader.check_interface("nosuchdev")
    assert sorted(err.value.known) == sorted(["lo", veth_ns.a, veth_ns.b])


def tuitune_as_nobody(*args: str) -> subprocess.CompletedProcess[str]:
    """tuitune as the plain user nobody. The interpreter lives under /root here, so the process
    keeps only the capability to traverse directories; it gets no other privilege."""
    cmd = [
        "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
        "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search",
        sys.executable, "-m", "tuitune", *args,
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_cli_show_json_in_namespace(veth_ns: VethNs) -> None:
    veth_ns.ip("link", "set", veth_ns.a, "mtu", "9000")
    out = tuitune("show", "--netns", veth_ns.ns, veth_ns.a, "--json", "--interval", "0.2")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert (doc["schema"], doc["version"]) == ("tuitune.report.show", 1)
    assert doc["host"]["netns"] == veth_ns.ns
    iface = doc["interface"]
    assert iface["link"]["ifname"] == veth_ns.a and iface["link"]["mtu"] == 9000
    assert iface["rings"] == {
        "unavailable": "unsupported",
        "reason": "rings: not supported by veth",
    }
    assert doc["rates"]["interval"] > 0.15
    assert len(doc["rates"]["cpus"]) == int(run("nproc"))  # every online CPU has a row
    # Every counter of interface.link.counters has its rate (issue 22 #24: collisions and
    # rx_missed_errors were missing: /proc/net/dev has no column for the one, and the other
    # was not read from it).
    link = doc["rates"]["link"]
    assert {"collisions", "rx_missed_errors"} <= set(link)
    assert set(iface["link"]["counters"]) <= set(link)


def test_cli_show_tables_in_namespace(veth_ns: VethNs) -> None:
    out = tuitune("show", "--netns", veth_ns.ns, veth_ns.a, "--interval", "0.1")
    assert out.returncode == 0, out.stderr
    for expected in (veth_ns.a, "CPUs", "offloads", "rings: not supported by veth", "sysctls"):
        assert expected in out.stdout


def test_cli_unknown_interface_exits_2(veth_ns: VethNs) -> None:
    out = tuitune("show", "--netns", veth_ns.ns, "nosuchdev")
    assert out.returncode == 2
    assert "nosuchdev" in out.stderr and veth_ns.a in out.stderr
    assert "Traceback" not in out.stderr


def test_cli_unknown_namespace_exits_2() -> None:
    out = tuitune("show", "--netns", "tt-no-such-ns-here", "lo")
    assert out.returncode == 2
    assert "no network namespace" in out.stderr and "Traceback" not in out.stderr


def test_cli_without_root_marks_and_does_not_crash(veth_ns: VethNs) -> None:
    out = tuitune_as_nobody("show", "lo", "--json", "--interval", "0.1")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["host"]["is_root"] is False
    assert doc["interface"]["link"]["ifname"] == "lo"


def test_cli_default_interface_is_the_namespace_default_route(veth_ns: VethNs) -> None:
    """With --netns and no interface, the default route inside the namespace decides."""
    veth_ns.ip("addr", "add", "198.18.0.1/24", "dev", veth_ns.a)
    veth_ns.ip("route", "add", "default", "via", "198.18.0.2", "dev", veth_ns.a)
    out = tuitune("show", "--netns", veth_ns.ns, "--json", "--interval", "0.1")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["interface"]["link"]["ifname"] == veth_ns.a


def test_cli_netns_as_plain_user_says_root_is_needed(veth_ns: VethNs) -> None:
    out = tuitune_as_nobody("show", "--netns", veth_ns.ns, veth_ns.a)
    assert out.returncode == 2
    assert "needs root" in out.stderr and "Traceback" not in out.stderr
