"""Bash completion of interface names inside a namespace of the test's own: the names offered
are the namespace's (`ip netns exec` shows bash that namespace's /sys/class/net), and a name
made to inject into root's command line is not offered."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.kernel.conftest import VethNs
from tests.support.bash_complete import complete

pytestmark = pytest.mark.kernel


def test_bash_offers_the_namespaces_interfaces_and_not_a_hostile_name(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    script = tmp_path / "tuitune.bash"
    script.write_text(
        subprocess.run(
            [sys.executable, "-m", "tuitune", "completion", "bash"],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    )
    hostile = "tt$(id)"  # iproute2 refuses a space; the kernel takes the rest
    veth_ns.ip("link", "add", hostile, "type", "veth", "peer", "name", "tthostile")
    inside = ("ip", "netns", "exec", veth_ns.ns)
    prefix = veth_ns.a[:4]  # "tt" + the tag's first two: both ends share it

    assert complete(script, ["tuitune", "show", prefix], inside) == sorted([veth_ns.a, veth_ns.b])
    assert complete(script, ["tuitune", veth_ns.a[:-1]], inside) == sorted([veth_ns.a, veth_ns.b])
    offered = complete(script, ["tuitune", "export", "tt"], inside)
    assert "tthostile" in offered
    assert hostile not in offered and not any("$" in name for name in offered)
