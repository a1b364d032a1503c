"""irqbalance as a journaled setting, on made-up /proc trees: how a running daemon is read (argv,
IRQBALANCE_* variables, systemd unit; zombies and kernel threads do not count), what may be
written, and the systemd path end to end with a fake systemctl that edits the tree. The real
process path (SIGTERM, re-exec) is tests/kernel/test_session_service.py."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.session_fakes import build_host
from tuitune.core.export.build import build_plan
from tuitune.core.export.context import ExportContext
from tuitune.core.export.device import DeviceMatch
from tuitune.core.export.model import Change
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, InvalidValue, Journal, Key
from tuitune.core.session.journal_file import read_records
from tuitune.core.session.profile import Profile, Request, resolve
from tuitune.core.session.service import STOPPED, Services, Way, parse_way

IRQBALANCE = Key.service("irqbalance")
UNIT_CGROUP = "0::/system.slice/irqbalance.service\n"
SHELL_CGROUP = "0::/user.slice/user-0.slice/session-3.scope\n"


def add_process(
    proc: Path,
    pid: int,
    argv: Sequence[str],
    *,
    comm: str = "irqbalance",
    state: str = "S",
    env: Sequence[str] = ("PATH=/usr/bin", "HOME=/root"),
    cgroup: str = SHELL_CGROUP,
) -> None:
    d = proc / str(pid)
    d.mkdir(parents=True)
    (d / "comm").write_text(comm + "\n")
    (d / "cmdline").write_bytes(b"".join(a.encode() + b"\0" for a in argv))
    (d / "stat").write_text(f"{pid} ({comm}) {state} 1 {pid} {pid} 0 -1\n")
    (d / "environ").write_bytes(b"".join(e.encode() + b"\0" for e in env))
    (d / "cgroup").write_text(cgroup)


def proc_root(tmp_path: Path) -> HostRoot:
    """A live-flagged root over a made-up /proc: writes go to the fake systemctl below."""
    (tmp_path / "proc").mkdir()
    return HostRoot(proc=tmp_path / "proc", sys=tmp_path / "sys", live=True)


class FakeSystemctl:
    """systemctl stop/start on the made-up tree: the unit's process goes, or comes back."""

    def __init__(self, proc: Path, argv: Sequence[str]) -> None:
        self.proc, self.argv = proc, list(argv)
        self.calls: list[list[str]] = []

    def __call__(self, argv: Sequence[str]) -> tuple[int, str]:
        self.calls.append(list(argv))
        verb = argv[1]
        if verb == "stop":
            shutil.rmtree(self.proc / "700", ignore_errors=True)
        elif verb == "start":
            add_process(self.proc, 700, self.argv, cgroup=UNIT_CGROUP)
        return 0, ""


def test_a_running_daemon_reads_as_its_command_line_and_irqbalance_variables(
    tmp_path: Path,
) -> None:
    root = proc_root(tmp_path)
    argv = ["/usr/sbin/irqbalance", "--foreground", "--banirq=45", "a b"]
    env = ["PATH=/usr/bin", "IRQBALANCE_BANNED_CPULIST=8-15", "IRQBALANCE_ONESHOT=0"]
    add_process(root.proc, 612, argv, env=env)
    add_process(root.proc, 20, ["sleep", "9"], comm="sleep")
    add_process(root.proc, 30, ["irqbalance"], state="Z")  # a zombie: not running
    add_process(root.proc, 31, [])  # no command line: a kernel thread, not the daemon
    services = Services(root, systemd=False)
    value = services.read(IRQBALANCE)
    assert value == (
        "running: IRQBALANCE_BANNED_CPULIST=8-15 IRQBALANCE_ONESHOT=0 "
        "/usr/sbin/irqbalance --foreground --banirq=45 'a b'"
    )
    # The value is all that is needed to start it again: it parses back to the same way.
    way = parse_way(IRQBALANCE, value)
    assert way == Way(
        argv=tuple(argv),
        env=(("IRQBALANCE_BANNED_CPULIST", "8-15"), ("IRQBALANCE_ONESHOT", "0")),
    )
    shutil.rmtree(root.proc / "612")
    assert services.read(IRQBALANCE) == STOPPED


def test_what_can_be_typed_for_a_service(tmp_path: Path) -> None:
    root = proc_root(tmp_path)
    services = Services(root, systemd=False)
    # Not running: "running" cannot be made up, only put back as it ran.
    with pytest.raises(InvalidValue, match="starts it again only as it ran before"):
        services.validate(IRQBALANCE, "running")
    assert services.validate(IRQBALANCE, "off") == STOPPED
    add_process(root.proc, 612, ["/usr/sbin/irqbalance", "--foreground"])
    assert services.validate(IRQBALANCE, "stop") == STOPPED
    assert services.validate(IRQBALANCE, " running ") == services.read(IRQBALANCE)
    for bad, words in (
        ("", "empty"),
        ("paused", "expected stopped, or running as it ran"),
        ("stopped\nrm -rf /", "one line"),
        ("running: IRQBALANCE_X=1", "no command line"),
        ("running: '/usr/sbin/irqbalance", "quotation"),
        ("running: /bin/sh -c reboot", "not an executable named irqbalance"),
    ):
        with pytest.raises(InvalidValue, match=words):
            services.validate(IRQBALANCE, bad)
    with pytest.raises(InvalidValue, match="only stops irqbalance"):
        services.validate(Key.service("sshd"), "stopped")


def test_copies_started_differently_are_not_stopped(tmp_path: Path) -> None:
    root = proc_root(tmp_path)
    add_process(root.proc, 612, ["/usr/sbin/irqbalance", "--foreground"])
    add_process(root.proc, 613, ["/usr/sbin/irqbalance", "--oneshot"])
    with HostAccess(root, services=Services(root, systemd=False)) as access:
        j = Journal.open(access, tmp_path / "journal")
        out = j.apply(IRQBALANCE, "stopped")
        j.detach()
    assert out.status == "refused"
    assert "several copies started differently run (pids 612, 613)" in (out.reason or "")
    assert (root.proc / "612").exists() and (root.proc / "613").exists()


def test_a_recorded_tree_is_read_but_never_written(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    add_process(tree / "proc", 612, ["/usr/sbin/irqbalance"])
    with HostAccess(HostRoot.fixture(tree)) as access:
        assert access.read(IRQBALANCE) == "running: /usr/sbin/irqbalance"
        j = Journal.open(access, tmp_path / "journal")
        out = j.apply(IRQBALANCE, "stopped")
        j.detach()
    assert out.status == "refused"
    assert out.reason == "irqbalance service: a recorded host tree"


def test_systemd_unit_is_stopped_and_started_through_systemctl(tmp_path: Path) -> None:
    root = proc_root(tmp_path)
    argv = ["/usr/sbin/irqbalance", "--foreground"]
    add_process(root.proc, 700, argv, cgroup=UNIT_CGROUP)
    systemctl = FakeSystemctl(root.proc, argv)
    services = Services(root, systemd=True, runner=systemctl, timeout=2)
    assert services.read(IRQBALANCE) == "running (systemd unit irqbalance.service)"
    tree = build_host(tmp_path / "host")
    with HostAccess(HostRoot.fixture(tree), services=services) as access:
        j = Journal.open(access, tmp_path / "journal")
        out = j.apply(IRQBALANCE, "stopped")
        assert out.status == "changed", out.reason
        assert (out.before, out.after) == ("running (systemd unit irqbalance.service)", STOPPED)
        assert systemctl.calls == [["systemctl", "stop", "irqbalance.service"]]
        # The original is on disk before anything else happens to it.
        origs = [r for r in read_records(j.path) if r.get("t") == "orig"]
        assert origs == [
            {
                "t": "orig",
                "k": IRQBALANCE.to_json(),
                "v": "running (systemd unit irqbalance.service)",
            }
        ]
        [back] = j.revert_all()
        j.close_keeping_changes()
    assert back.status == "changed", back.reason
    assert systemctl.calls[-1] == ["systemctl", "start", "irqbalance.service"]
    assert services.read(IRQBALANCE) == "running (systemd unit irqbalance.service)"


def test_a_failing_systemctl_is_a_refusal_that_changes_nothing(tmp_path: Path) -> None:
    root = proc_root(tmp_path)
    add_process(root.proc, 700, ["/usr/sbin/irqbalance"], cgroup=UNIT_CGROUP)
    calls: list[list[str]] = []

    def denied(argv: Sequence[str]) -> tuple[int, str]:
        calls.append(list(argv))
        return 1, "Access denied"

    services = Services(root, systemd=True, runner=denied, timeout=2)
    with HostAccess(HostRoot.fixture(build_host(tmp_path / "host")), services=services) as acc:
        j = Journal.open(acc, tmp_path / "journal")
        out = j.apply(IRQBALANCE, "stopped")
        assert out.status == "refused"
        assert out.reason == (
            "irqbalance service: systemctl stop irqbalance.service failed: Access denied"
        )
        assert j.originals() == {}  # nothing changed, nothing left to restore
        j.close_keeping_changes()
    assert calls == [["systemctl", "stop", "irqbalance.service"]]


def test_a_profile_never_carries_a_service(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "host")
    profile = Profile(
        "eno49", (Request("service", "irqbalance", "stopped", "[x] irqbalance"),), "t"
    )
    with HostAccess(HostRoot.fixture(tree)) as access:
        wanted, errors = resolve(access, profile, "eno49")
    assert wanted == []
    assert errors == ["[x] irqbalance: a service is not set from a profile"]


def test_export_lists_a_stopped_service_as_left_out_and_writes_no_file() -> None:
    ctx = ExportContext(ifname="eno49", match=DeviceMatch("mac", "00:1b:21:00:00:01"), ncpus=4)
    stop = Change(IRQBALANCE, "running: /usr/sbin/irqbalance", STOPPED, None)
    only = build_plan([stop], ctx, read_installed=False)
    assert only.files == ()
    assert only.skipped == (
        "irqbalance service: not exported: tuitune stops a service for one session only and "
        "never writes that to a file (the affinity export tells irqbalance to leave the pinned "
        "IRQs alone instead)",
    )
    assert "nothing to export: no setting differs from what tuitune found" in only.warnings
    with_sysctl = build_plan(
        [stop, Change(Key.sysctl("net.core.somaxconn"), "4096", "8192", None)],
        ctx,
        read_installed=False,
    )
    assert [f.format for f in with_sysctl.files] == ["sysctl"]
    assert not any("irqbalance" in f.text for f in with_sysctl.files)
    assert len(with_sysctl.skipped) == 1
