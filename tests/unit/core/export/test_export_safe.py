"""Hostile values never reach a file: a newline, a quote, `$`, `%`, a backslash in anything a
user can type or a device can report (interface names, sysctl values, feature names, queue
names, ID_PATH) makes the whole export refuse with a message naming it, and nothing is written.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tuitune.core.export import (
    FORMATS,
    Change,
    DeviceMatch,
    ExportContext,
    ExportRefused,
    build_plan,
)
from tuitune.core.session import Key
from tuitune.core.session.kinds import safe

DEV = "eno49"
CTX = ExportContext(ifname=DEV, match=DeviceMatch("mac", "00:1b:21:00:00:01"), ncpus=4)
HOSTILE = ['x"y', "a\nb", "a$b", "a%b", "a\\b", "a'b", "a`b"]


def refused(changes: list[Change], ctx: ExportContext = CTX) -> list[str]:
    with pytest.raises(ExportRefused) as exc:
        build_plan(changes, ctx, FORMATS, read_installed=False)
    return exc.value.problems


@pytest.mark.parametrize("bad", HOSTILE)
def test_a_hostile_feature_name_is_refused(bad: str) -> None:
    [problem] = refused([Change(Key.feature(DEV, "rx-gro" + bad), "on", "off")])
    assert problem.startswith(f"{DEV} rx-gro")
    assert "can go into the files safely" in problem


@pytest.mark.parametrize("bad", HOSTILE)
def test_a_hostile_sysctl_value_is_refused(bad: str) -> None:
    problems = refused([Change(Key.sysctl("net.core.default_qdisc"), "fq", "fq" + bad)])
    assert problems and all("net.core.default_qdisc" in p for p in problems)


def test_a_newline_in_a_sysctl_value_cannot_add_a_line() -> None:
    value = "fq\nnet.ipv4.ip_forward = 1"
    [problem] = refused([Change(Key.sysctl("net.core.default_qdisc"), "fq", value)])
    assert "net.core.default_qdisc" in problem


def test_a_sysctl_outside_the_catalog_is_still_checked() -> None:
    problems = refused([Change(Key.sysctl("net.ipv4.conf.eth0.forwarding"), "0", "1 $(reboot)")])
    assert problems == [
        "net.ipv4.conf.eth0.forwarding: '1 $(reboot)' holds '$', '(', ')'; only letters, "
        "digits, '_ . : -' and single spaces can go into the files safely"
    ]


@pytest.mark.parametrize("name", ["eth$0", "et%h0", 'eth"0', "eth0\n", "eth;0", "."])
def test_a_hostile_interface_name_is_refused(name: str) -> None:
    ctx = replace(CTX, ifname=name, match=DeviceMatch("name", name))
    problems = refused([Change(Key.mtu(name), "1500", "9000")], ctx)
    assert problems and "interface name" in problems[0]


def test_every_problem_is_listed_at_once() -> None:
    problems = refused(
        [
            Change(Key.feature(DEV, "gro$x"), "on", "off"),
            Change(Key.mtu(DEV), "1500", "9000\n"),
            Change(Key.irq(101, "eno49-TxRx-0 ; rm", DEV), "0", "1"),
            Change(Key.rps_cpus(DEV, "rx-0"), "none", "0-1%"),
        ]
    )
    assert len(problems) == 4


def test_a_hostile_id_path_or_mac_is_refused() -> None:
    ctx = replace(CTX, match=DeviceMatch("path", 'pci-0000:3b:00.0", RUN+="/bin/sh'))
    [problem] = refused([Change(Key.mtu(DEV), "1500", "9000")], ctx)
    assert problem.startswith("ID_PATH:") and "double quote" in problem
    ctx = replace(CTX, match=DeviceMatch("mac", "00:1b:21:00:00:01\nRUN"))
    assert refused([Change(Key.mtu(DEV), "1500", "9000")], ctx)


def test_comments_stay_one_line() -> None:
    """Originals and host names only go into comments, where a newline would end it."""
    assert safe.comment("a\nRUN+=x") == "a?RUN+=x"
    plan = build_plan(
        [Change(Key.mtu(DEV), "1500\nATTR{mtu}=1", "9000")],
        replace(CTX, host="evil\nhost"),
        ("udev",),
        read_installed=False,
    )
    lines = plan.files[0].text.splitlines()
    assert [ln for ln in lines if "ATTR{mtu}" in ln and not ln.startswith("#")] == [
        'ATTR{mtu}="9000"'
    ]


def test_the_cli_writes_nothing_for_a_hostile_interface_name(tmp_path: Path) -> None:
    """The kernel accepts `$`, quotes and `%` in interface names; the export refuses them."""
    from tests.support.hosttree import TreeSpec, build_tree
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session.journal_file import host_id

    name = 'e"$x%'
    tree = build_tree(tmp_path / "host", TreeSpec(ncpus=2, interrupts="", ifname=name, mtu=9000))
    journal = tmp_path / "journal"
    journal.mkdir(mode=0o700)
    head = {"t": "head", "v": 1, "host": "x", "boot": None, "ns": None, "time": 0}
    orig = {"t": "orig", "k": Key.mtu(name).to_json(), "v": "1500"}
    path = journal / f"{host_id(HostRoot.fixture(tree))}.journal"
    path.write_text("".join(json.dumps(r) + "\n" for r in (head, orig)))
    out = tmp_path / "out"
    res = tuitune("export", name, "--root", tree, "--journal-dir", journal, "--out", out)
    assert res.returncode == 1, res.stderr
    assert "interface name: 'e\"$x%' holds a double quote, '$', '%'" in res.stderr
    assert "nothing was written" in res.stderr
    assert not out.exists()
