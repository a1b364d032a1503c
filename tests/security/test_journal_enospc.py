"""Hole 7: a full journal filesystem left a profile half-applied.

ENOSPC on a journal append gave a traceback with 17 of 29 settings applied and none rolled
back, and `restore` failed the same way. Now a failed append leaves nothing of itself, the
writes already made are put back, the user gets one line, and restore works from a full disk
(it only needs to read). The journal lives on a small tmpfs the test mounts under tmp_path;
the writes go to a veth in a namespace of the test's own."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.conftest import VethNs, veth_ns  # noqa: F401 (fixture)
from tests.support.command import tuitune

pytestmark = pytest.mark.kernel
SYSCTLS = {
    "net.ipv4.tcp_timestamps": "0",
    "net.ipv4.tcp_sack": "0",
    "net.ipv4.tcp_window_scaling": "0",
    "net.core.somaxconn": "1000",
    "net.ipv4.tcp_no_metrics_save": "1",
    "net.ipv4.tcp_mtu_probing": "1",
    "net.ipv4.tcp_slow_start_after_idle": "0",
}
PAGE = os.sysconf("SC_PAGE_SIZE")


def profile(path: Path) -> Path:
    lines = ["[sysctl]", *(f'"{k}" = {v}' for k, v in SYSCTLS.items())]
    lines += ["[interface]", "mtu = 9000", "txqueuelen = 2000"]
    lines += ["[interface.features]", "tso = false", "gso = false", "sg = false"]
    lines += ["[interface.rps_cpus]", '"*" = "0"', "[interface.xps_cpus]", '"*" = "0"']
    path.write_text("\n".join(lines) + "\n")
    return path


def dump(v: VethNs) -> dict[str, str]:
    """What the kernel holds for everything the profile touches (and the rest of the link)."""
    out = {"link": v.ip("-d", "link", "show", "dev", v.a)}
    out["features"] = v.nsexec("ethtool", "-k", v.a)
    for key in SYSCTLS:
        out[key] = v.nsexec("sysctl", "-n", key).strip()
    queues = Path(f"/sys/class/net/{v.a}/queues")  # read inside the namespace
    for q in ("rx-0/rps_cpus", "tx-0/xps_cpus"):
        out[q] = v.nsexec("cat", f"{queues}/{q}").strip()
    return out


@pytest.fixture
def tiny_fs(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs of the test's own, unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounts a tmpfs")
    fs = tmp_path / "fs"
    fs.mkdir()
    options = "size=1m,mode=0700"
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(fs)], check=True)
    try:
        yield fs
    finally:
        subprocess.run(["umount", "-l", str(fs)], check=False)


def fill(fs: Path, leave: int) -> None:
    """Leave only `leave` bytes free on `fs`."""
    st = os.statvfs(fs)
    free = st.f_bavail * st.f_frsize
    with open(fs / f"filler-{len(list(fs.iterdir()))}", "wb") as f:
        f.write(b"\0" * (free - leave))
    assert os.statvfs(fs).f_bavail * PAGE <= leave


def journal_size(v: VethNs, tmp_path: Path, prof: Path) -> int:
    """How much journal one apply of the profile writes (measured on a roomy directory)."""
    roomy = tmp_path / "roomy"
    done = tuitune("apply", str(prof), v.a, "--netns", v.ns, "--journal-dir", str(roomy))
    assert done.returncode == 0, done.stdout + done.stderr
    size = sum(p.stat().st_size for p in roomy.glob("*.journal"))
    done = tuitune("restore", "--netns", v.ns, "--journal-dir", str(roomy))
    assert done.returncode == 0, done.stdout + done.stderr
    return size


@pytest.mark.parametrize("room", ["none", "one page"])
def test_a_full_journal_fs_changes_nothing(
    veth_ns: VethNs,  # noqa: F811
    tiny_fs: Path,
    tmp_path: Path,
    room: str,
) -> None:
    prof = profile(tmp_path / "p.toml")
    before = dump(veth_ns)
    size = journal_size(veth_ns, tmp_path, prof)
    assert dump(veth_ns) == before
    assert size > PAGE  # so that one page runs out after some writes were made
    jdir = tiny_fs / "journal"
    fill(tiny_fs, 0 if room == "none" else PAGE)

    done = tuitune("apply", str(prof), veth_ns.a, "--netns", veth_ns.ns, "--journal-dir", str(jdir))

    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "No space left on device" in done.stderr and "nothing was changed" in done.stderr
    assert dump(veth_ns) == before
    if room == "none":  # not even an empty journal is left in a restore's way
        assert list(jdir.glob("*.journal")) == []
    if room == "one page":
        assert "written and put back" in done.stderr
        # Whatever the journal holds is whole records, and restoring them changes nothing.
        again = tuitune("restore", "--netns", veth_ns.ns, "--journal-dir", str(jdir))
        assert again.returncode == 0, again.stdout + again.stderr
        assert "unreadable" not in again.stdout
        assert dump(veth_ns) == before


def test_restore_works_from_a_full_disk(
    veth_ns: VethNs,  # noqa: F811
    tiny_fs: Path,
    tmp_path: Path,
) -> None:
    prof = profile(tmp_path / "p.toml")
    before = dump(veth_ns)
    jdir = tiny_fs / "journal"
    done = tuitune("apply", str(prof), veth_ns.a, "--netns", veth_ns.ns, "--journal-dir", str(jdir))
    assert done.returncode == 0, done.stdout + done.stderr
    assert dump(veth_ns) != before
    fill(tiny_fs, 0)

    done = tuitune("restore", "--netns", veth_ns.ns, "--journal-dir", str(jdir))

    assert done.returncode == 0, done.stdout + done.stderr
    assert "No space left on device; restored without recording it" in done.stdout
    assert f"restored netns-{veth_ns.ns}: every recorded original is back" in done.stdout
    assert dump(veth_ns) == before
    assert list(jdir.iterdir()) == []
