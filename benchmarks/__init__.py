"""Benchmarks: each bench_*.py prints its figures with the machine and load; run.py runs them
with the peers (htop, btop, glances, network-top) and writer.py renders BENCHMARKS.md. They may
import tuitune and tests.support (recorded host trees), never the other way round."""
