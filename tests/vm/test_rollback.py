"""Rollback on a real kernel, in the bench's guest: a write that fails in the middle of
`tuitune apply` (the driver refuses, the device is removed, the kernel rejects a sysctl, a
CPU goes offline between the plan and the write) after others were made. The ones made
are put back, and the guest is exactly as before, compared value by value with what
ethtool and sysctl read."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from tuitune.core.session.kinds.ethtool import RingSizes
from tuitune.core.session.kinds.irq import IrqAffinity
from tuitune.core.session.kinds.sysctl import Sysctl
from tuitune.core.session.settings import Key

from .conftest import (
    NSIM_BUS,
    Nics,
    Nsim,
    affinity_list,
    ethtool_fields,
    irq_snapshot,
    queue_irqs,
    sysctl,
    tuitune,
    write_profile,
)

pytestmark = pytest.mark.vm


def said(ran: object) -> str:
    return f"{getattr(ran, 'stdout', '')}{getattr(ran, 'stderr', '')}"


def test_driver_refusal_mid_apply_puts_back_what_was_written(nsim: Nsim, tmp_path: Path) -> None:
    """Rings, a coalescing parameter and pause rx written, then netdevsim refuses pause
    autoneg (EINVAL, its set_pauseparam): all of them put back."""
    dev = nsim.ifname
    before = {o: ethtool_fields(o, dev) for o in ("-g", "-c", "-a")}
    prof = write_profile(
        tmp_path / "p.toml",
        f'[interface]\nname = "{dev}"\n[interface.rings]\nrx = 1000\ntx = 900\n'
        '[interface.coalesce]\n"rx-usecs" = 77\n[interface.pause]\nrx = true\nautoneg = true\n',
    )
    ran = tuitune("apply", str(prof), check=False)
    assert ran.returncode == 1, said(ran)
    assert "Traceback" not in said(ran)
    assert "put back because" in said(ran) and "autoneg" in said(ran), said(ran)
    assert {o: ethtool_fields(o, dev) for o in ("-g", "-c", "-a")} == before, said(ran)
    assert tuitune("restore").returncode == 0
    assert {o: ethtool_fields(o, dev) for o in ("-g", "-c", "-a")} == before


def test_device_removed_mid_apply(
    nsim: Nsim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sysctl written, then the netdevsim device deleted (del_device) right before its
    ring is written: the sysctl is put back, the command says so in lines, no traceback."""
    key = "net.core.netdev_max_backlog"
    before = sysctl(key)
    write = RingSizes.write_device

    def vanish_first(self: RingSizes, et: object, k: object, value: str) -> object:
        (NSIM_BUS / "del_device").write_text(str(nsim.id))
        return write(self, et, k, value)  # type: ignore[arg-type]

    monkeypatch.setattr(RingSizes, "write_device", vanish_first)
    prof = write_profile(
        tmp_path / "d.toml",
        f'[sysctl]\n"{key}" = {int(before) + 1000}\n'
        f'[interface]\nname = "{nsim.ifname}"\n[interface.rings]\nrx = 700\n',
    )
    ran = tuitune("apply", str(prof), check=False)
    assert not nsim.sysfs.exists()  # the device did go, mid-apply
    assert ran.returncode == 1, said(ran)
    assert "Traceback" not in said(ran)
    assert sysctl(key) == before, said(ran)
    monkeypatch.undo()
    back = tuitune("restore", check=False)
    assert back.returncode == 0, said(back)
    assert sysctl(key) == before


def test_a_sysctl_the_kernel_rejects_mid_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rmem_max written, then the kernel refuses wmem_max's write (EINVAL: under its
    SOCK_MIN_SNDBUF, 4608 on x86_64): rmem_max is put back.

    tuitune's own check now refuses a wmem_max of 4000 before anything is written (issue 31
    item 6; checked first, below). So the profile asks for a valid 8192 and the test hands
    the kernel 4000 in its place at the last moment: the refusal is the kernel's own."""
    keys = ("net.core.rmem_max", "net.core.wmem_max")
    before = {k: sysctl(k) for k in keys}
    rmem = int(before["net.core.rmem_max"]) + 4096

    early = write_profile(
        tmp_path / "early.toml",
        f'[sysctl]\n"net.core.rmem_max" = {rmem}\n"net.core.wmem_max" = 4000\n',
    )
    ran = tuitune("apply", str(early), check=False)
    assert ran.returncode == 1 and "nothing was changed" in said(ran), said(ran)
    assert {k: sysctl(k) for k in keys} == before, said(ran)

    write = Sysctl.write

    def under_the_floor(self: Sysctl, acc: Any, key: Key, value: str) -> Any:
        return write(self, acc, key, "4000" if key.name == "net.core.wmem_max" else value)

    monkeypatch.setattr(Sysctl, "write", under_the_floor)
    prof = write_profile(
        tmp_path / "s.toml",
        f'[sysctl]\n"net.core.rmem_max" = {rmem}\n"net.core.wmem_max" = 8192\n',
    )
    ran = tuitune("apply", str(prof), check=False)
    monkeypatch.undo()
    assert ran.returncode == 1, said(ran)
    assert "Traceback" not in said(ran)
    assert "put back because" in said(ran) and "wmem_max" in said(ran), said(ran)
    assert {k: sysctl(k) for k in keys} == before, said(ran)
    assert tuitune("restore").returncode == 0
    assert {k: sysctl(k) for k in keys} == before


def test_a_cpu_taken_offline_between_plan_and_write(
    nics: Nics, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """netdev_max_backlog written, then the CPU a queue IRQ is to move to goes offline right
    before that write (the plan saw it online): the kernel refuses a mask with no online CPU
    (EINVAL, write_irq_affinity), the sysctl is put back, and once the CPU is back every
    IRQ's affinity file the kernel itself did not re-pin, and the sysctl, is byte for byte as
    before."""
    dev, key = nics.virtio, "net.core.netdev_max_backlog"
    queue, irq = sorted(queue_irqs(dev).items())[0]
    cpu = "3" if affinity_list(irq) != "3" else "2"
    online = Path(f"/sys/devices/system/cpu/cpu{cpu}/online")
    before, before_irqs = sysctl(key), irq_snapshot()
    # An IRQ on that CPU alone (virtio-net pins one queue per CPU) has its affinity broken
    # by the kernel when the CPU goes offline (all online CPUs after): the kernel's doing,
    # not tuitune's. Those are left out of the comparison, and set back by the test.
    alone = {
        k.split("/")[0]
        for k, v in before_irqs.items()
        if k.endswith("_list") and v.strip() == cpu.encode()
    }

    def ours(snap: dict[str, bytes]) -> dict[str, bytes]:
        return {k: v for k, v in snap.items() if k.split("/")[0] not in alone}

    write = IrqAffinity.write
    went: list[str] = []

    def offline_first(self: IrqAffinity, acc: Any, k: Key, value: str) -> Any:
        online.write_text("0")
        went.append(online.read_text().strip())
        return write(self, acc, k, value)

    monkeypatch.setattr(IrqAffinity, "write", offline_first)
    prof = write_profile(
        tmp_path / "c.toml",
        f'[sysctl]\n"{key}" = {int(before) + 1000}\n'
        f'[interface]\nname = "{dev}"\n[interface.irq_affinity]\n"{queue}" = "{cpu}"\n',
    )
    try:
        ran = tuitune("apply", str(prof), check=False)
    finally:
        monkeypatch.undo()
        online.write_text("1")
        for n in alone:
            with contextlib.suppress(OSError):  # a managed IRQ came back by itself
                Path(f"/proc/irq/{n}/smp_affinity_list").write_text(cpu)
    assert went == ["0"]  # the CPU did go, between the plan and the write
    assert ran.returncode == 1, said(ran)
    assert "Traceback" not in said(ran)
    assert "put back because" in said(ran) and f"IRQ {irq}" in said(ran), said(ran)
    assert sysctl(key) == before, said(ran)
    assert ours(irq_snapshot()) == ours(before_irqs)
    assert tuitune("restore").returncode == 0
    assert sysctl(key) == before and ours(irq_snapshot()) == ours(before_irqs)
