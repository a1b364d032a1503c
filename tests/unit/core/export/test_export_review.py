"""What a sysadmin reading the exports would object to (issue 22 #23): a page-counted sysctl
bigger than the machine, rules that fire only on "add" without saying how to replay one, and
a .link file beside rules that set the same values without saying which one the device keeps.
"""

from __future__ import annotations

from pathlib import Path

from tuitune.core.export import Change, DeviceMatch, ExportContext, build_plan
from tuitune.core.export.preview import read_now
from tuitune.core.host.root import HostRoot
from tuitune.core.session import Key

TCP_MEM = Key.sysctl("net.ipv4.tcp_mem")
GIB = 1 << 30


def _ctx(**kw: object) -> ExportContext:
    base: dict[str, object] = {
        "ifname": "eth2",
        "match": DeviceMatch(kind="name", value="eth2"),
        "now": 1735812000.0,
        "systemd_version": 252,
    }
    base.update(kw)
    return ExportContext(**base)  # type: ignore[arg-type]


def _ram(**kw: object) -> ExportContext:
    return _ctx(mem_total=8 * GIB, page_size=4096, **kw)


def test_a_tcp_mem_in_bytes_is_flagged_against_ram() -> None:
    """9961472 "pages" is 38 GiB: bytes typed where the kernel counts pages."""
    slip = Change(TCP_MEM, "91722 122298 183444", "4980736 6641664 9961472")
    plan = build_plan([slip], _ram(), ("sysctl",), read_installed=False)
    [f] = plan.files
    said = (
        "net.ipv4.tcp_mem counts pages of 4096 bytes: 9961472 pages is 38.0 GiB, more than "
        "the 8.0 GiB of RAM here (bytes where pages were meant?)"
    )
    assert said in f.warnings
    assert f"# WARNING: {said}\nnet.ipv4.tcp_mem = 4980736 6641664 9961472\n" in f.text
    sane = Change(TCP_MEM, "91722 122298 183444", "183444 244596 366888")  # 1.4 GiB
    [f] = build_plan([sane], _ram(), ("sysctl",), read_installed=False).files
    assert not f.warnings and "WARNING" not in f.text
    # RAM unknown (a tree without meminfo): nothing to compare with, no guess.
    [f] = build_plan([slip], _ctx(mem_total=None), ("sysctl",), read_installed=False).files
    assert not f.warnings


def test_mem_total_from_meminfo(tmp_path: Path) -> None:
    from tuitune.core.export.context import _mem_total

    (tmp_path / "proc").mkdir()
    (tmp_path / "sys").mkdir()
    (tmp_path / "proc/meminfo").write_text("MemTotal:        8039548 kB\nMemFree: 1 kB\n")
    assert _mem_total(HostRoot.fixture(tmp_path)) == 8039548 * 1024


def test_rules_say_they_run_on_add_and_how_to_replay_it() -> None:
    mtu = Change(Key.mtu("eth2"), "1500", "9000")
    plan = build_plan([mtu], _ctx(), ("udev", "link"), read_installed=False)
    [rules] = plan.by_format("udev")
    [link] = plan.by_format("link")
    assert '# Only "add" events run these rules' in rules.text
    assert "#   udevadm trigger --action=add /sys/class/net/eth2\n" in rules.text
    # Both set MTU 9000; each file says the rules run later in the same event and stay.
    assert "these rules\n# run after it, so where the two ever differ, the value here is" in (
        rules.text
    )
    assert "where\n# the two ever differ, the rules' value is the one that stays." in link.text
    steps = read_now(plan.files, None, "eth2")
    assert steps[1] == (
        "to have them read now: udevadm control --reload; "
        "udevadm trigger --action=add /sys/class/net/eth2"
    )
    # A device in a namespace: the host's udevd does not see it, no trigger to offer.
    assert "trigger" not in read_now(plan.files, "lab", "eth2")[1]
