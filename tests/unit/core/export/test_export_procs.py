"""The process export: a systemd drop-in for a process in a service, a taskset/numactl prefix
for one that is not, a thread left out, and another user's argv never reaching a shell line
or the terminal as it is."""

from __future__ import annotations

from pathlib import Path

from tuitune.core.export import build_plan
from tuitune.core.export.context import ExportContext
from tuitune.core.export.device import DeviceMatch
from tuitune.core.export.model import Change, ProcFacts
from tuitune.core.export.procs import NOT_LASTING
from tuitune.core.session.settings import Key

NGINX = Key.proc_affinity(812, 5550, comm="nginx")
MOVER = Key.proc_affinity(900, 6000, comm="mover")


def _ctx(facts: dict[Key, ProcFacts]) -> ExportContext:
    return ExportContext(
        ifname="eth2", match=DeviceMatch("name", "eth2"), ncpus=8, processes=facts, now=0.0
    )


def test_a_service_gets_a_drop_in_and_a_plain_word_on_restarts() -> None:
    facts = {NGINX: ProcFacts("nginx", ("nginx", "-g", "daemon off;"), "nginx.service")}
    plan = build_plan([Change(NGINX, "0-7", "2-3")], _ctx(facts), read_installed=False)
    (f,) = plan.files
    assert f.format == "process" and f.installable
    assert f.path == Path("/etc/systemd/system/nginx.service.d/90-tuitune-affinity.conf")
    assert "[Service]\nCPUAffinity=2-3\n" in f.text and "# was 0-7" in f.text
    assert f.warnings == (f"nginx (pid 812): {NOT_LASTING}",)
    assert "systemctl restart nginx.service" in f.notes[0]
    assert plan.skipped == ()


def test_a_process_outside_any_service_gets_a_prefix_to_start_it_with() -> None:
    argv = ("/opt/mover/bin/mover", "--to", "host b", "it's")
    plan = build_plan(
        [Change(MOVER, "0-7", "4")],
        _ctx({MOVER: ProcFacts("mover", argv, "session-3.scope")}),
        read_installed=False,
    )
    (f,) = plan.files
    assert not f.installable and f.path.name == "process-mover-900.sh"
    line = "/opt/mover/bin/mover --to 'host b' 'it'\"'\"'s'"
    assert f"taskset -c 4 {line}\n" in f.text
    assert f"numactl --physcpubind=4 {line}\n" in f.text


def test_a_hostile_argv_or_name_is_not_shown() -> None:
    evil = Key.proc_affinity(901, 1, comm="x\x1b]0;pwn\x07")
    facts = {evil: ProcFacts("x\x1b]0;pwn\x07", ("run", "\x1b[2J; rm -rf /"), None)}
    plan = build_plan([Change(evil, "0-7", "1")], _ctx(facts), read_installed=False)
    (f,) = plan.files
    assert "\x1b" not in f.text and "\x07" not in f.text and "rm -rf" not in f.text
    assert "taskset -c 1 COMMAND ARGS...\n" in f.text and "control characters" in f.text
    assert "\x1b" not in "".join(f.warnings) and "/" not in f.path.name


def test_a_thread_alone_is_left_out_and_a_thread_moved_with_its_process_is_not() -> None:
    t1 = Key.proc_affinity(812, 5550, 813, "nginx")
    t2 = Key.proc_affinity(812, 5550, 814, "nginx")
    changes = [Change(NGINX, "0-7", "2-3"), Change(t1, "0-7", "2-3"), Change(t2, "0-7", "5")]
    facts = {NGINX: ProcFacts("nginx", ("nginx",), "nginx.service")}
    plan = build_plan(changes, _ctx(facts), read_installed=False)
    assert len(plan.files) == 1
    assert [s.split(":")[0] for s in plan.skipped] == ["thread 814 of nginx (pid 812) affinity"]
    assert "only the program itself" in plan.skipped[0]
