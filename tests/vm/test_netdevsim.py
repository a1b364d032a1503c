"""netdevsim, the kernel's driver for testing drivers' configuration paths, in the bench's
guest: tuitune's writes held to the checks of the kernel's own selftests for it
(tools/testing/selftests/drivers/net/netdevsim/ethtool-ring.sh, ethtool-coalesce.sh,
ethtool-pause.sh of the guest kernel's source; scripts/vm setup keeps them beside the module,
under CACHE/netdevsim-VERSION/selftests). Where a selftest sets a value with `ethtool` and
reads it back, here `tuitune apply` sets it, ethtool reads it back, and `tuitune restore`
must leave ethtool's whole report as it was. The 6.1 tree has no ethtool-features.sh.

Values are random, as the selftests' are; the seed is in every failure message."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from .conftest import Nsim, ethtool_fields, ethtool_text, tuitune, write_profile

pytestmark = pytest.mark.vm

# tuitune's ring names -> ethtool -g's labels (ethtool-ring.sh's SETTINGS_MAP)
RINGS = {"rx": "RX", "rx-mini": "RX Mini", "rx-jumbo": "RX Jumbo", "tx": "TX"}
# tuitune's (ethtool -C) names -> ethtool -c's labels (ethtool-coalesce.sh's SETTINGS_MAP)
COALESCE = {
    "rx-frames-low": "rx-frame-low",
    "tx-frames-low": "tx-frame-low",
    "rx-frames-high": "rx-frame-high",
    "tx-frames-high": "tx-frame-high",
    **{
        n: n
        for n in (
            "rx-usecs",
            "rx-frames",
            "rx-usecs-irq",
            "rx-frames-irq",
            "tx-usecs",
            "tx-frames",
            "tx-usecs-irq",
            "tx-frames-irq",
            "stats-block-usecs",
            "pkt-rate-low",
            "rx-usecs-low",
            "tx-usecs-low",
            "pkt-rate-high",
            "rx-usecs-high",
            "tx-usecs-high",
            "sample-interval",
        )
    },
}


def seeded() -> tuple[random.Random, str]:
    seed = random.SystemRandom().randrange(2**32)
    return random.Random(seed), f"(seed {seed})"


def profile(path: Path, dev: str, body: str) -> Path:
    return write_profile(path, f'[interface]\nname = "{dev}"\n{body}')


def test_every_ring_under_a_random_maximum(nsim: Nsim, tmp_path: Path) -> None:
    """ethtool-ring.sh: the maxima set through debugfs, then each ring kind to a random size
    under them; one above the maximum is refused with nothing written."""
    rng, seed = seeded()
    top = rng.randrange(2, 32768)  # the selftest's $RANDOM
    maxima = sorted(p.name for p in (nsim.dfs / "ethtool" / "ring").iterdir())
    assert maxima == sorted(f"{k}_max_pending" for k in ("rx", "rx_mini", "rx_jumbo", "tx"))
    for name in maxima:
        (nsim.dfs / "ethtool" / "ring" / name).write_text(str(top))
    before = ethtool_text("-g", nsim.ifname)
    assert before.count(f"\t{top}\n") == 4 or before.count(f" {top}\n") == 4, before
    want = {k: rng.randrange(1, top + 1) for k in RINGS}
    body = "[interface.rings]\n" + "".join(f'"{k}" = {v}\n' for k, v in want.items())
    tuitune("apply", str(profile(tmp_path / "r.toml", nsim.ifname, body)))
    got = ethtool_fields("-g", nsim.ifname)
    assert {k: got[label] for k, label in RINGS.items()} == {k: str(v) for k, v in want.items()}, (
        seed
    )
    over = tuitune(
        "apply",
        str(profile(tmp_path / "o.toml", nsim.ifname, f"[interface.rings]\nrx = {top + 1}\n")),
        check=False,
    )
    assert over.returncode == 1 and "maximum" in over.stdout + over.stderr, (seed, over)
    assert ethtool_fields("-g", nsim.ifname) == got, seed
    tuitune("restore")
    assert ethtool_text("-g", nsim.ifname) == before, seed


def test_all_coalescing_parameters_and_adaptive(nsim: Nsim, tmp_path: Path) -> None:
    """ethtool-coalesce.sh: every parameter to a random u32, then adaptive rx and tx on,
    all in one profile; each read back from ethtool -c."""
    rng, seed = seeded()
    before = ethtool_text("-c", nsim.ifname)
    want = {k: rng.randrange(1, 2**32 - 1) for k in COALESCE}
    body = "[interface.coalesce]\n" + "".join(f'"{k}" = {v}\n' for k, v in want.items())
    body += '"adaptive-rx" = true\n"adaptive-tx" = true\n'
    tuitune("apply", str(profile(tmp_path / "c.toml", nsim.ifname, body)))
    got = ethtool_fields("-c", nsim.ifname)
    assert {k: got[label] for k, label in COALESCE.items()} == {
        k: str(v) for k, v in want.items()
    }, seed
    assert "Adaptive RX: on  TX: on" in ethtool_text("-c", nsim.ifname), seed
    tuitune("restore")
    assert ethtool_text("-c", nsim.ifname) == before, seed


def test_pause_set_and_autoneg_refused(nsim: Nsim, tmp_path: Path) -> None:
    """Pause rx and tx on and read back; autoneg on is refused by the driver (EINVAL) as a
    one-line refusal, nothing changed."""
    dev = nsim.ifname
    before = ethtool_text("-a", dev)
    tuitune(
        "apply", str(profile(tmp_path / "p.toml", dev, "[interface.pause]\nrx = true\ntx = true\n"))
    )
    got = ethtool_fields("-a", dev)
    assert (got["Autonegotiate"], got["RX"], got["TX"]) == ("off", "on", "on"), got
    tuitune("restore")
    assert ethtool_text("-a", dev) == before
    refused = tuitune(
        "apply",
        str(profile(tmp_path / "a.toml", dev, "[interface.pause]\nautoneg = true\n")),
        check=False,
    )
    assert refused.returncode == 1, refused
    assert "Traceback" not in refused.stdout + refused.stderr
    assert "autoneg" in refused.stdout + refused.stderr, refused
    assert ethtool_text("-a", dev) == before
    tuitune("restore")  # nothing was recorded for it: nothing to put back, exit 0
    assert ethtool_text("-a", dev) == before


def test_channels_down_and_up(nsim: Nsim, tmp_path: Path) -> None:
    """4 queues -> 1 (the queues in sysfs follow) -> 3, then restore to the 4 it had."""
    dev = nsim.ifname
    before = ethtool_text("-l", dev)
    assert ethtool_fields("-l", dev)["Combined"] == "4", before
    queues = Path(f"/sys/class/net/{dev}/queues")
    for n in (1, 3):
        tuitune(
            "apply",
            str(profile(tmp_path / f"{n}.toml", dev, f"[interface.channels]\ncombined = {n}\n")),
        )
        assert ethtool_fields("-l", dev)["Combined"] == str(n)
        assert sorted(p.name for p in queues.glob("rx-*")) == [f"rx-{i}" for i in range(n)]
    tuitune("restore")
    assert ethtool_text("-l", dev) == before
    assert len(list(queues.glob("rx-*"))) == 4


def test_features_on_and_restored(nsim: Nsim, tmp_path: Path) -> None:
    """Features netdevsim lets change (its hw_features: hw-tc-offload; the core's GRO kinds),
    switched by kernel name in one profile, read back from ethtool -k, restored exactly.
    (Later kernels' ethtool-features.sh toggles features the same way; 6.1 has none.)"""
    dev = nsim.ifname
    before = ethtool_text("-k", dev)
    names = ("hw-tc-offload", "rx-gro-list", "rx-udp-gro-forwarding")
    was = ethtool_fields("-k", dev)
    assert all(was[n] == "off" for n in names), {n: was.get(n) for n in names}
    body = "[interface.features]\n" + "".join(f'"{n}" = true\n' for n in names)
    tuitune("apply", str(profile(tmp_path / "f.toml", dev, body)))
    got = ethtool_fields("-k", dev)
    assert {n: got[n] for n in names} == dict.fromkeys(names, "on"), got
    tuitune("restore")
    assert ethtool_text("-k", dev) == before
