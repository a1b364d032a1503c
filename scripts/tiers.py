"""The whole test command, tier by tier, with the VM bench booting beside the host tiers.

`scripts/dev test` (and so CI) runs this with the project's venv Python. Why a runner and not
one pytest: the VM bench spends most of its minutes under TCG in one guest process, while the
host tiers are mostly one pytest process; run strictly after each other they waste a core.
So the guests start first, in the background (two: the Ansible run in one, the rest in the
other), the host tiers run beside them, and the tests that measure throughput on this machine
(marker `throughput`) run only once the guests are gone, so they never share the CPUs with
them. At the end it prints what the reader of a CI log needs to see where the time went: each
tier's wall and CPU time with the load average at its start and end, the 50 slowest host
tests and the guests' slowest, and one closing line "ci: N passed, N failed, N skipped" over
every tier.

Run it by hand: `.venv/bin/python scripts/tiers.py [--no-vm] [--only TIER ...]`.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = REPO / ".venv" / "bin"


@dataclass
class Tier:
    name: str
    argv: list[str]  # pytest arguments (or a whole command for lint)
    lint: bool = False
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Result:
    name: str
    rc: int
    wall: float
    cpu: float
    load_start: str
    load_end: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run(
    argv: list[str], env: dict[str, str] | None = None, logfile: Path | None = None
) -> tuple[int, float]:
    """(exit status, CPU seconds of the process and every descendant it reaped): wait4's own
    figure for this one process, so a guest reaped meanwhile is never counted in a tier.
    With `logfile`, its output goes there (two lanes' pytest output would interleave)."""
    if logfile is None:
        proc = subprocess.Popen(argv, cwd=REPO, env=env)
    else:
        with open(logfile, "wb") as f:
            proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=f, stderr=subprocess.STDOUT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime


PRINT = threading.Lock()  # one lane's log is printed whole, never interleaved with another's


def log(msg: str) -> None:
    with PRINT:
        print(f"tiers: {msg}", file=sys.stderr, flush=True)


# -- the VM bench, in the background ------------------------------------------------------------
class Guest:
    """`scripts/vm run [PYTEST ARGS]` started now, its output kept in OUT/NAME.{stdout,stderr,rc},
    which tests/vm/test_bench_host.py reads (TUITUNE_VM_OUT) instead of booting a guest itself.
    A thread waits for it, so its wall time ends when it does, not when it is asked."""

    def __init__(self, out: Path, name: str, what: str, args: Sequence[str] = ()) -> None:
        self.out, self.name, self.what = out, name, what
        self.stdout = open(out / f"{name}.stdout", "wb")  # noqa: SIM115 - held till it ends
        self.stderr = open(out / f"{name}.stderr", "wb")  # noqa: SIM115
        self.start = time.monotonic()
        self.load_start = loadavg()
        self.proc = subprocess.Popen(
            [str(REPO / "scripts" / "vm"), "run", *args],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=self.stdout,
            stderr=self.stderr,
            start_new_session=True,  # one signal ends qemu and the script together
        )
        self.ended: tuple[int, float, float, str] | None = None  # rc, wall, cpu, load at end
        self.waiter = threading.Thread(target=self._wait, name=f"{name}-wait", daemon=True)
        self.waiter.start()
        log(f"VM bench {name} started (pid {self.proc.pid}), load average {self.load_start}")

    def _wait(self) -> None:
        _, status, usage = os.wait4(self.proc.pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        self.proc.returncode = rc
        cpu = usage.ru_utime + usage.ru_stime
        self.ended = (rc, time.monotonic() - self.start, cpu, loadavg())
        log(f"VM bench {self.name} ended with {rc} after {self.ended[1]:.0f} s")

    def wait(self) -> Result:
        self.waiter.join()
        assert self.ended is not None
        rc, wall, cpu, load_end = self.ended
        self.stdout.close()
        self.stderr.close()
        (self.out / f"{self.name}.rc").write_text(f"{rc}\n")
        res = Result(f"vm ({self.what})", rc, wall, cpu, self.load_start, load_end)
        for junit in guest_junits(self.out, self.name):
            count(res, junit)
        return res

    def kill(self) -> None:
        if self.ended is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.waiter.join()


# Two guests side by side: the one real `ansible-playbook` run (tests/vm/test_ansible.py) is
# about two thirds of the guest's minutes under TCG and needs nothing the other tests do, so it
# boots a guest of its own; the other guest runs the rest, and boots again for the reboot test.
# One guest after the other made the run wait on the sum; side by side it waits on the longer.
GUESTS = (
    ("vm-ansible", "guest: the Ansible run", ("-k", "test_ansible")),
    ("vm", "guest: the rest, both boots", ("-k", "not test_ansible")),
)


def prepare_bytecode(out: Path) -> None:
    """Compile tuitune and the tests once, and let every tier write what it compiles.

    The shell CI runs in sets PYTHONDONTWRITEBYTECODE: each tier then rewrote every test
    module again (6 s of a 7 s one-test run here) and each `tuitune` subprocess compiled the
    package again (1.4 s against 0.6 s for `tuitune show` on this machine). The guest shares
    this tree read-only and cannot write bytecode: under TCG it paid that for every command,
    so pytest's rewritten tests/vm are made here too, before it boots."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    py = str(VENV_BIN / "python")
    run(
        [py, "-m", "compileall", "-q", "-j0", "tuitune", "tests", "scripts"],
        None,
        out / "compile.log",
    )
    collect = [py, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/vm"]
    run(collect, None, out / "collect-vm.log")


class Wheelhouse:
    """scripts/wheelhouse into DIR/wheelhouse, in a thread, holding DIR/lock (flock) until it
    is done; tests/support/wheelhouse.py takes the same lock, so a test that needs it waits
    for this build (or builds it itself when this one failed)."""

    def __init__(self, top: Path) -> None:
        top.mkdir(parents=True, exist_ok=True)
        self.top = top
        self.lock = open(top / "lock", "w")  # noqa: SIM115 - held until the build ends
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        self.thread = threading.Thread(target=self._build, name="wheelhouse", daemon=True)
        self.thread.start()

    def _build(self) -> None:
        try:
            start = time.monotonic()
            cmd = [str(REPO / "scripts" / "wheelhouse"), str(self.top / "wheelhouse")]
            rc, cpu = run(cmd, None, self.top / "build.log")
            if rc == 0:
                (self.top / "built").touch()
            log(f"wheelhouse: exit {rc} in {time.monotonic() - start:.0f} s, {cpu:.0f} s CPU")
        finally:
            fcntl.flock(self.lock, fcntl.LOCK_UN)
            self.lock.close()

    def join(self) -> None:
        self.thread.join()


def vm_wanted() -> bool:
    if os.environ.get("TUITUNE_VM_SKIP") == "1":
        return False
    return os.geteuid() == 0 and Path("/dev/net/tun").exists()


# -- running the tiers ---------------------------------------------------------------------------
def run_tier(tier: Tier, out: Path, quiet: bool = False) -> Result:
    """Run one tier; `quiet` (a lane beside another) keeps its output in OUT/NAME.log and
    prints it whole when the tier ends."""
    log(f"{tier.name}: starting, load average {loadavg()}")
    start, cpu, l0 = time.monotonic(), 0.0, loadavg()
    if tier.lint:
        rc = 0
        for cmd in tier.argv:
            log(f"{tier.name}: {cmd}")
            rc, used = run(cmd.split())
            cpu += used
            if rc:
                break
    else:
        junit = out / f"{tier.name}.xml"
        (out / "tmp").mkdir(exist_ok=True)  # pytest makes --basetemp, not its parent
        argv = [
            str(VENV_BIN / "pytest"),
            *tier.argv,
            "-p",
            "no:cacheprovider",
            # Its own temporary tree: under the default, each pytest at its exit deletes the
            # numbered trees of the tiers before it (beyond the last 3), gigabytes of venvs
            # and wheelhouses; the throughput tier spent 120 s of a 202 s run doing that,
            # after the guest, on the run's critical path.
            f"--basetemp={out / 'tmp' / tier.name}",
            f"--junitxml={junit}",
            "-o",
            "junit_family=xunit2",
        ]
        logfile = out / f"{tier.name}.log" if quiet else None
        rc, cpu = run(argv, {**os.environ, **tier.env}, logfile)
        if logfile is not None:
            with PRINT:
                sys.stdout.write(logfile.read_text(errors="replace"))
                sys.stdout.flush()
    res = Result(tier.name, rc, time.monotonic() - start, cpu, l0, loadavg())
    if not tier.lint:
        count(res, out / f"{tier.name}.xml")
    log(f"{tier.name}: exit {rc} in {res.wall:.0f} s wall, {res.cpu:.0f} s CPU")
    return res


def split(name: str, mark: str, n: int) -> list[Tier]:
    """`tests/NAME` in `n` pieces, its test files dealt out in turn (sorted by name, so a piece
    is the same from run to run); each is its own pytest run and junit file, NAME-1 ..."""
    files = sorted(str(p.relative_to(REPO)) for p in (REPO / "tests" / name).rglob("test_*.py"))
    return [Tier(f"{name}-{i + 1}", [*files[i::n], "-m", mark]) for i in range(n)]


def run_lanes(queue: list[Tier], late: list[Tier], guests: list[Guest], out: Path) -> list[Result]:
    """Two lanes, each taking the next tier of `queue` when free; a tier of `late` is taken
    first once every guest has ended (a lane with nothing else to do waits for them). Results
    in the order the tiers ended; the guests' own results once they have all ended."""
    queue, late = list(queue), list(late)
    results: list[Result] = []
    cond = threading.Condition()
    guests_done = not guests

    def wait_guests() -> None:
        nonlocal guests_done
        if guests:
            log(f"the VM bench: waiting for its guests, load {loadavg()}")
            ended = [g.wait() for g in guests]
            log(f"the VM bench: every guest ended, load {loadavg()}")
            with cond:
                results.extend(ended)
        with cond:
            guests_done = True
            cond.notify_all()

    def take() -> Tier | None:
        with cond:
            while True:
                if late and guests_done:
                    return late.pop(0)
                if queue:
                    return queue.pop(0)
                if not late:
                    return None
                cond.wait()

    def lane() -> None:
        while (tier := take()) is not None:
            res = run_tier(tier, out, quiet=True)
            with cond:
                results.append(res)

    waiter = threading.Thread(target=wait_guests, name="guests", daemon=True)
    waiter.start()
    lanes = [threading.Thread(target=lane, name=f"lane-{i}") for i in range(2)]
    for t in lanes:
        t.start()
    for t in lanes:
        t.join()
    waiter.join()
    return results


def cases(path: Path) -> list[ET.Element]:
    if not path.is_file():
        return []
    try:
        return list(ET.parse(path).getroot().iter("testcase"))
    except ET.ParseError:
        return []


def outcome(case: ET.Element) -> str:
    for tag in ("failure", "error", "skipped"):
        if case.find(tag) is not None:
            return tag
    return "passed"


def count(res: Result, junit: Path) -> None:
    for case in cases(junit):
        match outcome(case):
            case "failure":
                res.failed += 1
            case "error":
                res.errors += 1
            case "skipped":
                res.skipped += 1
            case _:
                res.passed += 1


def cpu_of(case: ET.Element) -> float | None:
    """The test's CPU seconds that tests/conftest.py records as a junit property."""
    for prop in case.iter("property"):
        if prop.get("name") == "cpu":
            return float(prop.get("value") or 0.0)
    return None


def slowest(paths: list[Path], n: int) -> list[tuple[float, float | None, str]]:
    rows = []
    for path in paths:
        for case in cases(path):
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            rows.append((float(case.get("time") or 0.0), cpu_of(case), name))
    rows.sort(key=lambda r: r[0], reverse=True)
    return rows[:n]


def print_slowest(rows: list[tuple[float, float | None, str]]) -> None:
    print(f"{'wall':>8} {'cpu':>7}  test")
    for wall, cpu, name in rows:
        print(f"{wall:8.1f} {'' if cpu is None else f'{cpu:7.1f}':>7}  {name}")


def guest_junits(out: Path, name: str) -> list[Path]:
    """A guest's junit XML of both boots, from the run directory its scripts/vm named."""
    log_ = out / f"{name}.stderr"
    err = log_.read_text(errors="replace") if log_.exists() else ""
    for line in err.splitlines():
        if "results in " in line:
            run = Path(line.split("results in ", 1)[1].strip())
            return [p for p in (run / "junit.xml", run / "junit-boot2.xml") if p.is_file()]
    return []


def report(results: list[Result], out: Path) -> None:
    print("\n== Tiers (wall and CPU in seconds; CPU of the tier's processes and children) ==")
    head = f"{'tier':<24} {'pass':>5} {'fail':>5} {'skip':>5} {'wall':>7} {'cpu':>7}"
    print(f"{head}  load start -> end")
    for r in results:
        print(
            f"{r.name:<24} {r.passed:>5} {r.failed + r.errors:>5} {r.skipped:>5} "
            f"{r.wall:>7.0f} {r.cpu:>7.0f}  {r.load_start} -> {r.load_end}"
        )
    host = [out / f"{r.name}.xml" for r in results]
    print("\n== The 50 slowest host tests (seconds; cpu: the test's own process and children) ==")
    print_slowest(slowest(host, 50))
    guest = [p for name, _, _ in GUESTS for p in guest_junits(out, name)]
    if guest:
        total = sum(float(c.get("time") or 0.0) for p in guest for c in cases(p))
        print(f"\n== The guest's slowest tests (seconds; {total:.0f} s in all its tests) ==")
        print_slowest(slowest(guest, 50))
    (out / "summary.json").write_text(json.dumps([asdict(r) for r in results], indent=1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-vm", action="store_true", help="do not boot the VM bench")
    ap.add_argument("--no-lint", action="store_true", help="lint already ran (as the user)")
    ap.add_argument("--only", nargs="*", default=None, help="run only these tiers")
    ap.add_argument("--out", type=Path, default=REPO / "build" / "tiers")
    args = ap.parse_args()
    out: Path = args.out
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)

    prepare_bytecode(out)
    # The install tests' wheelhouse: built once, in the background from the start (it is
    # mostly waiting on pip), and waited for by the first test that needs it.
    os.environ["TUITUNE_TEST_WHEELHOUSE"] = str(out / "wheelhouse")
    needs_house = args.only is None or bool({"unit", "kernel", "vm"} & set(args.only))
    house = Wheelhouse(out / "wheelhouse") if needs_house else None
    want_vm = not args.no_vm and vm_wanted() and (args.only is None or "vm" in args.only)
    guests = [Guest(out, *g) for g in GUESTS] if want_vm else []

    lint = Tier(
        "lint",
        [
            f"{VENV_BIN}/ruff check .",
            f"{VENV_BIN}/ruff format --check .",
            f"{VENV_BIN}/mypy",
            f"{VENV_BIN}/lint-imports --no-cache",
        ],
        lint=True,
    )
    # Two lanes beside the guests, each taking the next piece of work when it is free: one
    # pytest alone leaves the second core idle whenever it waits (subprocesses, pilot pauses,
    # the kernel's own work), and the guests alone do not fill it. A third lane (the kernel
    # tier on its own, cc11) was slower (1488 s against 1438) and its load raced three tests:
    # five CPU-bound processes on two cores. Fixed lanes (unit, security, kernel | tui, cc20)
    # left one core idle for the last 180 s: the tiers are cut in pieces by file, longest
    # first, so the two lanes end close together.
    mark = "not vmbench and not throughput"
    unit = split("unit", mark, 2)
    pieces = [
        # Longest first, so the last pieces are short (cc23 ended on security alone).
        *split("tui", mark, 2),
        Tier("kernel", ["tests/kernel", "-m", mark]),
        unit[0],  # cc23: 144 s (the playbooks), the other 61 s
        Tier("security", ["tests/security", "-m", mark]),
        unit[1],
    ]
    # Measured throughput on this machine: never while the guests take the CPUs; as soon as
    # they are gone, the next free lane runs it beside the other lane's pytest (one busy
    # process: less than the two CPU hogs the suite must pass beside, docs/testing.md).
    after_guest = Tier("throughput", ["tests", "-m", "throughput and not alone and not vmbench"])
    # What needs the CPUs to itself (a CPU saturated beside one with room): last, alone.
    alone = Tier("alone", ["tests", "-m", "alone and not vmbench"])
    vm_env = {"TUITUNE_VM_OUT": str(out)} if guests else {}
    reader = Tier("vm", ["tests/vm/test_bench_host.py", "-m", "vmbench"], env=vm_env)

    def wanted(tier: Tier) -> bool:
        # --only tui runs both pieces of it; --only tui-2 the one.
        return args.only is None or bool({tier.name, tier.name.split("-")[0]} & set(args.only))

    results: list[Result] = []
    try:
        if wanted(lint) and not args.no_lint:
            res = run_tier(lint, out)
            results.append(res)
            if res.rc:
                return res.rc  # as before: no tests on code that does not lint
        queue = [t for t in pieces if wanted(t)]
        late = [after_guest] if wanted(after_guest) else []
        results += run_lanes(queue, late, guests, out)
        guests = []
        if wanted(alone):
            results.append(run_tier(alone, out))
        if not args.no_vm and wanted(reader):
            results.append(run_tier(reader, out))
    finally:
        for g in guests:
            g.kill()
        if house is not None:
            house.join()
    report(results, out)

    tests = [r for r in results if r.name != "lint"]
    passed = sum(r.passed for r in tests)
    failed = sum(r.failed + r.errors for r in tests)
    skipped = sum(r.skipped for r in tests)
    # pytest's 5 is "no test collected": a tier whose marker selects nothing here.
    bad = [r.name for r in tests if r.rc not in (0, 5) and not r.name.startswith("vm (")]
    if bad:
        print(f"\ntiers that failed: {', '.join(bad)}")
    print(f"\nci: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if bad or failed else 0


if __name__ == "__main__":
    sys.exit(main())
