"""A shipped profile applied in a throwaway namespace, exported as a tuned profile that
`tuitune verify` finds true of the kernel, and put back by `tuitune restore` exactly."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.test_sweep_kernel import REPO, run

pytestmark = pytest.mark.kernel


def _tuitune(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tuitune", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


@pytest.fixture
def veth() -> Iterator[tuple[str, str]]:
    tag = uuid.uuid4().hex[:6]
    ns, dev = f"tt-prof-{tag}", f"tp{tag}a"
    try:
        run("ip", "netns", "add", ns)
        run("ip", "-n", ns, "link", "add", dev, "type", "veth", "peer", "name", f"tp{tag}b")
        run("ip", "-n", ns, "link", "set", dev, "up")
        yield ns, dev
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def _state(ns: str, dev: str) -> tuple[str, str, str]:
    mtu = run("ip", "-n", ns, "-o", "link", "show", dev).split("mtu ")[1].split()[0]
    ts = run("ip", "netns", "exec", ns, "sysctl", "-n", "net.ipv4.tcp_timestamps").strip()
    k = run("ip", "netns", "exec", ns, "ethtool", "-k", dev)
    gro = next(ln for ln in k.splitlines() if ln.startswith("generic-receive-offload"))
    return mtu, ts, gro.split(":")[1].split()[0]


def test_lan_40g_applied_exported_for_tuned_verified_and_put_back(
    veth: tuple[str, str], tmp_path: Path
) -> None:
    ns, dev = veth
    run("ip", "netns", "exec", ns, "ethtool", "-K", dev, "gro", "off")
    before = _state(ns, dev)
    journal = ("--netns", ns, "--journal-dir", str(tmp_path / "j"))
    done = _tuitune("profile", "apply", "lan-40g", dev, *journal)
    assert done.returncode == 0, done.stderr
    # A veth has no adaptive coalescing: skipped with its line, the rest applied.
    assert "skipped" in done.stdout and "adaptive-rx" in done.stdout
    assert _state(ns, dev) == ("9000", "0", "on")
    out = tmp_path / "out"
    exported = _tuitune("export", dev, "--format", "tuned", "--out", str(out), *journal)
    assert exported.returncode == 0, exported.stderr
    conf = out / "tuned.conf"
    text = conf.read_text()
    assert "[sysctl]\n" in text and "net.ipv4.tcp_timestamps=0" in text
    assert f"[net]\ndevices={dev}\n" in text and "mtu=9000" in text
    checked = _tuitune("verify", str(conf), "--netns", ns)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    back = _tuitune("restore", *journal)
    assert back.returncode == 0, back.stderr
    assert _state(ns, dev) == before
    # Now the file no longer holds: verify says so.
    assert _tuitune("verify", str(conf), "--netns", ns).returncode == 1


def test_an_unknown_profile_or_interface_changes_nothing(veth: tuple[str, str]) -> None:
    ns, dev = veth
    before = _state(ns, dev)
    for args in (("nope", dev), ("lan-40g", "nosuch0")):
        bad = _tuitune("profile", "apply", *args, "--netns", ns)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert _state(ns, dev) == before
