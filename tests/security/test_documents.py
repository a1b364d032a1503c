"""Profiles and `show --json` documents another user wrote, fed to `tuitune apply` as root.

Each malformed input is refused with ONE line that names the file and what is wrong, a
non-zero exit, and zero writes: on a recorded host tree (every file of the tree compared
before and after) and, for the real write path, on a veth in a throwaway namespace (`ip -d
link show`, `ethtool -k`, `ethtool -l` and the queues' RPS/XPS compared before and after).
On the code before this test, 15 of the 19 spoilt show documents were accepted (exit 0,
"nothing to change": their malformed fields were skipped as if absent), three were
tracebacks and one was refused without naming the file.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.kernel.conftest import VethNs, veth_ns
from tests.support.session_fakes import build_host
from tuitune.cli import main

__all__ = ["veth_ns"]  # the kernel tests' fixture, used below

DEV = "eno49"
PROFILE = '[sysctl]\n"net.core.somaxconn" = 4096\n\n[interface]\nmtu = 1500\n'

Doc = dict[str, Any]


def run(*argv: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def snapshot(tree: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(tree)): p.read_bytes()
        for p in sorted(tree.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def assert_refused(code: int, out: str, err: str, path: Path, fragment: str) -> None:
    assert code != 0, out + err
    assert out == ""
    assert err.count("\n") == 1, err  # one line
    assert err.startswith(f"tuitune: {path}: ") or err.startswith(f"tuitune: cannot read {path}")
    assert fragment in err, err


# ---- the inputs --------------------------------------------------------------------------------

# name -> (file content, what the one line must say)
FILES: dict[str, tuple[bytes, str]] = {
    "non-utf8": (PROFILE.encode() + b"# caf\xe9\n", "not UTF-8 text (byte 0xe9 at offset"),
    "utf16": (PROFILE.encode("utf-16"), "UTF-16 text; save it as UTF-8"),
    "utf16-no-bom": (PROFILE.encode("utf-16-le"), "a NUL byte at offset 1"),
    "deep-toml": (b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
    "deep-toml-table": (
        b"[interface.rings]\nrx" + b".a" * 5000 + b" = 1\n",
        "[interface.rings] rx: {'a': {'a': {'a': {...}}}} is not a number",
    ),
    "deep-json": (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "not valid JSON: nested too deeply"),
    "huge": (b"#" * (5 << 20), "larger than 4 MiB"),
    "long-int": (b"[interface]\nmtu = " + b"9" * 5000 + b"\n", "not a TOML profile: Exceeds"),
    "sysctl-table": (b'[sysctl]\n"net.core.somaxconn" = {key = 5}\n', "is not a number, a switch"),
    "queue-name": (b'[interface.rps_cpus]\n"rx-0\\nx" = "0"\n', "is not a queue name"),
    "queue-side": (b'[interface.xps_cpus]\n"rx-0" = "0"\n', "xps_cpus is set on tx-N queues"),
    "newline-value": (b'[interface]\nmtu = "1500\\n1"\n', "is not one line of text"),
    "ring-field": (b"[interface.rings]\nrxx = 1\n", "[interface.rings] rxx: unknown (known: rx,"),
    "ifname": (b'[interface]\nname = "../../etc"\n', "holds '/' or ':', which no device name can"),
    "version-true": (b"[tuitune]\nprofile = true\n", "profile version true"),
    "coalesce-name": (b'[interface.coalesce]\n"rx-usecs\\u001b[2J" = 1\n', "not a coalescing"),
}


def _set(doc: Doc, path: tuple[str | int, ...], value: object) -> Doc:
    out = copy.deepcopy(doc)
    node: Any = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return out


def _first_rx(doc: Doc) -> int:
    return next(i for i, q in enumerate(doc["interface"]["queues"]) if q["name"] == "rx-0")


# name -> (how to spoil a real show document, what the one line must say)
SHOW_MUTATIONS: dict[str, tuple[Callable[[Doc], Doc], str]] = {
    "features-text": (
        lambda d: _set(d, ("interface", "features"), "abc"),
        "interface.features: expected an array, found the text 'abc'",
    ),
    "mtu-1.5": (
        lambda d: _set(d, ("interface", "link", "mtu"), 1.5),
        "interface.link.mtu: 1.5 is not a whole number",
    ),
    "mtu-nan": (
        lambda d: _set(d, ("interface", "link", "mtu"), float("nan")),
        "not valid JSON: NaN is not a number JSON allows",
    ),
    "mtu-infinity": (
        lambda d: _set(d, ("interface", "link", "mtu"), float("inf")),
        "not valid JSON: Infinity is not a number JSON allows",
    ),
    "mtu-true": (
        lambda d: _set(d, ("interface", "link", "mtu"), True),
        "interface.link.mtu: true is not a whole number",
    ),
    "ifname-5": (
        lambda d: _set(d, ("interface", "link", "ifname"), 5),
        "interface.link.ifname: interface name 5 is not text",
    ),
    "txqlen-text": (
        lambda d: _set(d, ("interface", "link", "txqlen"), "1000"),
        "interface.link.txqlen: the text '1000' is not a whole number",
    ),
    "rings-array": (
        lambda d: _set(d, ("interface", "rings"), []),
        "interface.rings: expected an object, found an array",
    ),
    "pause-number": (
        lambda d: _set(d, ("interface", "pause"), 5),
        "interface.pause: expected an object, found 5",
    ),
    "queue-cpus-text": (
        lambda d: _set(d, ("interface", "queues", _first_rx(d), "cpus"), "0-3"),
        ".cpus: expected an array, found the text '0-3'",
    ),
    "flow-count-half": (
        lambda d: _set(d, ("interface", "queues", _first_rx(d), "rps_flow_cnt"), 0.5),
        ".rps_flow_cnt: 0.5 is not a whole number",
    ),
    "sysctls-object": (
        lambda d: _set(d, ("sysctls",), {}),
        "sysctls: expected an array, found an object",
    ),
    "interface-text": (
        lambda d: _set(d, ("interface",), "eno49"),
        "interface: expected an object, found the text 'eno49'",
    ),
    "version-true": (
        lambda d: _set(d, ("version",), True),
        "show document version true: this tuitune reads 1",
    ),
    "unknown-sysctl": (
        lambda d: _set(d, ("sysctls", 0, "key"), "net.core.no_such_knob"),
        "sysctls[0].key: 'net.core.no_such_knob' is not in this tuitune's catalog",
    ),
    "unknown-field": (
        lambda d: _set(d, ("interface", "link", "mtu_typo"), 9000),
        "interface.link: unknown field 'mtu_typo'",
    ),
    # These three were tracebacks (AttributeError) rather than accepted.
    "sysctl-key-5": (
        lambda d: _set(d, ("sysctls", 0, "key"), 5),
        "sysctls[0].key: 5 is not a name",
    ),
    "queue-name-5": (
        lambda d: _set(d, ("interface", "queues", 0, "name"), 5),
        "interface.queues[0].name: 5 is not a name",
    ),
    "coalesce-params-list": (
        lambda d: _set(d, ("interface", "coalesce"), {"params": [], "source": "netlink"}),
        "interface.coalesce.params: expected an object, found an array",
    ),
}


# ---- on a recorded host tree --------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build_host(tmp_path / "host")


@pytest.fixture
def show_doc(tree: Path) -> Doc:
    code, out, err = run("show", DEV, "--root", tree, "--json")
    assert code == 0, err
    doc: Doc = json.loads(out)
    return doc


def test_the_real_document_changes_nothing(tree: Path, show_doc: Doc, tmp_path: Path) -> None:
    """The baseline of the mutations below: unspoilt, it is applied and changes nothing."""
    path = tmp_path / "state.json"
    path.write_text(json.dumps(show_doc))
    code, out, err = run("apply", path, DEV, "--root", tree, "--journal-dir", tmp_path / "j")
    assert (code, err) == (0, "") and out.startswith("nothing to change")


@pytest.mark.parametrize("name", sorted(SHOW_MUTATIONS))
def test_a_malformed_show_document_is_refused(
    name: str, tree: Path, show_doc: Doc, tmp_path: Path
) -> None:
    spoil, fragment = SHOW_MUTATIONS[name]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(spoil(show_doc)))
    before = snapshot(tree)
    code, out, err = run("apply", path, DEV, "--root", tree, "--journal-dir", tmp_path / "j")
    assert_refused(code, out, err, path, fragment)
    assert "malformed show document" in err or "not valid JSON" in err or "version" in err
    assert snapshot(tree) == before and not (tmp_path / "j").exists()


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_malformed_file_is_refused(name: str, tree: Path, tmp_path: Path) -> None:
    content, fragment = FILES[name]
    path = tmp_path / f"{name}.toml"
    path.write_bytes(content)
    before = snapshot(tree)
    code, out, err = run("apply", path, DEV, "--root", tree, "--journal-dir", tmp_path / "j")
    assert_refused(code, out, err, path, fragment)
    assert snapshot(tree) == before and not (tmp_path / "j").exists()


def special_files(where: Path) -> Iterator[tuple[Path, str]]:
    """Paths that are not files: reading /dev/zero or /dev/urandom never ends, opening a
    FIFO waits for a writer forever, a directory has no text."""
    where.mkdir()
    yield Path("/dev/zero"), "a character device, not a file to read"
    yield Path("/dev/urandom"), "a character device, not a file to read"
    fifo = where / "fifo.toml"
    os.mkfifo(fifo)
    yield fifo, "a FIFO, not a file to read"
    yield where, "a directory, not a file to read"
    link = where / "zero.toml"
    link.symlink_to("/dev/zero")
    yield link, "a character device, not a file to read"


def test_devices_fifos_and_directories_are_refused_unread(tree: Path, tmp_path: Path) -> None:
    before = snapshot(tree)
    for path, fragment in special_files(tmp_path / "special"):
        code, out, err = run("apply", path, DEV, "--root", tree, "--journal-dir", tmp_path / "j")
        assert_refused(code, out, err, path, fragment)
    assert snapshot(tree) == before and not (tmp_path / "j").exists()


# ---- the real write path: a veth in a throwaway namespace ---------------------------------------


def dump(ns: VethNs, dev: str) -> str:
    """What the kernel holds for the device: link attributes, features, channels, queues."""
    queues = ns.nsexec(
        "sh", "-c", f"cd /sys/class/net/{dev}/queues && grep -r . --include='*ps_*' . || true"
    )
    return "\n".join(
        [
            ns.ip("-d", "link", "show", dev),
            ns.nsexec("ethtool", "-k", dev),
            ns.nsexec("ethtool", "-l", dev),
            queues,
        ]
    )


def multiqueue_veth(ns: VethNs) -> str:
    dev, peer = ns.a[:-1] + "q", ns.a[:-1] + "r"
    q = ("numrxqueues", "8", "numtxqueues", "8")
    ns.ip("link", "add", dev, *q, "type", "veth", "peer", "name", peer, *q)
    ns.ip("link", "set", dev, "up")
    return dev


@pytest.mark.kernel
def test_malformed_documents_write_nothing_to_a_real_device(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    ns, dev = veth_ns, veth_ns.a
    code, out, err = run("show", dev, "--netns", ns.ns, "--json", "--interval", "0.1")
    assert code == 0, err
    doc = json.loads(out)
    path = tmp_path / "state.json"
    path.write_text(out)
    code, out, err = run("apply", path, dev, "--netns", ns.ns, "--dry-run")
    # In a namespace the document's host-wide parts are left out, and one line says so.
    assert code == 0 and out.startswith("nothing to change"), err
    assert err.count("\n") == 1 and "host-wide setting(s) left out" in err, err
    # A real veth document has features and channels: spoil those too.
    spoils = dict(SHOW_MUTATIONS)
    spoils["feature-requested-text"] = (
        lambda d: _set(d, ("interface", "features", 0, "requested"), "yes"),
        "interface.features[0].requested: the text 'yes' is not true or false",
    )
    spoils["channels-max-text"] = (
        lambda d: _set(d, ("interface", "channels", "rx_max"), "8"),
        "interface.channels.rx_max: the text '8' is not a whole number",
    )
    journal = tmp_path / "journal"
    before = dump(ns, dev)
    cases: list[tuple[Path, str]] = []
    for name, (spoil, fragment) in sorted(spoils.items()):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(spoil(doc)))
        cases.append((path, fragment))
    for name, (content, fragment) in sorted(FILES.items()):
        path = tmp_path / f"{name}.toml"
        path.write_bytes(content.replace(b"eno49", dev.encode()))
        cases.append((path, fragment))
    cases += list(special_files(tmp_path / "special"))
    for path, fragment in cases:
        code, out, err = run("apply", path, dev, "--netns", ns.ns, "--journal-dir", journal)
        assert_refused(code, out, err, path, fragment)
    assert dump(ns, dev) == before
    assert not journal.exists()


@pytest.mark.kernel
def test_lowering_channels_finds_a_vanishing_queue_before_the_first_write(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    """docs/profile.md promises every problem is found before the first write. A profile that
    lowers the channels and names a queue the change removes wrote the channels and 11 more
    settings, then failed on that queue and put them back."""
    ns = veth_ns
    dev = multiqueue_veth(ns)
    journal = tmp_path / "journal"
    profile = tmp_path / "fewer.toml"
    profile.write_text(
        '[interface.channels]\nrx = 2\ntx = 2\n[interface.rps_cpus]\n"*" = "0"\n"rx-5" = "0"\n'
        '[interface.xps_cpus]\n"*" = "0"\n'
    )
    before = dump(ns, dev)
    code, out, err = run("apply", profile, dev, "--netns", ns.ns, "--journal-dir", journal)
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"tuitune: [interface.rps_cpus] rx-5: {dev} will have 2 rx queue(s) once its channels "
        "are changed: rx-5 will not exist",
        f"tuitune: nothing was changed: 1 problem(s) in {profile}",
    ]
    assert dump(ns, dev) == before and not journal.exists()


@pytest.mark.kernel
def test_lowering_channels_with_star_sets_the_queues_that_remain(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    """ "*" means the queues the device has once the file is applied: after 8 -> 2 channels,
    rx-0 and rx-1 (it used to expand to rx-0..rx-7 and fail on rx-2 after the change)."""
    ns = veth_ns
    dev = multiqueue_veth(ns)
    profile = tmp_path / "fewer.toml"
    profile.write_text(
        '[interface.channels]\nrx = 2\ntx = 2\n[interface.rps_cpus]\n"*" = "0"\n'
        '[interface.xps_cpus]\n"*" = "0"\n'
    )
    journal = tmp_path / "journal"
    code, out, err = run("apply", profile, dev, "--netns", ns.ns, "--journal-dir", journal)
    assert (code, err) == (0, ""), out
    assert [line for line in out.splitlines() if not line.startswith(" ")] == [
        f"changed {dev} channels rx: 8 -> 2",
        f"changed {dev} channels tx: 8 -> 2",
        f"changed {dev} rx-0 rps_cpus: none -> 0",
        f"changed {dev} rx-1 rps_cpus: none -> 0",
        f"changed {dev} tx-0 xps_cpus: none -> 0",
        f"changed {dev} tx-1 xps_cpus: none -> 0",
        f"changed 6 setting(s); `tuitune restore --netns {ns.ns}` puts the originals back",
    ]
    assert ns.nsexec("ls", f"/sys/class/net/{dev}/queues").split() == [
        "rx-0",
        "rx-1",
        "tx-0",
        "tx-1",
    ]
    code, _, err = run("restore", "--netns", ns.ns, "--journal-dir", journal)
    assert (code, err) == (0, "")
    assert "RX:\t\t8" in ns.nsexec("ethtool", "-l", dev).split("Current")[1]
