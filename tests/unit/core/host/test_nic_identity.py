"""The NIC's vendor and model in words, from udev's hardware database: on recorded trees from
the device's modalias, and a modalias that is not the kernel's shape is never passed on."""

from __future__ import annotations

import json
import subprocess
import sys
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


# A device as sysfs shows it (its uevent, its subsystem link), then udevd's database with or
# without its record: pyudev is imported only when there is a record to read (issue 38,
# goal 3: ~2.5 MB resident a small host without udevd never needs).
UDEV_RECORD = """
import os, sys
from pathlib import Path
from tuitune.core.host import identity
tmp = Path(sys.argv[1])
dev = tmp / "devices/pci0000:00/0000:03:00.0"
dev.mkdir(parents=True)
(tmp / "bus/pci").mkdir(parents=True)
os.symlink(tmp / "bus/pci", dev / "subsystem")
(dev / "uevent").write_text("DRIVER=e1000e\\nPCI_SLOT_NAME=0000:03:00.0\\n")
identity.UDEV_DATA = tmp / "udev"
identity.UDEV_DATA.mkdir()
print(identity._udev_names(dev), "pyudev" in sys.modules)
(identity.UDEV_DATA / "+pci:0000:03:00.0").write_text("E:ID_VENDOR_FROM_DATABASE=X\\n")
print(identity.udev_may_know(dev), "pyudev" in sys.modules)
identity._udev_names.cache_clear()
identity._udev_names(dev)
print("pyudev" in sys.modules)
"""


def test_pyudev_is_imported_only_for_a_device_udevd_has_a_record_of(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[4]
    done = subprocess.run(
        [sys.executable, "-c", UDEV_RECORD, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["(None, None) False", "True False", "True"]


def test_a_device_numbered_or_without_a_subsystem_is_asked_of_pyudev(tmp_path: Path) -> None:
    """What the database's file name cannot be told for cheaply is not guessed."""
    from tuitune.core.host.identity import udev_may_know

    numbered = tmp_path / "numbered"
    numbered.mkdir()
    (numbered / "uevent").write_text("MAJOR=10\nMINOR=200\nDEVNAME=net/tun\n")
    (numbered / "subsystem").symlink_to(tmp_path)
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "uevent").write_text("DRIVER=x\n")
    assert udev_may_know(numbered)
    assert udev_may_know(bare)
    assert udev_may_know(tmp_path / "missing")
