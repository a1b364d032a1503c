"""`tuitune restore` given a journal it cannot fully use, or run by a plain user.

- One bad value (an MTU original of "abc") aborted the whole restore and left every later
  setting changed: it is reported on its own line and the rest is restored (exit 1).
- A record that cannot be read was dropped silently: it is counted and shown, and the journal
  is kept for a human to read.
- As a plain user, `restore` gave a traceback and `restore --list` said "no change journals"
  when they existed but could not be read: both now say they need root."""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import traceback
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

# Everything restore imports, loaded while still root: the interpreter lives under /root,
# which the plain user of `as_nobody` cannot read.
import tuitune.cli.session
import tuitune.core.host.netns
import tuitune.core.session.access
import tuitune.core.session.journal
from tests.support.session_fakes import build_host
from tuitune.cli import main

PROFILE = """\
[sysctl]
"net.core.netdev_max_backlog" = 250000
"net.ipv4.tcp_rmem" = [4096, 87380, 16777216]

[interface]
name = "eno49"
mtu = 9000
txqueuelen = 10000
"""
FILES = {
    "proc/sys/net/core/netdev_max_backlog": "1000",
    "proc/sys/net/ipv4/tcp_rmem": "4096 131072 6291456",
    "sys/class/net/eno49/mtu": "1500",
    "sys/class/net/eno49/tx_queue_len": "1000",
}
del tuitune  # only imported for the side effect above
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "journals"
IRQ = "proc/irq/102/smp_affinity_list"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def state(tree: Path, files: dict[str, str] = FILES) -> dict[str, str]:
    return {rel: " ".join((tree / rel).read_text().split()) for rel in files}


@pytest.fixture
def applied(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, list[str]]:
    """A tree with the profile applied: (tree, journal file, the arguments naming both)."""
    tree = build_host(tmp_path / "host")
    assert state(tree) == FILES
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    args = ["--root", str(tree), "--journal-dir", str(tmp_path / "journal")]
    code, out, err = run(capsys, "apply", str(profile), *args)
    assert (code, err) == (0, ""), out
    [journal] = (tmp_path / "journal").glob("*.journal")
    return tree, journal, args


def edit(journal: Path, edit_line: object) -> None:
    lines = journal.read_text().splitlines()
    journal.write_text("".join(f"{x}\n" for x in edit_line(lines)))  # type: ignore[operator]


def test_one_bad_original_is_reported_and_the_rest_restored(
    applied: tuple[Path, Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    tree, journal, args = applied

    def bad_mtu(lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            rec = json.loads(line)
            if rec["t"] == "orig" and rec["k"][0] == "mtu":
                rec["v"] = "abc"
            out.append(json.dumps(rec))
        return out

    edit(journal, bad_mtu)
    code, out, err = run(capsys, "restore", *args)

    assert code == 1 and err == ""
    assert (
        "NOT put back eno49 mtu: the journal's original 'abc' is not a value it can take; "
        "left as it is" in out.splitlines()
    )
    assert sum(line.startswith("NOT") for line in out.splitlines()) == 1
    assert state(tree) == {**FILES, "sys/class/net/eno49/mtu": "9000"}
    assert "1 setting(s) not restored; still recorded in" in out


def test_unreadable_records_are_counted_and_shown(
    applied: tuple[Path, Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    tree, journal, args = applied
    planted = [
        "{not json",
        json.dumps({"t": "orig", "k": ["mtu", "eno49", "mtu", None], "v": 5}),
        json.dumps({"t": "no-such-record"}),
    ]
    edit(journal, lambda lines: [lines[0], *planted, *lines[1:]])

    code, out, err = run(capsys, "restore", "--list", "--journal-dir", args[-1])
    assert code == 1
    assert sum("unreadable record" in line for line in out.splitlines()) == 3

    code, out, err = run(capsys, "restore", *args)
    assert code == 1 and err == ""
    shown = [line for line in out.splitlines() if "unreadable journal record" in line]
    assert len(shown) == 3
    assert "not a journal record: {not json" in shown[0]
    assert "the value is int, not text" in shown[1]
    assert "unknown record type 'no-such-record'" in shown[2]
    assert state(tree) == FILES  # everything readable was restored
    [kept] = journal.parent.glob("*.journal.unreadable")
    assert "{not json" in kept.read_text() and not journal.exists()
    assert f"3 unreadable record(s): the journal is kept as {kept}" in out


def as_nobody(*argv: str) -> tuple[int, str, str]:
    """main(argv) in a forked child that is uid/gid 65534 with no groups."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main(list(argv))
                except BaseException:
                    traceback.print_exc()
                    code = 99
            os.write(w, json.dumps([code, out.getvalue(), err.getvalue()]).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    code, out, err = json.loads(data)
    return code, out, err


@pytest.fixture
def roots_journals() -> Iterator[Path]:
    """A root-only journal directory with a journal in it, in a directory nobody can enter."""
    if os.geteuid() != 0:
        pytest.skip("needs root to become nobody")
    base = Path(tempfile.mkdtemp(prefix="tt-journal-"))
    try:
        base.chmod(0o755)
        jdir = base / "journal"
        jdir.mkdir(mode=0o700)
        head = {"t": "head", "v": 1, "host": "host", "root": {}, "time": 0.0}
        orig = {"t": "orig", "k": ["sysctl", None, "net.core.somaxconn", None], "v": "4096"}
        (jdir / "host.journal").write_text(json.dumps(head) + "\n" + json.dumps(orig) + "\n")
        (jdir / "host.journal").chmod(0o600)
        yield jdir
    finally:
        shutil.rmtree(base)


@pytest.mark.parametrize("listing", [True, False])
def test_a_plain_user_is_told_restore_needs_root(roots_journals: Path, listing: bool) -> None:
    flags = ["--list"] if listing else []
    code, out, err = as_nobody("restore", *flags, "--journal-dir", str(roots_journals))
    assert code == 1 and out == "", err
    assert len(err.splitlines()) == 1 and "needs root" in err, err
    assert (roots_journals / "host.journal").exists()


def test_a_journal_written_by_the_previous_version_still_restores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session import host_id

    tree = build_host(tmp_path / "host")
    rps = "sys/class/net/eno49/queues/rx-1/rps_cpus"
    originals = {**FILES, rps: (tree / rps).read_text().strip(), IRQ: "1"}
    assert state(tree, originals) == originals
    applied = {  # what the journal says tuitune left (tcp_rmem was forgotten: it stays)
        "proc/sys/net/core/netdev_max_backlog": "250000",
        "proc/sys/net/ipv4/tcp_rmem": "4096 87380 16777216",
        "sys/class/net/eno49/mtu": "9000",
        "sys/class/net/eno49/tx_queue_len": "10000",
        rps: "7",
        IRQ: "2",
    }
    for rel, value in applied.items():
        (tree / rel).write_text(value + "\n")
    jdir = tmp_path / "journal"
    jdir.mkdir(mode=0o700)
    journal = jdir / f"{host_id(HostRoot.fixture(tree))}.journal"
    journal.write_bytes((FIXTURES / "main-v1.journal").read_bytes())
    journal.chmod(0o600)

    code, out, err = run(capsys, "restore", "--root", str(tree), "--journal-dir", str(jdir))

    assert (code, err) == (0, ""), out
    assert "unreadable" not in out
    want = {**originals, "proc/sys/net/ipv4/tcp_rmem": "4096 87380 16777216"}
    assert state(tree, want) == want
    assert list(jdir.glob("*.journal*")) == []
