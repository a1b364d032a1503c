"""A capture (`tuitune capture`'s tar.gz) of a recorded host tree: for hosts this machine is
not (the 1152-CPU host of fixture_big), made by the capture's own writer (core/capture/build)
from the tree's files, the reader's ethtool state and a recording of its replayed samples.

    python -m tests.support.capture_tree DIR    writes DIR/host_1152cpu.tar.gz, for
                                            `tuitune --root DIR/host_1152cpu.tar.gz eth0`
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tests.support.recorded import sampled
from tuitune.core.capture.build import RECORDING, Tree, write
from tuitune.core.capture.device import DIR, capture_json
from tuitune.core.capture.take import device_of
from tuitune.core.host.platform import read_driver
from tuitune.core.record.recorder import Recorder
from tuitune.core.session.kinds.table import PLATFORM_READS
from tuitune.core.watch.hostreader import HostReader

TOPS = ("proc", "sys", "etc")


def _files(tree: Path) -> Tree:
    """Every file, directory and (relative) link under the tree's proc/, sys/ and etc/."""
    got = Tree()
    for top in TOPS:
        if not (tree / top).is_dir():
            continue
        for here, dirs, names in os.walk(tree / top):
            rel = Path(here).relative_to(tree).as_posix()
            got.files[rel] = None
            for n in [*dirs, *names]:
                p = Path(here) / n
                if p.is_symlink():
                    got.files[f"{rel}/{n}"] = os.readlink(p)
                elif p.is_file():
                    got.files[f"{rel}/{n}"] = p.read_bytes()
            dirs[:] = [d for d in dirs if not (Path(here) / d).is_symlink()]
    return got


def _recording(reader: HostReader, ifname: str, samples: int) -> bytes:
    """`samples` ticks of the live screen's sampler on `reader`, as a recording's bytes."""
    with tempfile.TemporaryDirectory(prefix="tuitune-test-capture-") as work:
        path = Path(work) / RECORDING
        rec = Recorder(
            path, iface=ifname, netns=None, interval=1.0, host=reader.host_state(), started=0.0
        )
        try:
            sampled(reader, ifname, samples, each=rec.sample, timeout=60.0)
        finally:
            rec.close()
        return path.read_bytes()


def capture_of(tree: Path, reader: HostReader, ifname: str, out: Path, samples: int = 3) -> Path:
    """`out`, a capture of `tree` as `reader` (a ReplayReader on it) reads it."""
    files = _files(tree)
    snap = reader.snapshot(ifname)
    assert snap.nic is not None, f"{ifname}: not in {tree}"
    driver = read_driver(reader.root, ifname, reader.call, PLATFORM_READS)
    files.extra[f"{DIR}/{ifname}.json"] = capture_json(
        device_of(snap.nic, driver, reader.qdiscs(ifname))
    )
    if samples:
        files.extra[RECORDING] = _recording(reader, ifname, samples)
    about = {
        "tuitune": "test",
        "captured": 0.0,
        "iface": ifname,
        "netns": None,
        "kernel": snap.host.kernel,
        "cpus": len(snap.host.topology.online),
        "anonymised": False,
        "replaced": [],
        "recording_seconds": samples,
    }
    write(out, files, about)
    return out


def capture_1152cpu(tmp: Path, samples: int = 3) -> tuple[Path, str]:
    """The 1152-CPU host (fixture_big) as a capture with `samples` recorded ticks."""
    from tests.support.fixture_big import host_1152cpu

    reader, ifname = host_1152cpu(tmp, samples=samples + 1)  # snapshot() takes one
    with reader:
        tree = reader.root.sys.parent
        out = tmp / "host_1152cpu.tar.gz"  # beside the tree (the tree builder makes tmp)
        return capture_of(tree, reader, ifname, out, samples), ifname


if __name__ == "__main__":
    print(capture_1152cpu(Path(sys.argv[1]))[0])
