"""Reaction: a key that toggles a feature on a lab veth, until the kernel holds it and until
the screen shows it, against a key that changes nothing in the kernel, in the same run.

A lab is built with tuitune's own `tuitune.core.lab.build` (two namespaces, a veth pair, an
iperf3 server; a private state dir) and `tuitune --netns LAB veth-lab --interval 1` runs in
a private tmux server, 200x60. The NIC panel is focused (`3`) and filtered to one feature row
(`/tx-nocache-copy`, Enter): a flag with no side effects on other features. Then, N times:

* space (toggle the feature): the clock starts just before `tmux send-keys`; a thread polls
  the feature in the kernel every millisecond (ETHTOOL_GFEATURES from a thread inside the
  lab's namespace, the same read tuitune makes) and the main thread reads the pane with
  `tmux capture-pane` every 10 ms, until (1) the kernel holds the new value, (2) the header
  shows the journal's report ("changed veth-lab tx-nocache-copy: off -> on") and (3) the
  feature's row shows the new value;
* p (pause) and p again (resume), measured the same way: until the header shows (or stops
  showing) PAUSED. These keys change nothing in the kernel; they time the path every key
  takes (tmux, Textual's input thread, the event loop, a header repaint, the capture).

The steps are spaced by a random 0.3 to 0.8 s (seeded) so they fall at every phase of the
1 s refresh. Each toggle is checked afterwards against `ip netns exec LAB ethtool -k`. One
toggle is also made while paused, to show whether the row follows. Then the forced re-read
that follows a change (`Sampler.refresh_state`: host state, counters, NIC state) is timed
in this process on the lab, part by part.

The screen marks are at most one poll late (10 ms, plus the capture's own few ms); the
polling itself costs CPU on this 2-CPU machine, equally for both keys. At the end tuitune is
left with q (reverting what is still changed), and the lab is removed.

Run from the repository root (as root, about 40 s)::

    .venv/bin/python benchmarks/bench_reaction.py [--repeats 20] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _proc
from benchmarks._report import machine_lines
from benchmarks._tmux import TmuxError, TmuxServer
from tuitune.core import lab as labmod
from tuitune.core.host.ethtool import Ethtool
from tuitune.core.host.netns import KernelThread
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.watch.hostreader import HostReader

REPO = Path(__file__).resolve().parent.parent
TUITUNE = str(REPO / ".venv" / "bin" / "tuitune")
FEATURE = "tx-nocache-copy"
SCREEN_POLL = 0.01
KERNEL_POLL = 0.001
TIMEOUT = 10.0


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class KernelWatch:
    """Polls one feature of the lab's veth from a thread inside the lab's namespace."""

    def __init__(self, netns: str, ifname: str) -> None:
        self.kt = KernelThread(netns)
        self.eth = self.kt.call(Ethtool, ifname)

    def active(self) -> bool:
        def read() -> bool:
            feats = self.eth.features()
            assert isinstance(feats, tuple), feats
            return next(f.active for f in feats if f.name == FEATURE)

        return self.kt.call(read)

    def start(self, want: bool, t0: float) -> Callable[[], float | None]:
        """Poll until the kernel holds `want`; returns a getter of seconds since t0."""
        seen: list[float] = []

        def poll() -> None:
            end = time.perf_counter() + TIMEOUT
            while time.perf_counter() < end:
                if self.active() == want:
                    seen.append(time.perf_counter() - t0)
                    return
                time.sleep(KERNEL_POLL)

        thread = threading.Thread(target=poll, daemon=True)
        thread.start()

        def result() -> float | None:
            thread.join(TIMEOUT + 1)
            return seen[0] if seen else None

        return result

    def close(self) -> None:
        self.kt.call(self.eth.close)
        self.kt.close()


def row_value(screen: str) -> str | None:
    """The value the feature's row shows in the NIC panel ("on"/"off"): its own row, the
    last line naming it (the "offloads at a glance" lines above it name it too)."""
    value = None
    for line in screen.splitlines():
        _, found, rest = line.partition(FEATURE + " ")
        if found and rest.split() and rest.split()[0] in ("on", "off"):  # not the help text
            value = rest.split()[0]
    return value


def shows(text: str) -> Callable[[str], bool]:
    return lambda screen: text in screen


def row_is(word: str) -> Callable[[str], bool]:
    return lambda screen: row_value(screen) == word


@dataclass
class Marks:
    name: str
    times: dict[str, list[float]] = field(default_factory=dict)

    def add(self, mark: str, t: float) -> None:
        self.times.setdefault(mark, []).append(t)


def press(
    server: TmuxServer, key: str, marks: dict[str, Callable[[str], bool]]
) -> dict[str, float]:
    """Send `key`; seconds from just before send-keys to each screen mark."""
    return press_at(server, time.perf_counter(), key, marks)


def press_at(
    server: TmuxServer, t0: float, key: str, marks: dict[str, Callable[[str], bool]]
) -> dict[str, float]:
    """`press` with the clock started at t0 (the kernel watcher shares it)."""
    server.send_keys("main", key)
    todo = dict(marks)
    seen: dict[str, float] = {}
    while todo:
        screen = server.capture()
        now = time.perf_counter() - t0
        for mark, ok in list(todo.items()):
            if ok(screen):
                seen[mark] = now
                del todo[mark]
        if todo and now > TIMEOUT:
            raise TmuxError(f"{key}: no {next(iter(todo))} in {TIMEOUT} s; screen:\n{screen}")
        time.sleep(SCREEN_POLL)
    return seen


def ethtool_k(netns: str, ifname: str) -> bool:
    out = subprocess.run(
        ["ip", "netns", "exec", netns, "ethtool", "-k", ifname],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(ln for ln in out.splitlines() if ln.strip().startswith(FEATURE + ":"))
    return line.split(":")[1].split()[0] == "on"


def reread_costs(lab: labmod.Lab, repeats: int = 30) -> dict[str, float]:
    """Median ms of the journal's write and of the parts of the forced re-read after a
    change, on the lab."""
    parts: dict[str, list[float]] = {"host_state()": [], "counters()": [], "nic_state()": []}
    with HostReader(HostRoot(netns=lab.netns)) as reader:
        reader.nic_state(lab.ifname, with_stats=False)  # the first netlink round trips
        for _ in range(repeats):
            t = time.perf_counter()
            reader.host_state()
            parts["host_state()"].append(time.perf_counter() - t)
            t = time.perf_counter()
            counters = reader.counters(lab.ifname)
            parts["counters()"].append(time.perf_counter() - t)
            t = time.perf_counter()
            reader.nic_state(lab.ifname, with_stats=False, interrupts=counters.interrupts)
            parts["nic_state()"].append(time.perf_counter() - t)
        # What the key's worker does before the header can say "changed": record the
        # original, write, read back, verify (the journal in a private dir on /run, a tmpfs
        # like the app's /run/tuitune).
        jdir = Path(tempfile.mkdtemp(prefix="tt-bench-journal-", dir="/run"))
        key = Key.feature(lab.ifname, FEATURE)
        journal = Journal.open(HostAccess(reader.root, call=reader.call), jdir)
        try:
            name = "Journal.apply(): record, write, read back, verify"
            parts[name] = []
            for i in range(repeats):
                t = time.perf_counter()
                out = journal.apply(key, "on" if i % 2 == 0 else "off")
                parts[name].append(time.perf_counter() - t)
                assert out.status == "changed", out
        finally:
            journal.close_restoring()
            shutil.rmtree(jdir, ignore_errors=True)
    return {k: statistics.median(v) * 1000 for k, v in parts.items()}


def ms(values: Sequence[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f}"


def report(
    toggle: Marks, pause: Marks, repeats: int, paused_row: str, costs: dict[str, float]
) -> list[str]:
    base = statistics.median(pause.times["screen shows it"])
    lines = [
        "| key | until | median ms | min ms | p90 ms | max ms | / p (screen) | presses |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for m in (toggle, pause):
        for mark, ts in m.times.items():
            s = sorted(ts)
            p90 = s[min(len(s) - 1, round(0.9 * (len(s) - 1)))]
            lines.append(
                f"| {m.name} | {mark} | {ms(ts)} | {min(ts) * 1000:.1f} | {p90 * 1000:.1f} "
                f"| {max(ts) * 1000:.1f} | {statistics.median(ts) / base:.2f} | {len(ts)} |"
            )
    lines += [
        "",
        f"Toggle while paused: {paused_row}.",
        "",
        "The journal's write and the forced re-read after a change, measured in this process "
        "on the lab afterwards (median of 30 each):",
        "",
        "| part | median ms |",
        "|---|--:|",
        *[f"| `{k}` | {v:.2f} |" for k, v in costs.items()],
    ]
    return lines


def run(repeats: int, seed: int, interval: float) -> list[str]:
    rng = random.Random(seed)
    state_dir = Path(tempfile.mkdtemp(prefix="tt-bench-lab-"))
    home = Path(tempfile.mkdtemp(prefix="tt-bench-home-"))
    lab = labmod.build(state_dir)
    server = TmuxServer("reaction")
    times0, wall0 = _proc.machine_times(), time.perf_counter()
    watch: KernelWatch | None = None
    try:
        log(f"lab {lab.name} built; starting tuitune in tmux 200x60")
        watch = KernelWatch(lab.netns, lab.ifname)
        env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(home)}
        cmd = [TUITUNE, "--netns", lab.netns, lab.ifname, "--interval", str(interval)]
        pid = server.new_session(cmd, env)
        server.wait_for(lambda s: "NIC veth-lab" in s and "rings: not supported" in s)
        # Each key waits for the screen to show the last one took effect.
        server.send_keys("main", "3")
        server.wait_for(lambda s: "space Toggle" in s)  # the NIC panel's footer
        server.send_keys("main", "/")
        server.wait_for(lambda s: "space Toggle" not in s)  # the filter box took the footer
        server.send_keys("main", "-l", FEATURE)
        server.wait_for(lambda s: f"filter: {FEATURE}" in s)
        server.send_keys("main", "Enter")
        server.wait_for(lambda s: "space Toggle" in s and row_value(s) in ("on", "off"))
        # The filter keeps the "offloads at a glance" lines that name the feature, above its
        # own row: the cursor goes to that row, the last.
        server.send_keys("main", "End")
        time.sleep(0.5)
        toggle, pause = Marks("space (toggle)"), Marks("p (pause, resume)")
        mismatches = 0
        for i in range(repeats + 1):  # the first round is a warm-up (journal creation)
            state = watch.active()
            want = not state
            word = "on" if want else "off"
            report_text = f"{FEATURE}: {'off' if want else 'on'} -> {word}"
            t0 = time.perf_counter()
            kernel = watch.start(want, t0)
            marks = {"header shows the change": shows(report_text), "screen shows it": row_is(word)}
            seen = press_at(server, t0, "Space", marks)
            k = kernel()
            if ethtool_k(lab.netns, lab.ifname) != want:
                mismatches += 1
            time.sleep(rng.uniform(0.3, 0.8))
            p_on = press(server, "p", {"screen shows it": lambda s: "PAUSED" in s})
            time.sleep(rng.uniform(0.3, 0.8))
            p_off = press(server, "p", {"screen shows it": lambda s: "PAUSED" not in s})
            time.sleep(rng.uniform(0.3, 0.8))
            if i == 0:
                continue
            if k is None:
                raise TmuxError("the kernel never held the toggled value")
            toggle.add("kernel holds it", k)
            for mark, t in seen.items():
                toggle.add(mark, t)
            pause.add("screen shows it", p_on["screen shows it"])
            pause.add("screen shows it", p_off["screen shows it"])
            log(
                f"{i}/{repeats}: toggle kernel {k * 1000:.1f} ms, header "
                f"{seen['header shows the change'] * 1000:.1f} ms, row "
                f"{seen['screen shows it'] * 1000:.1f} ms; p {p_on['screen shows it'] * 1000:.1f}"
                f" / {p_off['screen shows it'] * 1000:.1f} ms"
            )
        paused_row = toggle_while_paused(server, watch)
        assert mismatches == 0, f"{mismatches} toggles not confirmed by ethtool -k"
        server.send_keys("main", "q")
        try:
            server.wait_for(lambda s: "revert everything" in s, timeout=3)
            server.send_keys("main", "r")
        except TmuxError:
            pass  # nothing was left changed: it quit at once
        server.wait_gone(pid)
        busy = _proc.machine_times().busy_cpus(times0, time.perf_counter() - wall0)
        costs = reread_costs(lab)
        return [
            "Machine:",
            "",
            *machine_lines(),
            "",
            f"{repeats} rounds (after one warm-up round), `--interval {interval}`, feature "
            f"`{FEATURE}` on a lab veth; every toggle confirmed by `ethtool -k`. The machine "
            f"had {busy:.2f} CPUs busy on average over the run (this benchmark, tuitune, tmux "
            f"and whatever else ran; load average {_proc.loadavg()} at the end).",
            "",
            *report(toggle, pause, repeats, paused_row, costs),
        ]
    finally:
        if watch is not None:
            watch.close()
        server.kill()
        removed = labmod.down(lab, state_dir)
        log(f"removed: {', '.join(removed)}")
        shutil.rmtree(state_dir, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


def toggle_while_paused(server: TmuxServer, watch: KernelWatch) -> str:
    """Pause, toggle, and see whether the row follows within 3 s (then resume and put back)."""
    want = not watch.active()
    word = "on" if want else "off"
    press(server, "p", {"paused": lambda s: "PAUSED" in s})
    t0 = time.perf_counter()
    kernel = watch.start(want, t0)
    server.send_keys("main", "Space")
    end = time.perf_counter() + 3
    shown: float | None = None
    while time.perf_counter() < end:
        if row_value(server.capture()) == word:
            shown = time.perf_counter() - t0
            break
        time.sleep(SCREEN_POLL)
    k = kernel()
    after = press(server, "p", {"row": row_is(word)})
    press(server, "Space", {"row": row_is("off" if want else "on")})
    held = f"the kernel held it after {k * 1000:.1f} ms" if k is not None else "never held"
    if shown is not None:
        return f"{held}; the row showed it after {shown * 1000:.1f} ms"
    return (
        f"{held}; the row still showed the old value 3 s later, and showed the new one "
        f"{after['row'] * 1000:.1f} ms after the second p (resume)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=20, help="counted rounds (20)")
    ap.add_argument("--seed", type=int, default=7, help="seed of the random spacing (7)")
    ap.add_argument("--interval", type=float, default=1.0, help="tuitune's --interval (1)")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        log("the reaction benchmark builds a lab: run it as root")
        return 2
    missing = labmod.missing_tools() + [t for t in ("tmux", "ethtool") if not shutil.which(t)]
    if missing:
        log(f"missing: {', '.join(missing)}")
        return 2
    start = time.perf_counter()
    lines = run(args.repeats, args.seed, args.interval)
    print("\n".join(lines))
    print(f"\nWall time {time.perf_counter() - start:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
