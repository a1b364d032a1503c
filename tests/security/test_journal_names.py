"""Hole 6: two namespaces shared one journal.

Namespace names that differed only outside [A-Za-z0-9_.-] (`a_q`, `a$q`, `a;q`, `a q`) mapped
to one journal file: the second `apply` set the first's originals aside without a word, both
restores said "nothing to restore", and both namespaces stayed changed."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tuitune.core.host.root import HostRoot
from tuitune.core.session import host_id

FOUR = ("a_q", "a$q", "a;q", "a q")


def test_the_four_names_have_four_journals() -> None:
    # With names that spell another's escape, or hold a byte the file name cannot.
    names = (*FOUR, "a%24q", "a%2524q", "é", "%C3%A9", "a/q", "a%2Fq", "a_2Fq")
    ids = [host_id(HostRoot(netns=name)) for name in names]
    assert len(set(ids)) == len(names)
    assert all("/" not in hid for hid in ids)
    # A name that was already safe keeps the file name it always had (old journals restore).
    assert host_id(HostRoot(netns="a_q")) == "netns-a_q"
    assert host_id(HostRoot(netns="tt-test.1")) == "netns-tt-test.1"


def test_a_long_name_still_fits_a_file_name() -> None:
    one, two = (host_id(HostRoot(netns=n)) for n in ("x" * 300, "x" * 299 + "y"))
    assert one != two
    assert all(len(f"{hid}.journal.unreadable-99") < 256 for hid in (one, two))


@pytest.fixture
def namespaces() -> Iterator[list[str]]:
    if os.geteuid() != 0:
        pytest.skip("creates network namespaces")
    tag = uuid.uuid4().hex[:6]
    names = [f"tt-{tag}_q", f"tt-{tag}$q"]
    made = []
    try:
        for name in names:
            subprocess.run(["ip", "netns", "add", name], check=True, capture_output=True)
            made.append(name)
        yield names
    finally:
        for name in made:
            subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)
            lock = Path("/run/tuitune") / f"{host_id(HostRoot(netns=name))}.lock"
            lock.unlink(missing_ok=True)


def txqueuelen(ns: str) -> str:
    done = subprocess.run(
        ["ip", "netns", "exec", ns, "cat", "/sys/class/net/lo/tx_queue_len"],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.mark.kernel
def test_two_namespaces_both_restore(tmp_path: Path, namespaces: list[str]) -> None:
    jdir = str(tmp_path / "journal")
    profile = tmp_path / "lo.toml"
    profile.write_text('[interface]\nname = "lo"\ntxqueuelen = 2000\n')
    before = {ns: txqueuelen(ns) for ns in namespaces}
    for ns in namespaces:
        done = tuitune("apply", str(profile), "--netns", ns, "--journal-dir", jdir)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "set aside" not in done.stdout + done.stderr
    assert all(txqueuelen(ns) == "2000" for ns in namespaces)

    for ns in namespaces:
        done = tuitune("restore", "--netns", ns, "--journal-dir", jdir)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "put back lo txqueuelen: 2000 -> 1000" in done.stdout
    assert {ns: txqueuelen(ns) for ns in namespaces} == before
    assert list(Path(jdir).glob("*.journal*")) == []
