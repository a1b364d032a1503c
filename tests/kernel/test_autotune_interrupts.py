"""Autotune interrupted at ten random points (Ctrl+C, SIGTERM, SIGHUP and SIGKILL) leaves the
host exactly as it found it: both ends of the throwaway veth pair, dumped in full before and
after (`tuitune show --json` of the near end, every feature, MTU and RPS/XPS of both ends),
and each round's kernel state against the start.

A random point: each round waits for a randomly chosen line of autotune's progress (its
candidate list, a repeat of the warm-up or the baseline, the baseline's verdict, a candidate's)
and then a random fraction of a run, so the signal lands during startup, a run, a candidate's
apply or its undo. The seed is printed and fixed by TUITUNE_INTERRUPT_SEED to replay a failure.
No timing is asserted: whatever the point, the host must be back. After SIGKILL nothing can
run in the dying process, so `tuitune restore` (the documented way back) runs first; a run
that finished before its signal keeps its kept set by design, and is restored the same way.
Short runs (1 s, 2 repeats) keep the whole test near 30 s.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.kernel.test_autotune_lab import _bad_start, _cli, _dump
from tests.kernel.test_sweep_kernel import REPO, Pair, run
from tests.kernel.test_sweep_kernel import pair as pair  # the fixture
from tests.kernel.test_sweep_lab import _ends

pytestmark = pytest.mark.kernel
SIGNALS = [signal.SIGKILL] * 3 + [signal.SIGTERM] * 3 + [signal.SIGINT] * 2 + [signal.SIGHUP] * 2


def _kernel(p: Pair) -> tuple[object, ...]:
    """The round's cheap check: both ends' features, MTU, RPS/XPS, the near end's sysctls."""
    sysctls = run("ip", "netns", "exec", p.client_ns, "sysctl", "-a", "-r", "^net\\.ipv4\\.tcp")
    return (*_ends(p), sysctls)


def _default_sigint() -> None:
    # A test runner started in the background ignores SIGINT, and a child would inherit that.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _restore(p: Pair, tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tuitune", "restore", "--netns", p.client_ns,
         "--journal-dir", str(tmp / "journal")],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip


def test_ten_random_interruptions_leave_the_host_exactly_as_it_was(
    pair: Pair, tmp_path: Path
) -> None:
    seed = int(os.environ.get("TUITUNE_INTERRUPT_SEED", random.randrange(1 << 30)))
    print(f"interrupt seed {seed} (TUITUNE_INTERRUPT_SEED={seed} replays it)")
    rng = random.Random(seed)
    _bad_start(pair)
    before, start = _dump(pair), _kernel(pair)
    order = SIGNALS[:]
    rng.shuffle(order)
    landed: list[str] = []
    for n, sig in enumerate(order):
        wait_lines, extra = rng.randrange(0, 6), rng.uniform(0.0, 0.8)
        proc = subprocess.Popen(
            _cli(pair, tmp_path, "--repeats", "2", "--seconds", "1"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            preexec_fn=_default_sigint,
        )
        assert proc.stderr is not None
        for _ in range(wait_lines):  # progress lines: an event, not a clock
            if not proc.stderr.readline():
                break
        time.sleep(extra)  # where in the run it lands; nothing below depends on it
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        where = f"round {n} ({sig.name} after {wait_lines} line(s) + {extra:.2f} s, seed {seed})"
        if proc.returncode in (0, -signal.SIGKILL, -sig):
            # Finished first, killed, or caught outside its handlers (before they are set, or
            # after the search): the journal holds whatever is left, restore puts it back.
            back = _restore(pair, tmp_path)
            assert back.returncode == 0, f"{where}: {back.stdout}{back.stderr}"
            landed.append(f"{sig.name}: rc {proc.returncode}, restored")
        else:
            assert proc.returncode == 1, f"{where}: {err}"
            journals = (tmp_path / "journal").rglob("*")
            left = {
                str(p): p.read_text()[:300] for p in journals if p.is_file() and p.stat().st_size
            }
            assert not left, f"{where}: {err} {left}"
            landed.append(f"{sig.name}: {'put back' if 'every change put back' in err else '-'}")
        assert _kernel(pair) == start, where
    print("\n".join(landed))
    assert _dump(pair) == before
