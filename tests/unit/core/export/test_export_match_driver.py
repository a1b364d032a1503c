"""`--match driver`: rules, .link and the role that find the NIC by the driver it runs, for a
fleet whose hosts hold the card in different slots. On a recorded tree the driver is the one
bound in sysfs; a real udevd applying such rules is in tests/kernel/test_export_udev.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.session_fakes import build_host
from tests.unit.core.export.test_export_ansible_text import render
from tests.unit.core.export.test_export_verify import PROFILE
from tuitune.core.export.fleet import NoMatch, choose_match
from tuitune.core.host.root import HostRoot

DEV = "eno49"
ROLE = "roles/tuitune_nic/templates/etc"


def _bind(tree: Path, ifname: str, driver: str) -> None:
    """Give a recorded interface a device with a bound driver, as sysfs links it."""
    dev = tree / "sys/devices/pci0000:00" / f"dev-{ifname}"
    (dev / "driver").parent.mkdir(parents=True, exist_ok=True)
    os.symlink(f"../../../bus/pci/drivers/{driver}", dev / "driver")
    net = tree / "sys/class/net" / ifname
    net.mkdir(parents=True, exist_ok=True)
    os.symlink(dev, net / "device")


def _tuned(tmp_path: Path, driver: str | None) -> tuple[Path, Path]:
    tree = build_host(tmp_path / "host")
    if driver is not None:
        _bind(tree, DEV, driver)
    profile = tmp_path / "tuned.toml"
    profile.write_text(PROFILE)
    journal = tmp_path / "journal"
    res = tuitune("apply", profile, DEV, "--root", tree, "--journal-dir", journal)
    assert res.returncode == 0, res.stderr
    return tree, journal


def test_ansible_by_driver_matches_the_driver_in_rules_and_link(tmp_path: Path) -> None:
    tree, journal = _tuned(tmp_path, "ixgbe")
    _bind(tree, "eno50", "ixgbe")  # a second port the same driver runs
    out = tmp_path / "play"
    res = tuitune(
        "export", DEV, "--root", tree, "--journal-dir", journal,
        "--ansible", "--match", "driver", "--out", out,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    rules = render(
        (out / ROLE / "udev/rules.d/90-tuitune-eno49.rules.j2").read_text(), tuitune_iface=DEV
    )
    # The device's own event: skipped unless net_setup_link found the driver.
    assert 'ENV{ID_NET_DRIVER}!="ixgbe", GOTO="tuitune_' in rules
    # Each queue's event: the driver imported from the netdev first.
    assert 'IMPORT{parent}="ID_NET_DRIVER"' in rules
    assert "ID_PATH" not in rules and 'KERNEL=="eno49"' not in rules
    res_link = tuitune(
        "export", DEV, "--root", tree, "--journal-dir", journal,
        "--match", "driver", "--format", "link",
    )  # fmt: skip
    assert res_link.returncode == 0 and "\nDriver=ixgbe\n" in res_link.stdout, res_link.stderr
    # The price is said, naming what else it would catch on this host.
    assert "every NIC the ixgbe driver runs (here also eno50)" in res.stderr
    notes = (out / "roles/tuitune_nic/defaults/main.yml").read_text()
    assert "driver ixgbe" in notes


def test_by_driver_without_one_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    tree, journal = _tuned(tmp_path, None)  # no device: nothing bound
    out = tmp_path / "play"
    res = tuitune(
        "export", DEV, "--root", tree, "--journal-dir", journal,
        "--ansible", "--match", "driver", "--out", out,
    )  # fmt: skip
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "names no driver" in res.stderr and not out.exists()


def test_a_driver_name_that_cannot_go_into_a_rule_is_refused(tmp_path: Path) -> None:
    tree, journal = _tuned(tmp_path, 'x",RUN+="own')
    out = tmp_path / "play"
    res = tuitune(
        "export", DEV, "--root", tree, "--journal-dir", journal,
        "--ansible", "--match", "driver", "--out", out,
    )  # fmt: skip
    assert res.returncode == 1 and "driver: 'x\",RUN" in res.stderr, res.stderr
    assert "cannot go into a file safely" in res.stderr
    assert not out.exists() or not any(p.is_file() for p in out.rglob("*"))


def test_choose_match_prefers_the_driver_ethtool_names(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    root = HostRoot.fixture(tree)
    with pytest.raises(NoMatch):
        choose_match(root, DEV, "driver")
    # ethtool's name (udev's ID_NET_DRIVER) wins; veth has no sysfs driver but has that.
    assert choose_match(root, DEV, "driver", "veth").value == "veth"
