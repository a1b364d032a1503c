"""Benchmarks: iperf3 runs (model, runner, iperf), the CPU load beside them, the settings they
ran with, and the notebook that keeps them with its results table. Imports only tuitune.core."""
