"""Rings, coalescing and pause on the real e1000e, channels on the 4-queue virtio-net, in the
bench's guest: applied with `tuitune apply`, read back with ethtool, then undone through the
journal or put back by `tuitune restore`: ethtool's whole report exactly as before."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

from .conftest import Nics, ethtool_text, irq_snapshot, queue_irqs, sh, tuitune, write_profile

pytestmark = pytest.mark.vm


def current(text: str) -> str:
    """ethtool -g/-l: the "Current hardware settings" half."""
    return text.split("Current hardware settings:")[1]


def leftover() -> str:
    """What journals are left in /run/tuitune (names and records), "" when none."""
    return "".join(f"{p}:\n{p.read_text()}" for p in Path("/run/tuitune").glob("*.journal"))


@pytest.fixture
def hand_placed(nics: Nics) -> Iterator[None]:
    """The IRQs of virtio queues 2 and 3 placed by hand where the driver would not put them
    (queue 2 on cpu3, queue 3 on cpu2), as an admin or irqbalance leaves them: a channel
    change spreads them anew, and only the journal knows where they were. Put back after."""
    irqs = {q: n for q, n in queue_irqs(nics.virtio).items() if q[-2:] in (".2", ".3")}
    saved = {n: Path(f"/proc/irq/{n}/smp_affinity").read_bytes() for n in irqs.values()}
    for q, n in irqs.items():
        Path(f"/proc/irq/{n}/smp_affinity_list").write_text("3" if q.endswith(".2") else "2")
    try:
        yield
    finally:
        for n, mask in saved.items():
            with contextlib.suppress(OSError):
                Path(f"/proc/irq/{n}/smp_affinity").write_bytes(mask)


def test_e1000e_rings_coalescing_pause_apply_and_restore(nics: Nics, tmp_path: Path) -> None:
    dev = nics.e1000e
    before = {o: ethtool_text(o, dev) for o in ("-g", "-c", "-a")}
    assert re.search(r"RX:\s+4096", before["-g"]), before["-g"]  # the real driver's maximum
    prof = write_profile(
        tmp_path / "e1000e.toml",
        f"""[interface]
name = "{dev}"
[interface.rings]
rx = 1024
tx = 512
[interface.coalesce]
"rx-usecs" = 50
[interface.pause]
autoneg = false
rx = false
tx = false
""",
    )
    out = tuitune("apply", str(prof))
    assert "rings rx" in out.stdout or "ring" in out.stdout, out.stdout
    rings = current(ethtool_text("-g", dev))
    assert re.search(r"RX:\s+1024\n", rings) and re.search(r"TX:\s+512\n", rings), rings
    assert re.search(r"rx-usecs:\s+50\n", ethtool_text("-c", dev))
    pause = ethtool_text("-a", dev)
    assert re.search(r"Autonegotiate:\s+off", pause) and re.search(r"RX:\s+off", pause), pause
    tuitune("restore")
    assert {o: ethtool_text(o, dev) for o in ("-g", "-c", "-a")} == before


def test_e1000e_ring_undo_through_the_journal(nics: Nics, tmp_path: Path) -> None:
    dev = nics.e1000e
    before = ethtool_text("-g", dev)
    with HostAccess(HostRoot()) as access, Journal.open(access, tmp_path / "j") as j:
        assert j.apply(Key.field(dev, "ring", "rx"), "2048").status == "changed"
        assert j.apply(Key.field(dev, "coalesce", "rx-usecs"), "100").status == "changed"
        assert re.search(r"RX:\s+2048\n", current(ethtool_text("-g", dev)))
        undone = j.undo()
        assert undone and all(o.ok for o in undone)
        assert re.search(r"rx-usecs:\s+100\n", ethtool_text("-c", dev)) is None
        assert re.search(r"RX:\s+2048\n", current(ethtool_text("-g", dev)))
        assert all(o.ok for o in j.revert_all())
    assert ethtool_text("-g", dev) == before


def test_virtio_channels_apply_and_restore(nics: Nics, tmp_path: Path) -> None:
    dev = nics.virtio
    before = ethtool_text("-l", dev)
    assert re.search(r"Combined:\s+4\n", current(before)), before
    prof = write_profile(
        tmp_path / "ch.toml", f'[interface]\nname = "{dev}"\n[interface.channels]\ncombined = 2\n'
    )
    tuitune("apply", str(prof))
    assert re.search(r"Combined:\s+2\n", current(ethtool_text("-l", dev)))
    assert sorted(p.name for p in Path(f"/sys/class/net/{dev}/queues").iterdir()) == [
        "rx-0",
        "rx-1",
        "tx-0",
        "tx-1",
    ]
    out = tuitune("restore")
    assert out.returncode == 0
    assert ethtool_text("-l", dev) == before


@pytest.mark.usefixtures("hand_placed")
def test_virtio_channels_lowered_under_queue_settings_restore_clean(
    nics: Nics, tmp_path: Path
) -> None:
    """RPS/XPS on rx-3/tx-3 and the IRQ of queue 3, then the channel count lowered to 2 so
    those queues vanish: `restore` still exits 0, and leaves nothing behind."""
    dev = nics.virtio
    before = ethtool_text("-l", dev)
    irqs = queue_irqs(dev)
    q3 = next(q for q in irqs if q.endswith("input.3"))
    with HostAccess(HostRoot()) as access:
        j = Journal.open(access)
        assert j.apply(Key.rps_cpus(dev, "rx-3"), "1").ok
        assert j.apply(Key.xps_cpus(dev, "tx-3"), "2").ok
        key = access.irq_key(dev, q3)
        assert key is not None and j.apply(key, "3").ok
        assert j.apply(Key.field(dev, "channels", "combined"), "2").ok
        j.detach()
    out = tuitune("restore", check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert ethtool_text("-l", dev) == before
    assert leftover() == "", out.stdout


@pytest.mark.usefixtures("hand_placed")
def test_virtio_channels_and_irq_affinity_in_one_profile_restore(
    nics: Nics, tmp_path: Path
) -> None:
    """Issue 22 item 2: channels 4 -> 2 and the affinity of input.0 in one profile; the
    driver re-creates its IRQs. `restore` must exit 0 with every IRQ and channel back."""
    dev = nics.virtio
    before_l, before_irq = ethtool_text("-l", dev), irq_snapshot()
    q0 = next(q for q in queue_irqs(dev) if q.endswith("input.0"))
    prof = write_profile(
        tmp_path / "p.toml",
        f'[interface]\nname = "{dev}"\n[interface.channels]\ncombined = 2\n'
        f'[interface.irq_affinity]\n"{q0}" = "3"\n',
    )
    tuitune("apply", str(prof))
    out = tuitune("restore", check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert ethtool_text("-l", dev) == before_l, out.stdout
    assert irq_snapshot() == before_irq, out.stdout
    assert leftover() == "", out.stdout


def test_virtio_channels_raised_with_rps_on_a_new_queue_restore(nics: Nics, tmp_path: Path) -> None:
    """Issue 22 item 1: from 2 channels, raise to 4 and set RPS on the new rx-3 (apply
    twice, as docs/profile.md says); `restore` lowers channels again, rx-3 vanishes, and
    must still exit 0 and leave no journal behind (a second restore has nothing to do)."""
    dev = nics.virtio
    sh("ethtool", "-L", dev, "combined", "2")
    try:
        before = ethtool_text("-l", dev)
        head = f'[interface]\nname = "{dev}"\n'
        one = write_profile(tmp_path / "1.toml", head + "[interface.channels]\ncombined = 4\n")
        two = write_profile(tmp_path / "2.toml", head + '[interface.rps_cpus]\n"rx-3" = "1"\n')
        tuitune("apply", str(one))
        tuitune("apply", str(two))
        assert Path(f"/sys/class/net/{dev}/queues/rx-3/rps_cpus").read_text().strip() == "2"
        out = tuitune("restore", check=False)
        assert out.returncode == 0, out.stdout + out.stderr
        assert ethtool_text("-l", dev) == before
        again = tuitune("restore", check=False)
        assert again.returncode == 0, again.stdout + again.stderr
        assert not any(Path("/run/tuitune").glob("*.journal"))
    finally:
        sh("ethtool", "-L", dev, "combined", "4")
