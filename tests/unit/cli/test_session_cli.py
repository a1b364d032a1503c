"""`tuitune apply` and `tuitune restore` on recorded host trees (no root, no kernel writes):
what they print, their exit status, and what the tree holds afterwards."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.session_fakes import build_host
from tuitune.cli import main
from tuitune.core.host.root import HostRoot
from tuitune.core.jsondoc import show_document
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.watch.hostreader import HostReader

PROFILE = """\
[sysctl]
"net.core.netdev_max_backlog" = 250000
"net.ipv4.tcp_rmem" = [4096, 87380, 16777216]

[interface]
name = "eno49"
txqueuelen = 10000

[interface.rps_cpus]
"*" = "0-2"

[interface.irq_affinity]
"eno49-TxRx-1" = "2"
"""


class Tree:
    def __init__(self, base: Path) -> None:
        self.path = build_host(base / "host")
        self.journal = base / "journal"
        self.args = ["--root", str(self.path), "--journal-dir", str(self.journal)]

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text().strip()

    def state(self) -> dict[str, str]:
        rels = [
            "proc/sys/net/core/netdev_max_backlog",
            "proc/sys/net/ipv4/tcp_rmem",
            "sys/class/net/eno49/tx_queue_len",
            "sys/class/net/eno49/queues/rx-0/rps_cpus",
            "sys/class/net/eno49/queues/rx-1/rps_cpus",
            "proc/irq/102/smp_affinity_list",
        ]
        # Whitespace folded: the kernel prints triples with tabs, tuitune writes spaces.
        return {r: " ".join(self.read(r).split()) for r in rels}


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_apply_then_restore(tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "lab.toml"
    profile.write_text(PROFILE)
    original = tree.state()

    code, out, err = run(capsys, "apply", str(profile), *tree.args, "--dry-run")
    assert (code, err) == (0, "")
    assert "would change net.core.netdev_max_backlog: 1000 -> 250000" in out
    assert tree.state() == original and not tree.journal.exists()

    code, out, err = run(capsys, "apply", str(profile), *tree.args)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:6] == [
        "changed net.core.netdev_max_backlog: 1000 -> 250000",
        "changed net.ipv4.tcp_rmem: 4096 131072 6291456 -> 4096 87380 16777216",
        "changed eno49 txqueuelen: 1000 -> 10000",
        "changed eno49 rx-0 rps_cpus: none -> 0-2",
        "changed eno49 rx-1 rps_cpus: none -> 0-2",
        "changed IRQ 102 (eno49-TxRx-1) affinity: 1 -> 2",
    ]
    assert lines[6].startswith("changed 6 setting(s); `tuitune restore --root ")
    assert tree.read("proc/sys/net/ipv4/tcp_rmem") == "4096 87380 16777216"
    assert tree.read("sys/class/net/eno49/queues/rx-1/rps_cpus") == "7"

    code, out, _ = run(capsys, "apply", str(profile), *tree.args)
    assert code == 0 and out.startswith("nothing to change")

    code, out, _ = run(capsys, "restore", "--list", "--journal-dir", str(tree.journal))
    assert code == 0
    assert "6 setting(s) to restore, no tuitune running" in out
    assert "    IRQ 102 (eno49-TxRx-1) affinity: original 1, tuitune left 2" in out

    code, out, err = run(capsys, "restore", *tree.args)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "put back IRQ 102 (eno49-TxRx-1) affinity: 2 -> 1"
    assert "put back net.core.netdev_max_backlog: 250000 -> 1000" in out
    assert out.splitlines()[-1].endswith("every recorded original is back")
    assert tree.state() == original

    code, out, _ = run(capsys, "restore", *tree.args)
    assert code == 0 and out.startswith("nothing to restore: no journal for tree-")


def test_an_invalid_profile_changes_nothing_and_lists_every_problem(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "bad.toml"
    profile.write_text(
        PROFILE.replace('"*" = "0-2"', '"*" = "0-3"').replace("10000", "-1")
        + "[interface.rings]\nrx = 4096\n"
    )
    original = tree.state()
    code, out, err = run(capsys, "apply", str(profile), *tree.args)
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "tuitune: eno49 rings rx: not recorded in this host tree",
        "tuitune: eno49 txqueuelen: cannot be negative (-1)",
        "tuitune: eno49 rx-0 rps_cpus: CPU 3 is offline (online: 0-2)",
        "tuitune: eno49 rx-1 rps_cpus: CPU 3 is offline (online: 0-2)",
        f"tuitune: nothing was changed: 4 problem(s) in {profile}",
    ]
    assert tree.state() == original and not tree.journal.exists()


def test_apply_usage_errors(tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    code, _, err = run(capsys, "apply", str(profile), "eth7", *tree.args)
    assert code == 2 and err == "tuitune: no interface 'eth7'; interfaces here: eno49\n"
    code, _, err = run(capsys, "apply", str(tmp_path / "nope.toml"), *tree.args)
    assert code == 2 and "cannot read" in err
    code, _, err = run(capsys, "apply", str(profile), "--root", str(tmp_path))
    assert code == 2 and "not a host tree" in err


def test_restore_leaves_drift_alone_unless_forced(
    tree: Tree, capsys: pytest.CaptureFixture[str]
) -> None:
    key = Key.irq(102, "eno49-TxRx-1", "eno49")
    with HostAccess(HostRoot.fixture(tree.path)) as access:
        journal = Journal.open(access, tree.journal)
        journal.apply(key, "0")
        journal.detach()
    (tree.path / "proc/irq/102/smp_affinity_list").write_text("2\n")  # someone else
    code, out, _ = run(capsys, "restore", *tree.args)
    assert code == 1
    assert out.splitlines() == [
        "NOT put back IRQ 102 (eno49-TxRx-1) affinity: changed outside tuitune: now 2, "
        "tuitune had set 0; left alone",
        f"1 setting(s) not restored; still recorded in {tree.journal}/"
        f"{next(tree.journal.glob('*.journal')).name} (--force also overwrites what others "
        "changed)",
    ]
    assert tree.read("proc/irq/102/smp_affinity_list") == "2"
    code, out, _ = run(capsys, "restore", *tree.args, "--force")
    assert code == 0 and "put back IRQ 102 (eno49-TxRx-1) affinity: 2 -> 1" in out
    assert tree.read("proc/irq/102/smp_affinity_list") == "1"


def test_restore_refuses_while_a_tuitune_holds_the_host(
    tree: Tree, capsys: pytest.CaptureFixture[str]
) -> None:
    with HostAccess(HostRoot.fixture(tree.path)) as access:
        journal = Journal.open(access, tree.journal)
        journal.apply(Key.sysctl("net.core.netdev_max_backlog"), "5")
        code, _, err = run(capsys, "restore", *tree.args)
        assert code == 1
        assert err.startswith("tuitune: tuitune (pid ") and "is still running on tree-" in err
        assert tree.read("proc/sys/net/core/netdev_max_backlog") == "5"
        journal.close_restoring()
    assert tree.read("proc/sys/net/core/netdev_max_backlog") == "1000"


def test_a_show_json_snapshot_is_a_state_to_go_back_to(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with HostReader(HostRoot.fixture(tree.path)) as reader:
        doc = show_document(reader.snapshot("eno49"), None)
    saved = tmp_path / "state.json"
    saved.write_text(json.dumps(doc))
    original = tree.state()
    (tree.path / "proc/irq/102/smp_affinity_list").write_text("0-2\n")
    (tree.path / "proc/sys/net/core/netdev_max_backlog").write_text("77\n")
    code, out, _ = run(capsys, "apply", str(saved), *tree.args)
    assert code == 0
    assert out.splitlines()[:2] == [
        "changed net.core.netdev_max_backlog: 77 -> 1000",
        "changed IRQ 102 (eno49-TxRx-1) affinity: 0-2 -> 1",
    ]
    assert tree.state() == original


def test_the_cli_default_journal_dir_is_the_journals() -> None:
    from tuitune.cli import _common
    from tuitune.core.session import DEFAULT_DIR

    assert _common.DEFAULT_JOURNAL_DIR == DEFAULT_DIR


def test_host_wide_sysctls_from_a_namespace_need_host_wide(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`apply --netns` refuses a host-wide sysctl (it changes the whole machine) and says how
    to allow it; with --host-wide it is changed and journaled, and `restore` puts it back."""
    import tuitune.cli.session as cli_session

    # The tree stands for a namespace named "lab" and for the host it lives on.
    monkeypatch.setattr(
        cli_session, "host_root", lambda args: replace(HostRoot.fixture(args.root), netns="lab")
    )
    profile = tmp_path / "wide.toml"
    profile.write_text('[sysctl]\n"net.core.netdev_max_backlog" = 250000\n')
    backlog = "proc/sys/net/core/netdev_max_backlog"

    code, out, err = run(capsys, "apply", str(profile), *tree.args)
    assert code == 1 and out == ""
    assert "host-wide: not changed from inside network namespace 'lab'" in err
    assert "(--host-wide allows it)" in err
    assert tree.read(backlog) == "1000" and not tree.journal.exists()

    code, out, err = run(capsys, "apply", str(profile), *tree.args, "--host-wide")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "changed net.core.netdev_max_backlog: 1000 -> 250000"
    assert tree.read(backlog) == "250000"

    code, out, err = run(capsys, "restore", *tree.args)
    assert (code, err) == (0, "")
    assert "put back net.core.netdev_max_backlog: 250000 -> 1000" in out
    assert tree.read(backlog) == "1000"


def fewer_queues(tree: Tree) -> None:
    """eno49 with one queue pair and one queue IRQ (as a smaller sibling of the saved one)."""
    queues = tree.path / "sys/class/net/eno49/queues"
    for rel in ("rx-1/rps_cpus", "rx-1/rps_flow_cnt", "tx-1/xps_cpus"):
        (queues / rel).unlink()
    (queues / "rx-1").rmdir()
    (queues / "tx-1").rmdir()
    interrupts = tree.path / "proc/interrupts"
    rows = interrupts.read_text().splitlines(keepends=True)
    interrupts.write_text("".join(r for r in rows if "eno49-TxRx-1" not in r))


def test_a_show_json_of_a_device_with_more_queues_applies_what_fits(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 22 item 4: the queues and IRQs this device lacks are skipped, one line each."""
    (tree.path / "sys/class/net/eno49/queues/rx-1/rps_cpus").write_text("6\n")
    (tree.path / "sys/class/net/eno49/queues/rx-0/rps_cpus").write_text("3\n")
    with HostReader(HostRoot.fixture(tree.path)) as reader:
        doc = show_document(reader.snapshot("eno49"), None)
    saved = tmp_path / "state.json"
    saved.write_text(json.dumps(doc))
    (tree.path / "sys/class/net/eno49/queues/rx-0/rps_cpus").write_text("0\n")
    fewer_queues(tree)
    code, out, err = run(capsys, "apply", str(saved), *tree.args)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == [
        "skipped IRQ 102 eno49-TxRx-1: no IRQ named 'eno49-TxRx-1' serves eno49 on this host",
        "skipped eno49 rx-1 rps_cpus: no queue rx-1 (now)",
        "skipped eno49 rx-1 rps_flow_cnt: no queue rx-1 (now)",
        "skipped eno49 tx-1 xps_cpus: no queue tx-1 (now)",
    ]
    assert "changed eno49 rx-0 rps_cpus: none -> 0-1" in lines
    assert lines[-1].startswith("changed 1 setting(s), skipped 4 this device does not have;")
    assert tree.read("sys/class/net/eno49/queues/rx-0/rps_cpus") == "3"


def test_a_profile_raising_channels_applies_the_new_queues_the_second_time(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documented "apply twice": the first apply raises the count and skips the queue it
    does not have yet, the second sets it."""
    from tests.support.session_fakes import FakeDevice
    from tuitune.core.host.ethtool import Channels
    from tuitune.core.session import Session

    fewer_queues(tree)
    queues = tree.path / "sys/class/net/eno49/queues"

    class Grows(FakeDevice):
        def set_channels(self, rx=None, tx=None, other=None, combined=None):  # type: ignore[no-untyped-def]
            super().set_channels(rx, tx, other, combined)
            for i in range(self.channels_.combined):
                (queues / f"rx-{i}").mkdir(exist_ok=True)
                for f in ("rps_cpus", "rps_flow_cnt"):
                    if not (queues / f"rx-{i}/{f}").exists():
                        (queues / f"rx-{i}/{f}").write_text("0\n")

    dev = Grows("eno49", channels_=Channels(0, 0, 1, 1, 0, 0, 1, 2))
    # The tree's eno49 with an ethtool device (a recorded tree has none of its own).
    monkeypatch.setattr(
        "tuitune.core.session.Session",
        lambda root, **kw: Session(
            root, **kw, access=lambda: HostAccess(root, ethtool=lambda _: dev)
        ),
    )
    profile = tmp_path / "two.toml"
    profile.write_text(
        '[interface]\nname = "eno49"\n[interface.channels]\ncombined = 2\n'
        '[interface.rps_cpus]\n"rx-1" = "2"\n'
    )
    code, out, err = run(capsys, "apply", str(profile), *tree.args)
    assert (code, err) == (0, "")
    assert out.splitlines()[:2] == [
        "skipped eno49 rx-1 rps_cpus: no queue rx-1 (now); if the channel change creates it, "
        "apply again",
        "changed eno49 channels combined: 1 -> 2",
    ]
    code, out, err = run(capsys, "apply", str(profile), *tree.args)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "changed eno49 rx-1 rps_cpus: none -> 2"
    assert tree.read("sys/class/net/eno49/queues/rx-1/rps_cpus") == "4"


def test_a_channel_count_above_the_device_maximum_is_skipped_with_the_maximum(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file from a device with more channels: the count this one cannot take is skipped in
    one line naming its maximum, the count stays, and the rest of the file is applied (issue
    22 item 4); the queue it would have created is not promised by a second apply."""
    from tests.support.session_fakes import FakeDevice
    from tuitune.core.host.ethtool import Channels
    from tuitune.core.session import Session

    fewer_queues(tree)
    dev = FakeDevice("eno49", channels_=Channels(0, 0, 1, 1, 0, 0, 1, 2))
    monkeypatch.setattr(
        "tuitune.core.session.Session",
        lambda root, **kw: Session(
            root, **kw, access=lambda: HostAccess(root, ethtool=lambda _: dev)
        ),
    )
    profile = tmp_path / "big.toml"
    profile.write_text(
        '[interface]\nname = "eno49"\ntxqueuelen = 5000\n[interface.channels]\ncombined = 8\n'
        '[interface.rps_cpus]\n"rx-0" = "1"\n"rx-5" = "2"\n'
    )
    code, out, err = run(capsys, "apply", str(profile), *tree.args)
    assert (code, err) == (0, ""), out
    lines = out.splitlines()
    assert "skipped eno49 channels combined: 8 is above the maximum 2 of this device" in lines
    assert "skipped eno49 rx-5 rps_cpus: no queue rx-5 (now)" in lines
    assert "changed eno49 txqueuelen: 1000 -> 5000" in lines
    assert dev.channels_.combined == 1
    assert tree.read("sys/class/net/eno49/queues/rx-0/rps_cpus") == "2"


def test_restore_list_names_one_host_when_told_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`restore --list --netns X` (or --root) lists X's journal, the one `restore` with the
    same options reads, not every journal in the directory (issue 22 #22)."""
    first, second = Tree(tmp_path / "a"), Tree(tmp_path / "b")
    second.journal = first.journal  # two hosts' journals in one directory
    second.args[-1] = str(first.journal)
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    for tree in (first, second):
        code, _, _ = run(capsys, "apply", str(profile), *tree.args)
        assert code == 0
    code, out, _ = run(capsys, "restore", "--list", "--journal-dir", str(first.journal))
    assert code == 0 and out.count("6 setting(s) to restore") == 2
    code, out, _ = run(capsys, "restore", "--list", *second.args)
    assert code == 0 and out.count("6 setting(s) to restore") == 1
    assert out.startswith("tree-") and str(first.journal) in out
    code, out, _ = run(capsys, "restore", "--list", "--netns", "tt-none-here", "--journal-dir",
                       str(first.journal))  # fmt: skip
    assert (code, out) == (0, f"no change journal for netns-tt-none-here in {first.journal}\n")


def test_cpu_power_from_a_namespace_needs_host_wide(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`apply --netns` with a profile's [cpu] governor: the governor is the whole machine's
    (/sys is the host's from any namespace), so it is refused as a host-wide sysctl is, with
    how to allow it, and nothing is written (it was written unasked); --host-wide changes it.
    A show document's CPU power is left out in a namespace: one line on stderr says so."""
    import tuitune.cli.session as cli_session
    from tests.support.platform_trees import TREE_OWNS, pepc_tree

    pepc_tree(tree.path, "clx2s0", keep=TREE_OWNS)  # intel_pstate, powersave on CPUs 0-7
    governor = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor"
    assert tree.read(governor) == "powersave"
    # Saved on the host: the document holds its CPU power too.
    code, doc, _ = run(capsys, "show", "--json", "eno49", "--root", str(tree.path))
    assert code == 0 and json.loads(doc)["platform"]["cpu_power"]
    monkeypatch.setattr(
        cli_session, "host_root", lambda args: replace(HostRoot.fixture(args.root), netns="lab")
    )
    profile = tmp_path / "cpu.toml"
    profile.write_text('[cpu]\ncpus = "0"\ngovernor = "performance"\n')

    code, out, err = run(capsys, "apply", str(profile), *tree.args)
    assert code == 1 and out == ""
    assert "host-wide: not changed from inside network namespace 'lab'" in err
    assert "(--host-wide allows it)" in err
    assert tree.read(governor) == "powersave" and not tree.journal.exists()

    shown = tmp_path / "shown.json"
    shown.write_text(doc)
    code, out, err = run(capsys, "apply", str(shown), *tree.args, "--dry-run")
    assert code == 0, err
    assert "host-wide setting(s) left out" in err and "--host-wide applies them" in err
    assert tree.read(governor) == "powersave"

    code, out, err = run(capsys, "apply", str(profile), *tree.args, "--host-wide")
    assert (code, err) == (0, ""), err
    assert "performance" in out and tree.read(governor) == "performance"
