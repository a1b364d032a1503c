"""The platform's kinds on the guest's real kernel (issue 32): netdevsim's FEC set and put
back, a governor refused where the guest has no cpufreq, and e1000e's one run-time writable
module parameter changed through the journal and exported to modprobe.d.

netdevsim has FEC in the guest's 6.1 kernel: its selftest ethtool-fec.sh (beside the module,
scripts/vm keeps it) starts from "Configured FEC encodings: None", sets auto, off, baser, rs
and llrs and reads them back; here `tuitune apply` sets it and `tuitune restore` puts it back.
A fresh device's "None" is refused by tuitune before any write (the kernel takes no "none" in
a set, so it could not be put back).

e1000e: its E1000_PARAM parameters (InterruptThrottleRate and the others) are registered with
permission 0 (drivers/net/ethernet/intel/e1000e/param.c), so /sys/module/e1000e/parameters
holds none of them; `copybreak` (0644, netdev.c) is the one the kernel takes at run time."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .conftest import Nics, Nsim, ethtool_fields, show_json, tuitune, write_profile

pytestmark = pytest.mark.vm

COPYBREAK = Path("/sys/module/e1000e/parameters/copybreak")
CPUFREQ = Path("/sys/devices/system/cpu/cpufreq")


def fec(dev: str) -> str:
    """The configured modes. ethtool 6.1 (the guest's) labels them "Supported/Configured FEC
    encodings"; the selftest's older ethtool said "Configured FEC encodings" (ethtool's
    commit renaming it; seen in the guest's first run)."""
    got = ethtool_fields("--show-fec", dev)
    return got.get("Supported/Configured FEC encodings", got.get("Configured FEC encodings", ""))


def test_netdevsim_fec_set_and_restored(nsim: Nsim, tmp_path: Path) -> None:
    dev = nsim.ifname
    assert fec(dev) == "None"  # as ethtool-fec.sh finds a new device
    none = write_profile(tmp_path / "n.toml", f'[interface]\nname = "{dev}"\nfec = "rs"\n')
    refused = tuitune("apply", str(none), check=False)
    assert refused.returncode == 1 and "Traceback" not in refused.stdout + refused.stderr
    assert "could not be put back" in refused.stdout + refused.stderr, refused
    assert fec(dev) == "None"
    # The selftest's first step by hand, as a driver's own starting mode: auto.
    subprocess.run(["ethtool", "--set-fec", dev, "encoding", "auto"], check=True)
    assert fec(dev) == "Auto"
    tuitune("apply", str(none))
    assert fec(dev) == "RS" and ethtool_fields("--show-fec", dev)["Active FEC encoding"] == "RS"
    tuitune("restore")
    assert fec(dev) == "Auto"


def test_a_governor_where_the_guest_has_no_cpufreq_is_refused(tmp_path: Path) -> None:
    if CPUFREQ.is_dir() and any(CPUFREQ.glob("policy*")):
        pytest.skip("this guest has cpufreq: the refusal is for hosts without it")
    plat = show_json("lo")["platform"]["cpu_power"]
    assert plat["frequency"]["unavailable"] == "unsupported", plat
    gov = write_profile(tmp_path / "g.toml", '[cpu]\ngovernor = "performance"\n')
    refused = tuitune("apply", str(gov), check=False)
    assert refused.returncode == 1 and "Traceback" not in refused.stdout + refused.stderr
    assert "no cpufreq here" in refused.stdout + refused.stderr, refused
    tuitune("restore")  # nothing was written, nothing to put back: exit 0


def test_e1000e_copybreak_through_the_journal_and_modprobe_d(nics: Nics, tmp_path: Path) -> None:
    before = COPYBREAK.read_text().strip()
    assert COPYBREAK.stat().st_mode & 0o200, "copybreak is 0644 in e1000e's netdev.c"
    want = "128" if before != "128" else "192"
    prof = write_profile(tmp_path / "m.toml", f"[module_params.e1000e]\ncopybreak = {want}\n")
    tuitune("apply", str(prof))
    assert COPYBREAK.read_text().strip() == want
    out = tmp_path / "export"
    tuitune("export", nics.e1000e, "--out", str(out))
    conf = (out / "90-tuitune-e1000e.conf").read_text()
    assert f"options e1000e copybreak={want}\n" in conf
    assert "update-initramfs -u" in conf  # e1000e may load from the initramfs: said
    tuitune("restore")
    assert COPYBREAK.read_text().strip() == before
