"""A shipped profile applied in a throwaway namespace, exported as a tuned profile that
`tuitune verify` finds true of the kernel, and put back by `tuitune restore` exactly."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.test_sweep_kernel import run
from tests.support.command import tuitune

pytestmark = pytest.mark.kernel


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
    done = tuitune("profile", "apply", "lan-40g", dev, *journal)
    assert done.returncode == 0, done.stderr
    # A veth has no adaptive coalescing: skipped with its line, the rest applied.
    assert "skipped" in done.stdout and "adaptive-rx" in done.stdout
    assert _state(ns, dev) == ("9000", "0", "on")
    out = tmp_path / "out"
    exported = tuitune("export", dev, "--format", "tuned", "--out", str(out), *journal)
    assert exported.returncode == 0, exported.stderr
    conf = out / "tuned.conf"
    text = conf.read_text()
    assert "[sysctl]\n" in text and "net.ipv4.tcp_timestamps=0" in text
    assert f"[net]\ndevices={dev}\n" in text and "mtu=9000" in text
    checked = tuitune("verify", str(conf), "--netns", ns)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    back = tuitune("restore", *journal)
    assert back.returncode == 0, back.stderr
    assert _state(ns, dev) == before
    # Now the file no longer holds: verify says so.
    assert tuitune("verify", str(conf), "--netns", ns).returncode == 1


def test_an_unknown_profile_or_interface_changes_nothing(veth: tuple[str, str]) -> None:
    ns, dev = veth
    before = _state(ns, dev)
    for args in (("nope", dev), ("lan-40g", "nosuch0")):
        bad = tuitune("profile", "apply", *args, "--netns", ns)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert _state(ns, dev) == before


def _channels(ns: str, dev: str) -> str:
    return run("ip", "netns", "exec", ns, "ethtool", "-l", dev).split("Current hardware")[1]


def test_recommend_measures_the_rtt_to_the_peer_and_diff_shows_the_scaled_queues(
    veth: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tuitune import cli  # in this process: four CLI starts would cost ~10 s loaded

    ns, dev = veth
    peer = dev[:-1] + "b"
    run("ip", "-n", ns, "addr", "add", "10.77.0.1/24", "dev", dev)
    run("ip", "-n", ns, "addr", "add", "10.77.0.2/24", "dev", peer)
    run("ip", "-n", ns, "link", "set", peer, "up")
    run("ip", "-n", ns, "link", "set", "lo", "up")  # both ends are local: the reply is on lo
    assert cli.main(["recommend", dev, "--netns", ns, "--peer", "10.77.0.2"]) == 0
    rec = capsys.readouterr().out
    # ping's average, said as measured, then used: a veth's round trip is a LAN's.
    assert rec.startswith("measured: RTT to 10.77.0.2: ")
    assert "5 of 5 replies; ping)" in rec
    assert "lan-10g: " in rec and "ms is a LAN" in rec
    # A veth has no speed of its own (its 10000 is nominal) and no rings: said, not guessed.
    assert "the link is of unknown speed" in rec
    assert "reports no rings (ethtool -g)" in rec
    # The queue count scaled to the CPUs (veth: rx/tx channels up to the possible CPUs),
    # shown before anything changes, then applied and put back.
    before = _channels(ns, dev)
    assert cli.main(["profile", "diff", "lan-10g", dev, "--netns", ns]) == 1  # no rings here
    diff = capsys.readouterr().out
    assert "because one queue per CPU" in diff, diff
    assert "channels rx: 1 -> " in diff and "scaled to this host]" in diff
    assert _channels(ns, dev) == before
    journal = ["--netns", ns, "--journal-dir", str(tmp_path / "j")]
    assert cli.main(["profile", "apply", "lan-10g", dev, *journal]) == 0
    assert "channels rx" in capsys.readouterr().out and _channels(ns, dev) != before
    assert cli.main(["restore", *journal]) == 0
    assert _channels(ns, dev) == before
