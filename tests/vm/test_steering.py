"""Steering and sending on the guest's virtio NIC (rss=on,hash=on, 4 queues; scripts/vm) and
its Debian 6.1 kernel, which has fq (this machine's kernel has not): the RSS table, the hash
fields per flow type and mq+fq with a maxrate, each applied through `tuitune apply`, read back
with the guest's own `ethtool -x`, `ethtool -n` and `tc`, and restored exactly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import Nics, ethtool_text, sh, tuitune, write_profile

pytestmark = pytest.mark.vm


def slots(dev: str) -> list[int]:
    table = ethtool_text("-x", dev)
    rows = re.findall(r"^\s*\d+:((?:\s+\d+)+)\s*$", table, re.M)
    return [int(x) for row in rows for x in row.split()]


def apply(tmp_path: Path, dev: str, body: str) -> None:
    prof = write_profile(tmp_path / "p.toml", f'[interface]\nname = "{dev}"\n{body}')
    tuitune("apply", str(prof))


def test_rss_table_equal_2_read_back_and_restored_exactly(nics: Nics, tmp_path: Path) -> None:
    dev = nics.virtio
    before = ethtool_text("-x", dev)
    apply(tmp_path, dev, 'rss = "equal 2"\n')
    got = slots(dev)
    assert len(got) == 128 and got == [i % 2 for i in range(128)], ethtool_text("-x", dev)
    tuitune("restore")
    assert ethtool_text("-x", dev) == before


def test_rss_table_restored_across_a_channel_change(nics: Nics, tmp_path: Path) -> None:
    """Channels first (profile order), then the table over the queues that remain; restore
    puts the table back and the channels after it, and the driver's default table over 4
    queues comes back as it was."""
    dev = nics.virtio
    before_x, before_l = ethtool_text("-x", dev), ethtool_text("-l", dev)
    apply(tmp_path, dev, 'rss = "equal 2"\n[interface.channels]\ncombined = 3\n')
    assert re.search(r"Combined:\s+3\n", ethtool_text("-l", dev).split("Current")[1])
    assert set(slots(dev)) == {0, 1}
    tuitune("restore")
    assert ethtool_text("-l", dev) == before_l
    assert ethtool_text("-x", dev) == before_x


def test_hash_fields_changed_and_restored(nics: Nics, tmp_path: Path) -> None:
    dev = nics.virtio
    before = ethtool_text("-n", dev, "rx-flow-hash", "udp4")
    on_ports = "L4 bytes 0 & 1" in before
    apply(tmp_path, dev, f'[interface.rx_flow_hash]\nudp4 = "{"sd" if on_ports else "sdfn"}"\n')
    now = ethtool_text("-n", dev, "rx-flow-hash", "udp4")
    assert ("L4 bytes 0 & 1" in now) != on_ports, now
    tuitune("restore")
    assert ethtool_text("-n", dev, "rx-flow-hash", "udp4") == before


def test_mq_fq_with_a_maxrate_applied_and_restored_exactly(nics: Nics, tmp_path: Path) -> None:
    dev = nics.virtio
    before = sh("tc", "qdisc", "show", "dev", dev)
    apply(tmp_path, dev, 'qdisc = "mq fq maxrate 100mbit"\n')
    shown = sh("tc", "qdisc", "show", "dev", dev)
    assert "qdisc mq 1: root" in shown, shown
    assert shown.count("qdisc fq ") == 4 and shown.count("maxrate 100Mbit") == 4, shown
    tuitune("restore")
    assert sh("tc", "qdisc", "show", "dev", dev) == before
