"""Helpers for the tests that run inside the VM bench's guest (scripts/vm run).

They drive the product the way a user does (the `tuitune` command: apply a profile, restore,
show --json) or through the journal the TUI uses, and check what the guest's kernel holds with
its own tools (ethtool, sysctl, /proc/irq). Every fixture refuses to run outside the guest:
these tests move IRQs and change global sysctls.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import in_vm_guest
from tuitune.cli import main as cli_main

TUITUNE = str(Path(sys.executable).with_name("tuitune"))


def sh(*cmd: str) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def tuitune(*args: str, check: bool = True, process: bool = False) -> Ran:
    """`tuitune ARGS`: the CLI's own entry point, run in this process (a Python start costs
    tens of seconds under TCG), or as the installed command with `process=True`."""
    if process:
        run = subprocess.run([TUITUNE, *args], capture_output=True, text=True, timeout=600)
        ran = Ran(run.returncode, run.stdout, run.stderr)
    else:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli_main(list(args))
            except SystemExit as exc:  # argparse's errors
                rc = exc.code if isinstance(exc.code, int) else 2
        ran = Ran(rc, out.getvalue(), err.getvalue())
    if check and ran.returncode != 0:
        pytest.fail(f"tuitune {' '.join(args)} exited {ran.returncode}:\n{ran.stdout}{ran.stderr}")
    return ran


def show_json(ifname: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(tuitune("show", "--json", "--interval", "0.2", ifname).stdout)
    return doc


def irq_snapshot() -> dict[str, bytes]:
    """Every IRQ's affinity files, byte for byte."""
    out: dict[str, bytes] = {}
    for d in Path("/proc/irq").iterdir():
        for name in ("smp_affinity", "smp_affinity_list"):
            with contextlib.suppress(OSError):
                out[f"{d.name}/{name}"] = (d / name).read_bytes()
    return out


def interrupt_names() -> dict[int, str]:
    names: dict[int, str] = {}
    for line in Path("/proc/interrupts").read_text().splitlines()[1:]:
        m = re.match(r"\s*(\d+):(?:\s+\d+)+\s+(.*)$", line)
        if m:
            names[int(m.group(1))] = m.group(2).split()[-1]
    return names


def pci_dir(ifname: str) -> Path:
    dev = Path(f"/sys/class/net/{ifname}/device").resolve()
    # A virtio netdev's device is virtioN; the PCI function (with msi_irqs) is its parent.
    return dev if (dev / "msi_irqs").is_dir() else dev.parent


def queue_irqs(ifname: str) -> dict[str, int]:
    """Queue name (as /proc/interrupts shows it) -> IRQ, for every MSI-X IRQ of the NIC that
    serves a queue (not virtio's config IRQ)."""
    names = interrupt_names()
    out: dict[str, int] = {}
    for entry in (pci_dir(ifname) / "msi_irqs").iterdir():
        irq = int(entry.name)
        name = names.get(irq, "")
        if re.search(r"-(rx|tx|rxtx)-\d+$|-(input|output)\.\d+$", name):
            out[name] = irq
    return out


def ethtool_fields(*args: str) -> dict[str, str]:
    """`ethtool ARGS` as label -> value, one per "label: value" line (for -g, only the
    "Current hardware settings" half), as the kernel's selftests read it."""
    text = ethtool_text(*args)
    if "Current hardware settings:" in text:
        text = text.split("Current hardware settings:")[1]
    out: dict[str, str] = {}
    for line in text.splitlines():
        label, sep, value = line.partition(":")
        if sep and value.strip():
            out[label.strip()] = value.strip()
    return out


def affinity_list(irq: int) -> str:
    return Path(f"/proc/irq/{irq}/smp_affinity_list").read_text().strip()


def ethtool_text(*args: str) -> str:
    return sh("ethtool", *args)


def wait_carrier(ifname: str, limit: float = 120) -> None:
    """Until IFNAME has carrier: e1000e negotiates for seconds after `ip link set up` (longer
    under TCG), and a test reading it meanwhile sees the link change under it (the capture
    test after the Ansible test's rename did, in cc8). The kernel's link events, not a poll."""
    import time

    from tuitune.core.export.affinity_link import IFF_LOWER_UP, link_events, open_link_socket

    end = time.monotonic() + limit
    with open_link_socket() as sock:  # opened first: an event after the read is not missed
        try:
            if Path(f"/sys/class/net/{ifname}/carrier").read_text().strip() == "1":
                return
        except OSError:
            pass  # EINVAL while the device is down
        for ev in link_events(sock, lambda: time.monotonic() > end):
            if ev.ifname == ifname and ev.flags & IFF_LOWER_UP:
                return
    pytest.fail(f"{ifname}: no carrier within {limit} s")


def sysctl(key: str) -> str:
    return " ".join(sh("sysctl", "-n", key).split())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The reboot test's first half runs last: the udev rules it installs would act on the
    device events of the tests after it (channel changes add queues)."""
    last = [i for i in items if i.name == "test_reboot_first_half_tune_and_install"]
    items[:] = [i for i in items if i not in last] + last


@dataclass(frozen=True)
class Nsim:
    """One netdevsim device made for a test: its id, netdev and debugfs port directory."""

    id: int
    ifname: str
    dfs: Path

    @property
    def sysfs(self) -> Path:
        return NSIM_BUS / "devices" / f"netdevsim{self.id}"


NSIM_BUS = Path("/sys/bus/netdevsim")
_nsim_ids = itertools.count(100)  # guest.sh's own device is 1


@pytest.fixture
def nsim() -> Iterator[Nsim]:
    """A fresh netdevsim device (one port, 4 queues), as the selftests make one
    (ethtool-common.sh make_netdev), deleted after the test unless the test deleted it."""
    if not in_vm_guest():
        pytest.fail("VM tests run only inside the bench's guest")
    if not (NSIM_BUS / "new_device").exists():
        pytest.fail("netdevsim is not loaded (tests/vm/guest.sh loads it)")
    nid = next(_nsim_ids)
    (NSIM_BUS / "new_device").write_text(f"{nid} 1 4")
    dev = Nsim(nid, "", Path(f"/sys/kernel/debug/netdevsim/netdevsim{nid}/ports/0"))
    try:
        # udevd renames the netdev (eniNnpM): its name is final once the queue is empty.
        subprocess.run(["udevadm", "settle", "--timeout=60"], capture_output=True)
        names = [p.name for p in (dev.sysfs / "net").iterdir()]
        assert len(names) == 1, names
        subprocess.run(["ip", "link", "set", names[0], "up"], check=True)
        yield Nsim(nid, names[0], dev.dfs)
    finally:
        if dev.sysfs.exists():
            (NSIM_BUS / "del_device").write_text(str(nid))


@dataclass(frozen=True)
class Nics:
    e1000e: str
    virtio: str


def _driver(ifname: str) -> str:
    link = Path(f"/sys/class/net/{ifname}/device/driver")
    return link.resolve().name if link.exists() else ""


@pytest.fixture(scope="session")
def nics() -> Nics:
    if not in_vm_guest():  # belt and braces: tests/conftest.py already skips them on a host
        pytest.fail("VM tests run only inside the bench's guest")
    by_driver = {_driver(p.name): p.name for p in Path("/sys/class/net").iterdir()}
    if "e1000e" not in by_driver or "virtio_net" not in by_driver:
        pytest.fail(f"the guest lacks its NICs: {by_driver}")
    return Nics(by_driver["e1000e"], by_driver["virtio_net"])


@pytest.fixture(autouse=True)
def _restored(request: pytest.FixtureRequest) -> Iterator[None]:
    """Whatever a test leaves behind is put back, so one failure (or an xfail test of a
    known journal bug) does not spill over into the next test's `restore`."""
    mine = request.node.get_closest_marker("vm") is not None and in_vm_guest()
    irqs = irq_snapshot() if mine else {}
    yield
    if not mine or not any(Path("/run/tuitune").glob("*.journal")):
        return
    tuitune("restore", "--force", check=False)
    leftover = list(Path("/run/tuitune").glob("*.journal"))
    if not leftover:
        return
    # The journal could not put everything back: a throwaway guest may drop it, and set
    # the channels and IRQs back by hand.
    for path in leftover:
        path.unlink()
    for p in Path("/sys/class/net").iterdir():
        if _driver(p.name) == "virtio_net":
            subprocess.run(["ethtool", "-L", p.name, "combined", "4"], capture_output=True)
    for name, value in irqs.items():
        if name.endswith("/smp_affinity"):
            with contextlib.suppress(OSError):
                Path("/proc/irq", name).write_bytes(value)


def write_profile(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
