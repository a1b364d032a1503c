"""The benchmark engines tuitune can drive, by the name `--engine` takes."""

from __future__ import annotations

from tuitune.core.bench.engines.base import Engine
from tuitune.core.bench.engines.iperf3 import IPERF3
from tuitune.core.bench.engines.nuttcp import NUTTCP
from tuitune.core.bench.engines.sockperf import SOCKPERF

ENGINES: dict[str, Engine] = {e.name: e for e in (IPERF3, NUTTCP, SOCKPERF)}
NAMES = tuple(ENGINES)


class UnknownEngine(ValueError):
    pass


def get(name: str) -> Engine:
    try:
        return ENGINES[name]
    except KeyError:
        raise UnknownEngine(f"unknown engine {name!r} (one of {', '.join(NAMES)})") from None
