"""Regenerate BENCHMARKS.md: every benchmark, the peers installed, the tables written from
the scripts' output (benchmarks/writer.py). About 7-9 minutes on a quiet 2-CPU machine;
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
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import peers
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


def collect(results_dir: Path) -> dict[str, object]:
    """What the scripts left in `results_dir`, as writer.render takes it."""
    got: dict[str, object] = {}
    for name in ("peers", "memory"):
        path = results_dir / f"{name}.json"
        if path.exists():
            got[name] = json.loads(path.read_text())
    for name in ("tick", "reaction"):
        path = results_dir / f"{name}.md"
        if path.exists():
            got[name] = path.read_text()
        elif (results_dir / f"{name}.error").exists():
            got[name] = f"Not measured in this run: {(results_dir / f'{name}.error').read_text()}"
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short windows, 1 repeat")
    ap.add_argument("--out", type=Path, help="document to write (default: BENCHMARKS.md)")
    ap.add_argument("--scratch", type=Path, default=peers.SCRATCH, help="peers, HOMEs, results")
    ap.add_argument("--render-only", action="store_true", help="re-render the kept results")
    args = ap.parse_args(argv)
    results_dir = args.scratch / ("results-quick" if args.quick else "results")
    out = args.out or (
        args.scratch / "BENCHMARKS.quick.md" if args.quick else REPO / "BENCHMARKS.md"
    )
    t0 = time.monotonic()
    if not args.render_only:
        results_dir.mkdir(parents=True, exist_ok=True)
        for old in results_dir.iterdir():
            old.unlink()
        quick = ["--quick"] if args.quick else []
        scratch = ["--scratch", str(args.scratch)]
        steps: list[tuple[str, list[str], float]] = [
            ("peers.json", ["-m", "benchmarks.bench_peers", *quick, *scratch], 900),
            ("memory.json", ["-m", "benchmarks.bench_memory"], 300),
            ("tick.md", ["-m", "benchmarks.bench_tick", *quick], 300),
        ]
        if os.geteuid() == 0:  # the reaction benchmark builds a lab: namespaces, a veth
            reps = "3" if args.quick else "15"
            steps.append(
                ("reaction.md", ["-m", "benchmarks.bench_reaction", "--repeats", reps], 300)
            )
        else:
            (results_dir / "reaction.error").write_text("needs root (it builds a lab)")
        for fname, cmd, timeout in steps:
            why = _run(cmd, results_dir / fname, timeout)
            if why:
                stem = fname.rsplit(".", 1)[0]
                (results_dir / f"{stem}.error").write_text(f"`{' '.join(cmd)}`: {why}")
                print(f"bench: {fname}: {why}", file=sys.stderr)
    results = collect(results_dir)
    if "peers" not in results:
        print("bench: bench_peers.py gave nothing: no document written", file=sys.stderr)
        return 1
    out.write_text(render(results))
    print(f"bench: wrote {out} in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
