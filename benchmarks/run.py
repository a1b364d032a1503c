"""Regenerate BENCHMARKS.md: every benchmark, the peers installed, the tables written from
the scripts' output (benchmarks/writer.py). About 10-12 minutes on a quiet 2-CPU machine
(bench_bighost.py, the 1152-CPU host, about 40 s of it);
`--quick` (1 repeat, 5 s windows, the tick benchmark's quick mode) about 2 minutes, to check
that the generator runs, written to the scratch directory unless --out is given.

    .venv/bin/python -m benchmarks.run [--quick] [--out BENCHMARKS.md]   (or: scripts/dev bench)

Each script runs as its own process; its JSON or Markdown is kept beside the output
(`<scratch>/results/`), so a document can be re-rendered from them (`--render-only`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import peers
from benchmarks._proc import loadavg
from benchmarks._report import REPO
from benchmarks.writer import render

PY = str(REPO / ".venv" / "bin" / "python")


def _run(args: list[str], out: Path, timeout: float) -> str | None:
    """Run one script, its stdout to `out`; None when it worked, else why not."""
    print(f"bench: {' '.join(args)}", file=sys.stderr, flush=True)
    try:
        done = subprocess.run(
            [PY, *args], cwd=REPO, stdout=subprocess.PIPE, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f} s"
    if done.returncode != 0:
        return f"exit {done.returncode}"
    out.write_text(done.stdout)
    return None


BIG_TABLE = ["--rows", "1000", "--ticks", "32"]  # a real 1152-CPU host's rows, a host read
VM_CPUS = "32"  # the most vCPUs the TCG guest boots in reasonable time here
VM_FILE = "bench_irqfiles_kernel.txt"  # tests/vm/test_irqfiles.py leaves it in the run's dir
KERNEL_STEM = "irqfiles_kernel"  # its result in the results directory (.txt or .error)


def _run_vm(out: Path, timeout: float) -> str | None:
    """The kernel's side of the per-IRQ files (bench_irqfiles --kernel) in the VM bench's
    guest: `TUITUNE_VM_CPUS=32 scripts/vm run -k irqfiles`; its output to `out`."""
    cmd = ["scripts/vm", "run", "-k", "irqfiles"]
    print(f"bench: TUITUNE_VM_CPUS={VM_CPUS} {' '.join(cmd)}", file=sys.stderr, flush=True)
    env = dict(os.environ, TUITUNE_VM_CPUS=VM_CPUS)
    load_before = loadavg()  # the guest prints its own; TCG's speed depends on this machine's
    try:
        done = subprocess.run(
            cmd,
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f} s"
    # scripts/vm says where the run's results are: "vm: booting ...; results in DIR".
    found = re.search(r"results in (\S+)", done.stderr)
    result = Path(found.group(1)) / VM_FILE if found else None
    if done.returncode != 0 or result is None or not result.is_file():
        tail = done.stderr.strip().splitlines()[-1:] or [""]
        return f"exit {done.returncode}, no {VM_FILE} ({tail[0][:160]})"
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    host = (
        f"- run {when}; this machine's load average around the VM run:"
        f" {load_before} / {loadavg()}\n"
    )
    out.write_text(host + result.read_text())
    return None


def collect(results_dir: Path) -> dict[str, object]:
    """What the scripts left in `results_dir`, as writer.render takes it."""
    got: dict[str, object] = {}
    for name in ("peers", "memory", "frame"):
        path = results_dir / f"{name}.json"
        if path.exists():
            got[name] = json.loads(path.read_text())
    for name in ("tick", "bighost", "reaction"):
        path = results_dir / f"{name}.md"
        if path.exists():
            got[name] = path.read_text()
        elif (results_dir / f"{name}.error").exists():
            got[name] = f"Not measured in this run: {(results_dir / f'{name}.error').read_text()}"
    if (results_dir / "timeline.json").exists():
        got["timeline"] = json.loads((results_dir / "timeline.json").read_text())
    elif (results_dir / "timeline.error").exists():
        got["timeline_error"] = (results_dir / "timeline.error").read_text()
    if (results_dir / "irqfiles.json").exists():
        got["irqfiles"] = json.loads((results_dir / "irqfiles.json").read_text())
    for name in ("irqfiles", "irqfiles_kernel", "frame"):
        if (results_dir / f"{name}.error").exists():
            got[f"{name}_error"] = (results_dir / f"{name}.error").read_text()
    if (results_dir / "irqfiles_kernel.txt").exists():
        got["irqfiles_kernel"] = (results_dir / "irqfiles_kernel.txt").read_text()
    return got


def clear_results(results_dir: Path, keep_kernel: bool) -> None:
    """Remove the last run's results. The kernel-side one is kept unless the VM part runs
    again: it takes 10-30 min and measures the guest's kernel, which no change here alters
    (its text gives its own date, commit and load, and the document prints it whole)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    for old in results_dir.iterdir():
        if not (keep_kernel and old.name.startswith(KERNEL_STEM)):
            old.unlink()


def _compile_bytecode() -> None:
    """Compile tuitune's bytecode first, as installing a wheel does. A checkout run with
    PYTHONDONTWRITEBYTECODE=1 (set on this machine) has no .pyc for new modules, and every
    launch of the start-up benchmark would compile them again: ~150 ms that no installed
    tuitune pays."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "tuitune")], env=env, check=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short windows, 1 repeat")
    ap.add_argument("--out", type=Path, help="document to write (default: BENCHMARKS.md)")
    ap.add_argument("--scratch", type=Path, default=peers.SCRATCH, help="peers, HOMEs, results")
    ap.add_argument("--render-only", action="store_true", help="re-render the kept results")
    ap.add_argument(
        "--vm",
        action="store_true",
        help=f"also the kernel's side of the per-IRQ files in the VM bench ({VM_CPUS} vCPUs;"
        " heavy: 10-30 min)",
    )
    ap.add_argument(
        "--vm-only",
        action="store_true",
        help="only the VM part, kept in the results for the next run without --vm to render",
    )
    args = ap.parse_args(argv)
    results_dir = args.scratch / ("results-quick" if args.quick else "results")
    out = args.out or (
        args.scratch / "BENCHMARKS.quick.md" if args.quick else REPO / "BENCHMARKS.md"
    )
    t0 = time.monotonic()
    if not args.render_only:
        clear_results(results_dir, keep_kernel=not (args.vm or args.vm_only))
        _compile_bytecode()
        quick = ["--quick"] if args.quick else []
        scratch = ["--scratch", str(args.scratch)]
        steps: list[tuple[str, list[str], float]] = [
            ("peers.json", ["-m", "benchmarks.bench_peers", *quick, *scratch], 900),
            ("memory.json", ["-m", "benchmarks.bench_memory"], 300),
            ("timeline.json", ["-m", "benchmarks.bench_timeline", "--json", *quick], 300),
            ("frame.json", ["-m", "benchmarks.bench_frame", *quick], 300),
            ("tick.md", ["-m", "benchmarks.bench_tick", *quick], 300),
            ("bighost.md", ["-m", "benchmarks.bench_bighost", *quick], 600),
            # A real 1152-CPU host's table (about 1000 rows), and past one host-state read.
            (
                "irqfiles.json",
                ["-m", "benchmarks.bench_irqfiles", "--json", *BIG_TABLE, *quick],
                900,
            ),
        ]
        if os.geteuid() == 0:  # the reaction benchmark builds a lab: namespaces, a veth
            reps = "3" if args.quick else "15"
            steps.append(
                ("reaction.md", ["-m", "benchmarks.bench_reaction", "--repeats", reps], 300)
            )
        else:
            (results_dir / "reaction.error").write_text("needs root (it builds a lab)")
        if args.vm or args.vm_only:
            why = _run_vm(results_dir / f"{KERNEL_STEM}.txt", 3600)
            if why:
                (results_dir / f"{KERNEL_STEM}.error").write_text(why)
                print(f"bench: the VM part: {why}", file=sys.stderr)
        for fname, cmd, timeout in [] if args.vm_only else steps:
            why = _run(cmd, results_dir / fname, timeout)
            if why:
                stem = fname.rsplit(".", 1)[0]
                (results_dir / f"{stem}.error").write_text(f"`{' '.join(cmd)}`: {why}")
                print(f"bench: {fname}: {why}", file=sys.stderr)
    if args.vm_only:
        print(f"bench: the VM part is in {results_dir}; benchmarks.run renders it", file=sys.stderr)
        return 0 if (results_dir / f"{KERNEL_STEM}.txt").exists() else 1
    results = collect(results_dir)
    if "peers" not in results:
        print("bench: bench_peers.py gave nothing: no document written", file=sys.stderr)
        return 1
    out.write_text(render(results))
    print(f"bench: wrote {out} in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
