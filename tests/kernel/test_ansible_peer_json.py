"""Issue 17's pair from "a second `show --json` file from the other host": the far end's
role is built from that file alone, not from a journal on this machine.

The lab's peer end stands in for the other host: it is tuned (its own values, unlike this
end's), `tuitune show --json` is run there to make the file, then it is put back with
`tuitune restore`, so that only the file knows its tuned state. The pair is exported with
`--peer-json`, and the far end's play runs with the real ansible-playbook inside the peer's
namespace behind a tmpfs-overlaid /etc with its own udevd (test_ansible_peer_end.py's
helpers: nothing reaches this machine's /etc, udevd or interfaces). Then `tuitune show` at
the far end agrees with the file, and a second run changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kernel.test_ansible_peer_end import (
    lab_or_skip,
    peer_udevd,
    play_in,
    shown,
    tuitune,
    tune_both_ends,
)
from tests.unit.core.export.test_export_ansible import recap
from tuitune.core import lab as labmod

pytestmark = pytest.mark.kernel

# The far end's own tuning: every value differs from this end's (PROFILE) and from the
# defaults, so the far role can only have taken them from the file.
FAR_PROFILE = """
[sysctl]
"net.core.somaxconn" = 2048

[interface]
mtu = 4000
txqueuelen = 3000

[interface.rps_cpus]
"rx-0" = "0"
"""


def test_far_end_role_from_its_show_json_file_tunes_it_as_the_file_says(tmp_path: Path) -> None:
    state = tmp_path / "state"
    lab = lab_or_skip(state)
    try:
        journal = tune_both_ends(tmp_path, lab, FAR_PROFILE)
        far_tuned = shown(lab.peer_netns, lab.peer_ifname)
        assert far_tuned == {"mtu": 4000, "txqlen": 3000, "rx-0 rps": [0], "somaxconn": "2048"}

        # The file, as the other host's admin would make it there.
        res = tuitune("show", "--json", "--netns", lab.peer_netns, lab.peer_ifname)
        assert res.returncode == 0, res.stderr
        peer_file = tmp_path / "peer.json"
        peer_file.write_text(res.stdout)
        res = tuitune("restore", "--netns", lab.peer_netns, "--journal-dir", journal)
        assert res.returncode == 0, res.stderr
        restored = shown(lab.peer_netns, lab.peer_ifname)
        assert restored["mtu"] == 1500 and restored != far_tuned

        play = tmp_path / "play"
        res = tuitune(
            "export", lab.ifname, "--netns", lab.netns, "--journal-dir", journal,
            "--ansible", "--match", "name", "--out", play,
            "--peer-json", peer_file, "--peer-host", "peer.lab",
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        assert f"the far end: {lab.peer_ifname} on peer.lab" in res.stdout
        # The notes say where the two ends differ (the far role keeps the far values).
        assert "mtu" in res.stderr and "4000 at the far end" in res.stderr
        inventory = (play / "inventory.yml").read_text()
        assert "peer.lab" in inventory and lab.peer_ifname in inventory
        far_role = "".join(
            p.read_text() for p in (play / "roles/tuitune_nic_peer").rglob("*") if p.is_file()
        )
        assert "net.core.somaxconn = 2048" in far_role and "9000" not in far_role

        inv = tmp_path / "inventory.yml"
        inv.write_text("tuitune_peer:\n  hosts:\n    localhost:\n")
        with peer_udevd(lab.peer_netns, tmp_path / "etc-upper") as pid:
            peer_vars = ("-e", f"tuitune_iface={lab.peer_ifname}", "-e", "tuitune_netns=")
            done = play_in(pid, play, tmp_path, *peer_vars, inventory=str(inv))
            assert done.returncode == 0, done.stdout + done.stderr
            assert recap(done.stdout)["changed"] > 0
            assert shown(lab.peer_netns, lab.peer_ifname) == far_tuned  # as the file says
            again = play_in(pid, play, tmp_path, *peer_vars, inventory=str(inv))
            assert again.returncode == 0, again.stdout + again.stderr
            assert recap(again.stdout)["changed"] == 0
        near = shown(lab.netns, lab.ifname)
        assert near == {"mtu": 9000, "txqlen": 5000, "rx-0 rps": [1], "somaxconn": "8192"}
    finally:
        labmod.down(lab, state)
    assert not Path(f"/run/netns/{lab.peer_netns}").exists()
