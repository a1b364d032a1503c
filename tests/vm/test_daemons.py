"""What runs beside the session, in the bench's guest: the real irqbalance daemon (Debian's,
started here only: on the host it is masked), stopped through the journal and started again as
it ran; and the trial watchdog, which puts an MTU change on the real e1000e back after its
deadline when the process holding the trial was killed."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

from .conftest import Nics, affinity_list, queue_irqs, sh, show_json, tuitune

pytestmark = pytest.mark.vm

IRQBALANCE = "/usr/sbin/irqbalance"


def irqbalance_pids() -> list[int]:
    run = subprocess.run(["pgrep", "-x", "irqbalance"], capture_output=True, text=True)
    return [int(p) for p in run.stdout.split()]


def wait_for(what: str, ok: object, limit: float = 180.0) -> None:
    """Poll (bounded) for something a detached process does; TCG makes it slow."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if ok():
            return
        time.sleep(0.5)
    pytest.fail(f"{what}: not within {limit} s")


def gone(why: object = "") -> None:
    """irqbalance no longer listed by pgrep. tuitune calls it stopped once its command line
    is gone (its memory released on the way out); pgrep, which matches the name in
    /proc/PID/stat, still lists it until it has exited and its parent (this test, or init)
    reaped it: under load that is later (cc15: pid 385 still listed just after the stop)."""
    wait_for(f"irqbalance gone {why}", lambda: irqbalance_pids() == [], limit=60)


@pytest.fixture
def irqbalance() -> Iterator[None]:
    if not Path(IRQBALANCE).exists():
        pytest.fail("irqbalance is not installed (scripts/vm setup installs it)")
    Path("/run/irqbalance").mkdir(exist_ok=True)
    # The test before may have left one exiting (pgrep lists it until it is reaped): the
    # daemon this test judges is the one it starts, so none other runs when it starts. The
    # Popen object is not kept: subprocess reaps it at its next start (each pgrep) once a
    # stop by tuitune ends it; held here, it would stay a zombie pgrep lists.
    gone("before the fixture starts one")
    subprocess.Popen(
        [IRQBALANCE, "--foreground"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd="/",
    )
    wait_for("irqbalance started", lambda: irqbalance_pids())
    yield
    for pid in irqbalance_pids():  # the fixture's, or one tuitune's restore started again
        subprocess.run(["kill", str(pid)], check=False)
    gone("after the fixture")


def test_irqbalance_is_seen_stopped_and_started_again_as_it_ran(
    nics: Nics, irqbalance: None, tmp_path: Path
) -> None:
    assert show_json(nics.virtio)["host"]["irqbalance"]["running"] is True
    first = irqbalance_pids()
    argv = Path(f"/proc/{first[0]}/cmdline").read_bytes()
    key = Key.service("irqbalance")
    with HostAccess(HostRoot()) as access, Journal.open(access, tmp_path / "j") as j:
        was = access.read(key)
        assert was == f"running: {IRQBALANCE} --foreground", was
        out = j.apply(key, "stopped")
        assert out.status == "changed", out
        gone()
        assert j.originals()[key] == was  # the stop is journaled with how it ran
        assert all(o.ok for o in j.revert_all())
    wait_for("irqbalance started again", lambda: irqbalance_pids())
    again = irqbalance_pids()
    assert again != first
    assert Path(f"/proc/{again[0]}/cmdline").read_bytes() == argv


TRIAL_HOLDER = """
import sys, time
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
dev = sys.argv[1]
access = HostAccess(HostRoot())
j = Journal.open(access)  # the default directory, where the watchdog and restore look
out, trial = j.apply_trial(Key.mtu(dev), "1400", seconds=5)
assert out.status == "changed" and trial is not None, out
print("ready", flush=True)
time.sleep(3600)
"""


def mtu(dev: str) -> str:
    return Path(f"/sys/class/net/{dev}/mtu").read_text().strip()


def test_trial_watchdog_reverts_the_mtu_after_a_kill(nics: Nics) -> None:
    dev = nics.e1000e
    before = mtu(dev)
    assert before != "1400"
    child = subprocess.Popen(
        [sys.executable, "-c", TRIAL_HOLDER, dev], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        assert mtu(dev) == "1400"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    # Nobody confirms: the detached watchdog puts it back after the deadline.
    wait_for("the watchdog put the MTU back", lambda: mtu(dev) == before)
    assert f"mtu {before}" in sh("ip", "link", "show", dev)
    # An MTU change resets the e1000e; its link comes up later, and on link-up the driver
    # renegotiates flow control (e1000e_config_fc_after_link_up). Left mid-reset, the next
    # test's pause write raced that renegotiation (RX read back on after it set it off).
    carrier = Path(f"/sys/class/net/{dev}/carrier")
    wait_for("the e1000e's link came up again", lambda: carrier.read_text().strip() == "1")


def advise(dev: str, journal_dir: Path, *more: str) -> dict[str, Any]:
    ran = tuitune(
        "advise",
        dev,
        "--json",
        "--seconds",
        "1",
        "--journal-dir",
        str(journal_dir),
        *more,
        check=False,
    )
    assert ran.returncode in (0, 1), ran  # 1: some other finding is a bottleneck
    doc: dict[str, Any] = json.loads(ran.stdout)
    return doc


def test_advisor_sees_the_real_irqbalance(nics: Nics, irqbalance: None, tmp_path: Path) -> None:
    """`irqbalance-active` against Debian's daemon running in the guest: a note while tuitune
    placed nothing, a finding naming the daemon's pid once the journal holds a queue IRQ it
    placed, and `advise --apply irqbalance-active` stops the real daemon through the journal
    (restore starts it again as it ran)."""
    dev, jdir = nics.virtio, tmp_path / "j"
    pids = irqbalance_pids()
    doc = advise(dev, jdir)
    assert "irqbalance-active" not in [f["id"] for f in doc["findings"]], doc
    assert "irqbalance-active" in [n["rule"] for n in doc["notes"]], doc
    queue = sorted(queue_irqs(dev))[0]
    prof = tmp_path / "pin.toml"
    cpu = "3" if affinity_list(queue_irqs(dev)[queue]) != "3" else "2"
    prof.write_text(f'[interface]\nname = "{dev}"\n[interface.irq_affinity]\n"{queue}" = "{cpu}"\n')
    tuitune("apply", str(prof), "--journal-dir", str(jdir))
    doc = advise(dev, jdir)
    found = [f for f in doc["findings"] if f["id"] == "irqbalance-active"]
    # The notes and the IRQ's affinities in full: pytest elides a long doc's repr, and cc18's
    # one failure here (under load; not reproduced alone) kept only the findings' start.
    assert len(found) == 1, (
        [n for n in doc["notes"] if "irqbalance" in json.dumps(n)],
        [f["id"] for f in doc["findings"]],
        {q: affinity_list(i) for q, i in queue_irqs(dev).items()},
    )
    assert found[0]["severity"] == "risk", found
    assert f"irqbalance pid {pids[0]}" in found[0]["evidence"][0], found
    assert [c["value"] for c in found[0]["change"]] == ["stopped"], found
    ran = tuitune(
        "advise",
        dev,
        "--seconds",
        "1",
        "--journal-dir",
        str(jdir),
        "--apply",
        "irqbalance-active",
        check=False,
    )
    gone(ran)
    # irqbalance may have moved the pinned IRQ meanwhile: that is someone else's change.
    tuitune("restore", "--journal-dir", str(jdir), "--force")
    wait_for("irqbalance started again", lambda: irqbalance_pids())
