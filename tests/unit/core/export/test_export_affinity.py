"""IRQ affinity by queue name: the file export writes, `tuitune apply-affinity` resolving the
names on a recorded host whose IRQ numbers moved (as after a reboot or a driver reload), the
irqbalance policy script and config, and the re-apply when the link comes up."""

from __future__ import annotations

import os
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.session_fakes import build_host
from tuitune.core.export import DeviceMatch, ExportContext
from tuitune.core.export import affinity as aff

DEV = "eno49"
PROFILE = """
[interface.irq_affinity]
"eno49-TxRx-0" = "2"
"eno49-TxRx-1" = "0-1"
"""


def proc(tree: Path, rel: str) -> str:
    return (tree / "proc" / rel).read_text().strip()


def reboot(tree: Path, moves: dict[str, str]) -> None:
    """What a reboot does to IRQs: new numbers for the same queues, default affinity."""
    interrupts = tree / "proc/interrupts"
    text = interrupts.read_text()
    for old, new in moves.items():
        text = text.replace(f" {old}:", f" {new}:")
        irq = tree / f"proc/irq/{new}"
        irq.mkdir(parents=True, exist_ok=True)
        (irq / "smp_affinity_list").write_text("0-3\n")
        (irq / "effective_affinity_list").write_text("0\n")
    interrupts.write_text(text)


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    yield build_host(tmp_path / "host")


def test_export_install_then_apply_after_the_irq_numbers_moved(tmp_path: Path, tree: Path) -> None:
    profile = tmp_path / "pins.toml"
    profile.write_text(PROFILE)
    journal = tmp_path / "journal"
    res = tuitune("apply", profile, DEV, "--root", tree, "--journal-dir", journal)
    assert res.returncode == 0, res.stdout + res.stderr
    res = tuitune("export", DEV, "--root", tree, "--journal-dir", journal, "--install")
    assert res.returncode == 0, res.stderr
    conf = tree / "etc/tuitune/affinity-eno49.conf"
    assert f"wrote {conf}" in res.stdout
    pins = aff.parse(conf.read_text())
    assert [(p.queue, p.cpus) for p in pins] == [("eno49-TxRx-0", "2"), ("eno49-TxRx-1", "0-1")]
    assert (tree / "etc/systemd/system/tuitune-affinity@.service").exists()
    assert (
        'ENV{SYSTEMD_WANTS}+="tuitune-affinity@eno49.service"'
        in (tree / "etc/udev/rules.d/91-tuitune-affinity-eno49.rules").read_text()
    )

    reboot(tree, {"101": "160", "102": "161"})
    res = tuitune("apply-affinity", DEV, "--root", tree)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "IRQ 160 (eno49-TxRx-0): 0-3 -> 2",
        "IRQ 161 (eno49-TxRx-1): 0-3 -> 0-1",
    ]
    assert proc(tree, "irq/160/smp_affinity_list") == "2"
    assert proc(tree, "irq/161/smp_affinity_list") == "0-1"
    # Applying again changes nothing and says so.
    res = tuitune("apply-affinity", DEV, "--root", tree)
    assert res.stdout.splitlines()[0] == "IRQ 160 (eno49-TxRx-0): already 2"


def test_a_queue_without_an_irq_or_an_offline_cpu_fails_loudly(tmp_path: Path, tree: Path) -> None:
    conf = tmp_path / "a.conf"
    conf.write_text("eno49-TxRx-0 = 3\neno49-TxRx-7 = 1\neno49-TxRx-1 = 2\n")
    res = tuitune("apply-affinity", DEV, "--root", tree, "--file", conf)
    assert res.returncode == 1
    lines = res.stdout.splitlines()
    assert lines[0].startswith("IRQ 101 (eno49-TxRx-0): NOT set: ")
    assert "offline" in lines[0]
    assert lines[1] == "eno49-TxRx-7: NOT set: no IRQ serves it now"
    assert lines[2] == "IRQ 102 (eno49-TxRx-1): 1 -> 2"


def test_a_bad_line_changes_nothing(tmp_path: Path, tree: Path) -> None:
    conf = tmp_path / "a.conf"
    conf.write_text("eno49-TxRx-0 = 1\neno49-TxRx-1 = $(reboot)\n")
    res = tuitune("apply-affinity", DEV, "--root", tree, "--file", conf)
    assert res.returncode == 1
    assert "line 2:" in res.stderr and "nothing was changed" in res.stderr
    assert proc(tree, "irq/101/smp_affinity_list") == "0-3"


def test_a_missing_file_says_how_to_make_one(tree: Path) -> None:
    res = tuitune("apply-affinity", DEV, "--root", tree)
    assert res.returncode == 2
    assert "tuitune export eno49 --format affinity" in res.stderr


def _ctx(etc: Path) -> ExportContext:
    return ExportContext(ifname=DEV, match=DeviceMatch("mac", "00:1b:21:00:00:01"), etc=etc)


def test_the_policy_script_bans_the_pinned_queues_irqs(tmp_path: Path, tree: Path) -> None:
    etc = tmp_path / "etc"
    (etc / "tuitune").mkdir(parents=True)
    (etc / "tuitune/affinity-eno49.conf").write_text("# x\neno49-TxRx-0 = 2\n")
    script = tmp_path / "policy.sh"
    script.write_text(aff.policy_script(_ctx(etc)))
    # /proc/irq/N/NAME/ is a directory per handler: how the script finds a queue's IRQ.
    (tree / "proc/irq/160/eno49-TxRx-0").mkdir(parents=True)
    (tree / "proc/irq/102/eno49-TxRx-1").mkdir(parents=True)
    env = {**os.environ, "TUITUNE_PROC": str(tree / "proc")}

    def ask(*args: str) -> str:
        return subprocess.run(
            ["sh", str(script), *args], capture_output=True, text=True, env=env, check=True
        ).stdout

    assert ask("/sys/devices/pci0000:00/0000:3b:00.0", "160") == "ban=true\n"
    assert ask("160") == "ban=true\n"  # some irqbalance versions pass no device path
    assert ask("/sys/devices/x", "102") == ""  # a queue tuitune does not pin
    assert ask("/sys/devices/x", "1;reboot") == ""


def test_irqbalance_config_gets_the_policy_script() -> None:
    arg = "--policyscript=/etc/tuitune/irqbalance-policy.sh"
    text = '#IRQBALANCE_ONESHOT=\nIRQBALANCE_ARGS="--hintpolicy=exact"\n'
    new, problem = aff.add_policy_arg(text, arg)
    assert problem is None
    assert new == f'#IRQBALANCE_ONESHOT=\nIRQBALANCE_ARGS="--hintpolicy=exact {arg}"\n'
    assert aff.add_policy_arg(new, arg) == (new, None)  # already there: unchanged
    new, problem = aff.add_policy_arg("#IRQBALANCE_ARGS=\n", arg)
    assert new.endswith(f'IRQBALANCE_ARGS="{arg}"\n') and problem is None
    same, problem = aff.add_policy_arg('IRQBALANCE_ARGS="--policyscript=/usr/local/x"\n', arg)
    assert problem is not None and "already has a policy script" in problem
    same, problem = aff.add_policy_arg('IRQBALANCE_ARGS="$(evil)"\n', arg)
    assert problem is not None and same == 'IRQBALANCE_ARGS="$(evil)"\n'


def test_follow_reapplies_each_time_the_link_comes_up() -> None:
    up, down = aff.IFF_UP | aff.IFF_LOWER_UP, 0
    events = iter(
        [
            aff.LinkEvent("eth9", up, False),  # another interface
            aff.LinkEvent(DEV, aff.IFF_UP, False),  # admin up: the driver reopened it
            aff.LinkEvent(DEV, up, False),  # carrier up as well
            aff.LinkEvent(DEV, up, False),  # no edge: nothing to do
            aff.LinkEvent(DEV, down, False),
            aff.LinkEvent(DEV, aff.IFF_UP, False),
            aff.LinkEvent(DEV, 0, True),  # gone: stop
            aff.LinkEvent(DEV, up, False),
        ]
    )
    calls: list[int] = []
    why = aff.follow(events, DEV, lambda: calls.append(1), flags=0)
    assert why == "eno49 is gone"
    assert len(calls) == 3


def test_link_messages_are_parsed() -> None:
    name = DEV.encode() + b"\0"
    rta = struct.pack("=HH", 4 + len(name), aff.IFLA_IFNAME) + name
    rta += b"\0" * (-len(rta) % 4)
    body = struct.pack("=BxHiII", 0, 1, 7, aff.IFF_UP, 0xFFFFFFFF) + rta
    msg = struct.pack("=IHHII", 16 + len(body), aff.RTM_NEWLINK, 0, 0, 0) + body
    gone = struct.pack("=IHHII", 16 + len(body), aff.RTM_DELLINK, 0, 0, 0) + body
    assert list(aff.parse_link_messages(msg + gone)) == [
        aff.LinkEvent(DEV, aff.IFF_UP, False),
        aff.LinkEvent(DEV, aff.IFF_UP, True),
    ]
    assert list(aff.parse_link_messages(msg[:20])) == []  # truncated: nothing, no crash
