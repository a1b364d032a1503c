"""Headless commands against a real network namespace (issue 22, items 17-20): what they read
must be the namespace's, and what they record must not depend on which command recorded it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.kernel.conftest import VethNs
from tests.support.command import tuitune
from tuitune.core.bench.settings import capture
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Key
from tuitune.core.session.access import WriteRefused

pytestmark = pytest.mark.kernel


def test_verify_reads_keys_outside_the_catalog_inside_the_namespace(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    """A namespace's sysctl file may name keys the catalog does not know, per interface ones
    among them: they are compared with the namespace's values, not the host's (main read the
    host's: "live 60" for a value the namespace holds, "not on this kernel" for its veth)."""
    host_fin = Path("/proc/sys/net/ipv4/tcp_fin_timeout").read_text().strip()
    wanted = "33" if host_fin != "33" else "34"
    veth_ns.nsexec("sysctl", "-qw", f"net.ipv4.tcp_fin_timeout={wanted}")
    veth_ns.nsexec("sysctl", "-qw", f"net.ipv4.conf.{veth_ns.a}.forwarding=1")
    path = tmp_path / f"netns-{veth_ns.ns}.sysctl.conf"
    path.write_text(
        f"# tuitune-export: sysctl iface={veth_ns.a} netns={veth_ns.ns}\n"
        f"net.ipv4.tcp_fin_timeout = {wanted}\n"
        f"net/ipv4/conf/{veth_ns.a}/forwarding = 1\n"
    )
    out = tuitune("verify", str(path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "every setting matches: 2 in 1 file(s)" in out.stdout
    # And a difference there is the namespace's value, not the host's.
    veth_ns.nsexec("sysctl", "-qw", f"net.ipv4.conf.{veth_ns.a}.forwarding=0")
    out = tuitune("verify", "--netns", veth_ns.ns, str(path))
    assert out.returncode == 1
    assert f"net.ipv4.conf.{veth_ns.a}.forwarding: file says 1, live 0" in out.stdout
    assert "not on this kernel" not in out.stdout


def test_a_cli_run_records_the_same_sysctls_as_the_screen(veth_ns: VethNs) -> None:
    """`bench --netns` reads the settings through an access that may not write host-wide
    sysctls; the screen's may. Both records hold the same keys (main left the host-wide ones
    out of the CLI's, so a screen run beside a CLI baseline showed phantom changes)."""
    root = HostRoot(netns=veth_ns.ns)
    with HostAccess(root, call=veth_ns.kt.call) as cli:
        from_cli = capture(cli, veth_ns.a)
    with HostAccess(root, call=veth_ns.kt.call, host_writes=True) as screen:
        from_screen = capture(screen, veth_ns.a)
    assert set(from_cli) == set(from_screen)
    assert "net.core.netdev_max_backlog" in from_cli  # host-wide (catalog), read on the host
    # Reading them changed no rule: writing one still needs the agreement.
    with HostAccess(root, call=veth_ns.kt.call) as cli, pytest.raises(WriteRefused, match="wide"):
        cli.validate(Key.sysctl("net.core.netdev_max_backlog"), "5000")


def test_bench_checks_the_pinned_cpu_before_iperf3(veth_ns: VethNs, tmp_path: Path) -> None:
    """`-A N` with CPU N offline or absent: one line, exit 2, iperf3 never started (main let
    iperf3 fail after setting up the run)."""
    online = Path("/sys/devices/system/cpu/online").read_text().strip()
    absent = str(os.cpu_count() or 1) if "," not in online else "4095"
    out = tuitune(
        "bench", "--netns", veth_ns.ns, veth_ns.a, "--peer", "198.18.255.1", "-t", "1",
        "-A", absent, "--notebook", str(tmp_path / "nb.json"),
    )  # fmt: skip
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.strip().splitlines() == [
        f"tuitune: -A: client CPU {absent} is not online here (online: {online}); nothing was run"
    ]
    assert "iperf3" not in out.stdout and not (tmp_path / "nb.json").exists()


def _restricted_algorithm(ns: VethNs) -> str | None:
    """An algorithm loaded here but not in tcp_allowed_congestion_control, other than the
    namespace's current one (the host's lists are only read, never changed)."""
    available = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()
    allowed = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control").read_text().split()
    current = ns.nsexec("cat", "/proc/sys/net/ipv4/tcp_congestion_control").strip()
    return next((a for a in available if a not in allowed and a != current), None)


def test_a_restricted_congestion_control_says_what_the_kernel_said(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    """In a child namespace the kernel answers EPERM for an algorithm outside
    tcp_allowed_congestion_control, also to root: the message says that, not "changing it
    needs root" (main), and nothing stays changed."""
    algo = _restricted_algorithm(veth_ns)
    if algo is None:
        pytest.skip("every loaded congestion control is in tcp_allowed_congestion_control")
    before = veth_ns.nsexec("cat", "/proc/sys/net/ipv4/tcp_congestion_control").strip()
    allowed = " ".join(
        Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control").read_text().split()
    )
    profile = tmp_path / "cc.toml"
    profile.write_text(f'[sysctl]\n"net.ipv4.tcp_congestion_control" = "{algo}"\n')
    out = tuitune(
        "apply", "--netns", veth_ns.ns, "--journal-dir", str(tmp_path / "j"), str(profile)
    )
    assert out.returncode == 1, out.stdout + out.stderr
    said = out.stdout + out.stderr
    assert "needs root" not in said
    # Checked before any write (issue 31, item 7): the same list the screen's picker offers.
    assert (
        f"tcp_congestion_control: {algo!r} is loaded but namespace {veth_ns.ns} accepts only "
        f"tcp_allowed_congestion_control ({', '.join(allowed.split())})"
    ) in said
    assert "nothing was changed" in said
    assert veth_ns.nsexec("cat", "/proc/sys/net/ipv4/tcp_congestion_control").strip() == before
