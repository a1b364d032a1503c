"""Issue 33 on the guest's Debian 6.1 kernel: its ethtool netlink has no RSS_GET (so no dump
of RSS contexts), and `show` says it cannot list them for the virtio NIC's table; RFS's pair
(the host's rps_sock_flow_entries, a global sysctl this machine's tests may not change, and
each rx queue's rps_flow_cnt) applied through `tuitune apply`, read back from /proc and
sysfs, and restored exactly; a size the kernel would round is refused with nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuitune.core.host.rss_netlink import CANNOT_LIST

from .conftest import Nics, show_json, sysctl, tuitune, write_profile

pytestmark = pytest.mark.vm

ENTRIES = "net.core.rps_sock_flow_entries"


def test_the_guest_kernel_cannot_list_rss_contexts_and_show_says_so(nics: Nics) -> None:
    doc = show_json(nics.virtio)
    assert doc["rss"]["table"], doc["rss"]  # virtio rss=on: a table, so contexts are asked
    assert doc["rss"]["contexts_unlisted"] == CANNOT_LIST
    assert doc["interface"]["rss_contexts_note"] == CANNOT_LIST


def _flow_cnts(dev: str) -> dict[str, str]:
    queues = sorted(Path(f"/sys/class/net/{dev}/queues").glob("rx-*"))
    return {q.name: (q / "rps_flow_cnt").read_text().strip() for q in queues}


def test_rfs_pair_applied_read_back_and_restored(nics: Nics, tmp_path: Path) -> None:
    dev = nics.virtio
    before_entries, before_cnts = sysctl(ENTRIES), _flow_cnts(dev)
    bad = write_profile(tmp_path / "bad.toml", f'[sysctl]\n"{ENTRIES}" = 30000\n')
    ran = tuitune("apply", str(bad), check=False)
    assert ran.returncode != 0 and "not a power of two" in ran.stdout + ran.stderr
    assert sysctl(ENTRIES) == before_entries  # nothing written
    per = 1 << ((32768 // len(before_cnts)).bit_length() - 1)  # a power of two
    prof = write_profile(
        tmp_path / "rfs.toml",
        f'[sysctl]\n"{ENTRIES}" = 32768\n[interface]\nname = "{dev}"\n'
        f'[interface.rps_flow_cnt]\n"*" = {per}\n',
    )
    tuitune("apply", str(prof))
    assert sysctl(ENTRIES) == "32768"
    assert set(_flow_cnts(dev).values()) == {str(per)}
    tuitune("restore")
    assert sysctl(ENTRIES) == before_entries
    assert _flow_cnts(dev) == before_cnts
