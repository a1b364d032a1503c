"""`advise --root CAPTURE`: a capture's few seconds of recording give the advisor a window
(its traffic rules judge something), where a plain tree has one moment (a 0 s window)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

from tests.support.command import ran
from tests.support.hosttree import build_tree, hyperv_2cpu
from tests.support.recorded import record


def _advise(*argv: str) -> dict[str, object]:
    doc: dict[str, object] = json.loads(ran("advise", "--json", *argv)[1])
    return doc


def test_advise_root_capture_judges_its_recording(tmp_path: Path) -> None:
    spec = hyperv_2cpu()
    tree = build_tree(tmp_path / "tree", spec)
    rec = tmp_path / "recording.rec"
    record(tmp_path, rec, samples=4)
    cap = tmp_path / "cap.tar.gz"
    with tarfile.open(cap, "w:gz") as tar:
        for top in ("proc", "sys"):
            tar.add(tree / top, arcname=top)
        tar.add(rec, arcname="recording.rec")
    plain = _advise("--root", str(tree), "eth0")
    captured = _advise("--root", str(cap), "eth0")
    one, window = plain["window"], captured["window"]
    assert isinstance(one, dict) and isinstance(window, dict)
    assert window["seconds"] >= 1.0 > one["seconds"]  # the recorded samples' span


def _show(*argv: str) -> tuple[str, str]:
    _code, out, errs = ran("show", *argv)
    return out, errs


def _capture(tmp_path: Path, samples: int = 4) -> tuple[Path, Path]:
    tree = build_tree(tmp_path / "tree", hyperv_2cpu())
    rec = tmp_path / "recording.rec"
    record(tmp_path, rec, samples=samples)
    cap = tmp_path / "cap.tar.gz"
    with tarfile.open(cap, "w:gz") as tar:
        for top in ("proc", "sys"):
            tar.add(tree / top, arcname=top)
        tar.add(rec, arcname="recording.rec")
    return tree, cap


def test_show_root_capture_has_the_recordings_rates(tmp_path: Path) -> None:
    """A plain tree is one moment (no rates); a capture's recording gives them, over its
    first sample to its last, and the table names that span."""
    tree, cap = _capture(tmp_path)
    plain = json.loads(_show("--json", "--root", str(tree), "eth0")[0])
    captured = json.loads(_show("--json", "--root", str(cap), "eth0")[0])
    assert plain["rates"] is None
    rates = captured["rates"]
    assert rates["interval"] >= 1.0  # three intervals of the replayed host
    assert rates["cpus"] and any(c["intr"] > 0 for c in rates["cpus"].values())
    table, _ = _show("--root", str(cap), "eth0")
    assert f"rates: over the capture's recording, {rates['interval']:.1f} s" in table


def test_the_unpacked_directory_reads_as_the_capture(tmp_path: Path) -> None:
    """--root DIR of a capture unpacked by hand: the same rates and the same window."""
    _tree, cap = _capture(tmp_path)
    out = tmp_path / "unpacked"
    out.mkdir()
    # As a user would by hand (`tar -x`); Debian's Python 3.11.2 has no extraction filters
    # (3.11.4 added them), and this archive is the test's own.
    subprocess.run(["tar", "-x", "-f", str(cap), "-C", str(out)], check=True)
    packed = json.loads(_show("--json", "--root", str(cap), "eth0")[0])
    loose = json.loads(_show("--json", "--root", str(out), "eth0")[0])
    assert loose["rates"] == packed["rates"] and loose["rates"] is not None
    assert (
        _advise("--root", str(out), "eth0")["window"]
        == _advise("--root", str(cap), "eth0")["window"]
    )


def test_export_root_capture(tmp_path: Path) -> None:
    """`export --root CAPTURE --profile NAME`: the profile as it resolves on the captured
    host, its files named by the captured host's paths (not the unpack directory); --out
    writes them; --install is refused in one line (a capture is a copy, unpacked for one
    command)."""
    _tree, cap = _capture(tmp_path)
    argv = ["export", "--root", str(cap), "--profile", "lan-10g", "eth0"]
    code, out, _errs = ran(*argv)
    assert code == 0
    heads = [ln for ln in out.splitlines() if ln.startswith("### ")]
    assert heads and all(h.startswith("### /etc/") for h in heads), heads
    assert "mtu" in out or "net." in out
    dest = tmp_path / "out"
    assert ran(*argv, "--out", dest)[0] == 0
    assert len(list(dest.rglob("*"))) >= len(heads)
    code, _out, errs = ran(*argv, "--install")
    assert code == 2 and "use --out DIR" in errs


def test_show_root_capture_has_its_per_queue_rates(tmp_path: Path) -> None:
    """The per-queue counters a capture read at its recording's start and end give `show
    --root` per-queue rates (a plain tree has none)."""
    from tuitune.core.capture.device import DeviceCapture, LinkExtra, QueueCounters, capture_json
    from tuitune.core.values import Unavailable

    tree, cap = _capture(tmp_path)
    none = Unavailable("unsupported", "not captured")
    before = (("rx_queue_0_packets", 1000), ("rx_queue_0_bytes", 1_000_000))
    after = (("rx_queue_0_packets", 3000), ("rx_queue_0_bytes", 3_000_000))
    link = LinkExtra(None, None, None, None)
    dev = DeviceCapture(none, none, none, none, none, none, none, link, none, none)
    dev = dataclasses.replace(dev, queues=QueueCounters(before, after, 2.0, "ethtool -S"))
    (tmp_path / "ethtool").mkdir()
    (tmp_path / "ethtool/eth0.json").write_bytes(capture_json(dev))
    with_queues = tmp_path / "queues.tar.gz"
    with tarfile.open(cap) as src, tarfile.open(with_queues, "w:gz") as out:
        for m in src:
            out.addfile(m, src.extractfile(m) if m.isreg() else None)
        out.add(tmp_path / "ethtool", arcname="ethtool")
    plain = json.loads(_show("--json", "--root", str(tree), "eth0")[0])
    doc = json.loads(_show("--json", "--root", str(with_queues), "eth0")[0])
    assert plain["queue_rates"] is None
    assert doc["queue_rates"] is not None, doc["queue_rates"]
    got = doc["queue_rates"]
    assert got["seconds"] == 2.0 and got["source"] == "ethtool -S"
    assert got["queues"][0]["rx"] == {"packets": 1000.0, "bytes": 1_000_000.0}


def test_show_root_capture_has_its_connections(tmp_path: Path) -> None:
    """A capture's TCP connections are what `show --root` prints and what the live screen's
    `C` reads (HostReader.connections); a plain tree says they are not recorded."""
    from tuitune.core.capture.device import DeviceCapture, LinkExtra, capture_json
    from tuitune.core.host.conns import Connection
    from tuitune.core.host.root import HostRoot
    from tuitune.core.values import Unavailable
    from tuitune.core.watch.hostreader import HostReader

    tree, cap = _capture(tmp_path, samples=2)
    none = Unavailable("unsupported", "not captured")
    conn = Connection("198.18.2.15", 5201, "198.18.113.77", 40000, "bbr", 10, 0.25, 3,
                      None, None, 1448, True, True, None)  # fmt: skip
    link = LinkExtra(None, None, None, None)
    dev = DeviceCapture(none, none, none, none, none, none, none, link, none, none)
    (tmp_path / "ethtool").mkdir()
    for name in ("eth0", "eth4"):  # the tree's interface, and the one its recording holds
        (tmp_path / f"ethtool/{name}.json").write_bytes(
            capture_json(dataclasses.replace(dev, connections=(conn,)))
        )
    with_conns = tmp_path / "conns.tar.gz"
    with tarfile.open(cap) as src, tarfile.open(with_conns, "w:gz") as out:
        for m in src:
            out.addfile(m, src.extractfile(m) if m.isreg() else None)
        out.add(tmp_path / "ethtool", arcname="ethtool")
    doc = json.loads(_show("--json", "--root", str(with_conns), "eth0")[0])
    assert [(c["remote"], c["cc"], c["wscale"]) for c in doc["connections"]] == [
        ("198.18.113.77", "bbr", None)
    ]
    text = _show("--root", str(with_conns), "eth0")[0]
    assert "TCP connections on eth0" in text and "bbr" in text and "1448" in text
    assert json.loads(_show("--json", "--root", str(tree), "eth0")[0])["connections"] is None
    # The advisor judges them (over the capture's recording): the one without window
    # scaling is named.
    found = json.dumps(_advise("--root", str(with_conns), "eth0"))
    assert "connection-no-wscale" in found and "198.18.113.77:40000" in found
    unpacked = tmp_path / "unpacked"  # the tree a capture unpacks to: C's read
    shutil.copytree(tree, unpacked, symlinks=True)
    shutil.copytree(tmp_path / "ethtool", unpacked / "ethtool")
    with HostReader(HostRoot.fixture(unpacked)) as reader:
        assert reader.connections("eth0") == (conn,)
    with HostReader(HostRoot.fixture(tree)) as reader:
        got = reader.connections("eth0")
        assert isinstance(got, Unavailable) and got.reason == "not recorded in this host tree"


def test_apply_on_a_capture_is_refused_line_by_line(tmp_path: Path) -> None:
    """`apply FILE --root CAPTURE`: the device settings a capture cannot change are one line
    each, with nothing changed and no traceback (issue 37: a capture's devices refuse)."""
    _tree, cap = _capture(tmp_path)
    prof = tmp_path / "p.toml"
    prof.write_text("[tuitune]\nprofile = 1\n\n[interface.rings]\nrx = 512\n")
    argv = ["apply", str(prof), "eth0", "--root", str(cap)]
    code, _out, errs = ran(*argv, "--journal-dir", tmp_path / "journal")
    lines = errs.splitlines()
    assert code == 1 and "Traceback" not in errs
    assert lines == [
        "tuitune: eth0 rings rx: not recorded in this host tree",
        f"tuitune: nothing was changed: 1 problem(s) in {prof}",
    ]
