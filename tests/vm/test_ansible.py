"""Issue 17's must-show in the VM bench's guest: the generated playbook run for real with
`ansible-playbook -c local` on a real NIC (the e1000e), against the guest's own /etc, udevd
and kernel.

The NIC is tuned through `tuitune apply`, exported with `--ansible` (matched by ID_PATH, the
default), and put back with `tuitune restore`. Then the real run installs the files and the
kernel holds the values (the handlers load the sysctl file and replay the device's add event
for udevd), and `tuitune verify --installed` finds no difference. The NIC is renamed
between the export and the run: the rules find it by ID_PATH. The same run installs tuitune
itself (`--install-tuitune`, issue 39) from the wheelhouse the role ships, with the guest's own
Python and no index, and that installed command verifies the host.

One real run in all: under TCG each `ansible-playbook` costs minutes. That `--check` (and
`--check --diff`) writes nothing and that a second run has changed=0 is proven on the host by
tests/unit/core/export/test_export_ansible.py, on the same generated playbook.

The guest's /etc is a throwaway overlay whose tuitune directories are the bench's persist
directories (tests/vm/guest.sh), shared with the reboot test that runs last: each test takes
out every file it installed and puts the kernel's values back, even when it fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.core.export.test_export_ansible import ansible_env, ansible_playbook, recap

from .conftest import Nics, sh, sysctl, tuitune, wait_carrier, write_profile

pytestmark = pytest.mark.vm

ETC_DIRS = ("sysctl.d", "udev/rules.d", "systemd/system", "systemd/network", "tuitune")
SYSCTL = "net.core.somaxconn"
PROFILE = f"""
[sysctl]
"{SYSCTL}" = "8192"

[interface]
mtu = 4000
txqueuelen = 3000

[interface.rps_cpus]
"rx-0" = "1"
"""
TUNED = {"mtu": "4000", "txqueuelen": "3000", "rx-0 rps": "2", SYSCTL: "8192"}


def kernel(dev: str) -> dict[str, str]:
    """What the guest's kernel holds, read from sysfs and sysctl."""
    net = Path("/sys/class/net") / dev
    return {
        "mtu": (net / "mtu").read_text().strip(),
        "txqueuelen": (net / "tx_queue_len").read_text().strip(),
        "rx-0 rps": (net / "queues/rx-0/rps_cpus").read_text().strip().lstrip("0,") or "0",
        SYSCTL: sysctl(SYSCTL),
    }


def etc_files() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for d in ETC_DIRS:
        for p in sorted(Path("/etc", d).rglob("*")):
            if p.is_file():
                out[str(p)] = p.read_bytes()
    return out


def play(book: Path, tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        ansible_playbook(), "-i", "localhost,", "-c", "local",
        "-e", "tuitune_hosts=localhost", "-e", f"ansible_python_interpreter={sys.executable}",
        *extra, str(book / "playbook.yml"),
    ]  # fmt: skip
    # The guest's /root is read-only (its root filesystem is the host's): Ansible's remote
    # temporary files go under `tmp` too.
    env = ansible_env(tmp) | {"ANSIBLE_REMOTE_TMP": str(tmp / "ansible/remote")}
    # Each task's time, kept in the run's directory for the reader of a CI run (ansible-core's
    # own junit callback, OUT/ansible-junit/): this run is the guest's longest test.
    out = os.environ.get("TUITUNE_VM_OUT")
    if out:
        env |= {"ANSIBLE_CALLBACKS_ENABLED": "junit", "JUNIT_OUTPUT_DIR": f"{out}/ansible-junit"}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp, timeout=2400)


@contextlib.contextmanager
def put_back(dev: str) -> Iterator[dict[str, str]]:
    """The NIC's values and the /etc files as they were, set again on the way out (the
    play's changes are in no journal, so `tuitune restore` cannot undo them)."""
    before, files = kernel(dev), etc_files()
    try:
        yield before
    finally:
        for path in set(etc_files()) - set(files):
            Path(path).unlink()
        for path, data in files.items():
            Path(path).write_bytes(data)
        subprocess.run(["udevadm", "control", "--reload"], check=False)
        net = Path("/sys/class/net") / dev
        if net.exists():
            sh("ip", "link", "set", dev, "mtu", before["mtu"], "txqueuelen", before["txqueuelen"])
            (net / "queues/rx-0/rps_cpus").write_text(before["rx-0 rps"])
        sh("sysctl", "-qw", f"{SYSCTL}={before[SYSCTL]}")


def tune_export_restore(dev: str, tmp: Path, before: dict[str, str]) -> Path:
    tuitune("apply", str(write_profile(tmp / "tuned.toml", PROFILE)), dev)
    assert kernel(dev) == TUNED
    book = tmp / "play"
    house = str(host_wheelhouse())
    ran = tuitune("export", dev, "--ansible", "--out", str(book), "--install-tuitune", house)
    assert "matching the NIC by ID_PATH" in ran.stderr  # the fleet default, on a real PCI NIC
    rules = book / f"roles/tuitune_nic/templates/etc/udev/rules.d/90-tuitune-{dev}.rules.j2"
    text = rules.read_text()
    assert "ID_PATH}" in text and '"pci-' in text and f'"{dev}"' not in text
    tuitune("restore")
    assert kernel(dev) == before != TUNED
    return book


def test_ansible_playbook_installs_finds_a_renamed_nic_and_verifies(
    nics: Nics, tmp_path: Path
) -> None:
    """Exported while the NIC had one name, run once it has another (as on a host that names
    the same slot's card otherwise): udev's rules match ID_PATH, not the name. The one real
    run installs the files, the kernel holds the values under the new name, and `verify
    --installed`, run by the tuitune the same run installed, finds no difference. (These were
    two tests with a run each; under TCG a run costs ~500 s, so one run carries every check.)"""
    old, new = nics.e1000e, "tt-renamed0"
    with put_back(old) as before:
        book = tune_export_restore(old, tmp_path, before)
        sh("ip", "link", "set", old, "down")
        sh("ip", "link", "set", old, "name", new)
        try:
            sh("ip", "link", "set", new, "up")
            done = play(book, tmp_path, "-e", f"tuitune_iface={new}", *install_vars(tmp_path))
            assert done.returncode == 0, done.stdout + done.stderr
            assert recap(done.stdout)["changed"] > 0
            assert kernel(new) == TUNED
            # The files carry the name the run was given.
            assert Path(f"/etc/udev/rules.d/90-tuitune-{new}.rules").is_file()
            assert Path("/etc/sysctl.d/90-tuitune.conf").is_file()
            # Issue 39: the same run installed tuitune from the wheelhouse the role ships (no
            # index), with the guest's own Python; that install's `verify --installed` reads
            # the files as written and the renamed NIC on the guest's kernel as tuned.
            command = tmp_path / "inst/bin/tuitune"
            assert os.readlink(command) == str(tmp_path / "inst/venv/bin/tuitune")
            site = next((tmp_path / "inst/venv/lib").glob("python3*/site-packages"))
            assert not list(site.glob("textual/__pycache__/*.pyc"))  # no-bytecode was heeded
            verified = subprocess.run(
                [str(command), "verify", "--installed"], capture_output=True, text=True, timeout=900
            )
            assert "every setting matches" in verified.stdout, verified.stdout + verified.stderr
            shown = subprocess.run(
                [str(command), "show", "--json", new], capture_output=True, text=True, timeout=900
            )
            assert shown.returncode == 0, shown.stderr
            assert json.loads(shown.stdout)["interface"]["link"]["mtu"] == int(TUNED["mtu"])
        finally:
            name_back(new, old)


def install_vars(tmp: Path) -> tuple[str, ...]:
    """The install under `tmp`, not the guest's /opt and /usr/local: the guest's
    /usr/local/bin/tuitune is the checkout's, which the reboot test's unit runs in boot 2."""
    inst = tmp / "inst"
    return (
        "-e", f"tuitune_venv={inst}/venv",
        "-e", f"tuitune_command={inst}/bin/tuitune",
        "-e", f"tuitune_datadir={inst}/share",
        "-e", f"tuitune_wheelhouse={inst}/wheelhouse",
        "-e", "tuitune_install_python=/usr/bin/python3",
        # pip's bytecode of every module was 60 % of the install's CPU (5.7 s against 2.3 s
        # natively here; ~140 of 237 s under TCG); the host's test_export_ansible installs
        # with it, as the role does by default.
        "-e", "tuitune_install_bytecode=false",
    )  # fmt: skip


def host_wheelhouse(limit: float = 900) -> Path:
    """The wheelhouse the host's test command builds from the start (scripts/tiers.py, or
    scripts/vm when run alone), in the run's directory the guest shares: its `built` marker
    is written once the build is whole. The guest has no index to build one from."""
    top = Path(os.environ["TUITUNE_VM_OUT"]) / "wheelhouse"
    end = time.monotonic() + limit
    while not (top / "built").is_file():
        assert time.monotonic() < end, f"no wheelhouse built in {top} within {limit} s"
        time.sleep(2)  # the host writes it through the shared directory: no event reaches us
    return top / "wheelhouse"


def name_back(new: str, old: str) -> None:
    sh("ip", "link", "set", new, "down")
    # udevd may keep the old name as an alternative name of the renamed device.
    alt = ["ip", "link", "property", "del", "dev", new, "altname", old]
    subprocess.run(alt, capture_output=True, check=False)
    back = subprocess.run(["ip", "link", "set", new, "name", old], capture_output=True)
    assert back.returncode == 0, back.stderr.decode() + sh("ip", "link", "show", new)
    sh("ip", "link", "set", old, "up")
    wait_carrier(old)  # the NIC as it was found, link up, for the tests after this one
