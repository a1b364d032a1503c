"""The NIC's vendor and model in words, from udev's hardware database: on recorded trees from
the device's modalias, and a modalias that is not the kernel's shape is never passed on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.hosttree import TreeSpec, build_tree
from tuitune.core.host.identity import hwdb_names
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader

E1000E_82574L = "pci:v00008086d000010D3sv00008086sd0000A01Fbc02sc00i00"  # QEMU's e1000e


def tree_with_modalias(tmp_path: Path, alias: str) -> Path:
    tree = build_tree(
        tmp_path / "host",
        TreeSpec(
            ncpus=2, interrupts="           CPU0       CPU1\n", ifname="eth2", bus="0000:03:00.0"
        ),
    )
    (tree / "sys/devices/pci0000:00/0000:03:00.0/modalias").write_text(alias + "\n")
    return tree


def test_a_recorded_e1000e_is_named_from_the_hardware_database(tmp_path: Path) -> None:
    tree = tree_with_modalias(tmp_path, E1000E_82574L)
    with HostReader(HostRoot.fixture(tree)) as reader:
        place = reader.nic_state("eth2").placement
    assert place.vendor == "Intel Corporation"
    assert place.model is not None and place.model.startswith("82574L Gigabit")
    # `show` says it in words, and the JSON carries it.
    shown = tuitune("show", "eth2", "--root", tree)
    assert shown.returncode == 0, shown.stderr
    assert "Intel Corporation 82574L Gigabit" in shown.stdout
    shown = tuitune("show", "eth2", "--root", tree, "--json")
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout)
    assert doc["interface"]["placement"]["vendor"] == "Intel Corporation"


@pytest.mark.parametrize(
    "alias",
    [
        "--help",
        "pci:v$(touch /tmp/tt-pwned)",
        "pci:v0000 8086",
        "pci:" + "0" * 200,
        "../../etc/passwd",
    ],
)
def test_a_hostile_modalias_is_not_looked_up(tmp_path: Path, alias: str) -> None:
    tree = tree_with_modalias(tmp_path, alias)
    with HostReader(HostRoot.fixture(tree)) as reader:
        place = reader.nic_state("eth2").placement
    assert (place.vendor, place.model) == (None, None)
    assert hwdb_names(alias) == (None, None)
