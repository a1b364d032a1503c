"""What autotune judges: the goal, and what it decides (the benchmark engine, which way is
better, the advisor's context, the server's port). Shared by `tuitune autotune --goal` and the
live screen's `T` form, so both read a goal the same way and refuse a bad one in the same
line (docs/autotune.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

GoalName = Literal["throughput", "latency"]
GOALS: tuple[GoalName, ...] = ("throughput", "latency")
WORDS: dict[str, str] = {
    "throughput": "iperf3's Mb/s, higher is better",
    "latency": "sockperf's median round trip, lower is better",
}


@dataclass(frozen=True, slots=True)
class Goal:
    name: GoalName = "throughput"

    @property
    def latency(self) -> bool:
        return self.name == "latency"

    @property
    def engine(self) -> str:
        return "sockperf" if self.latency else "iperf3"

    @property
    def higher_better(self) -> bool:
        return not self.latency

    @property
    def context(self) -> Literal["latency", "any"]:
        """The advisor's context for the candidates: its latency rules for a latency goal."""
        return "latency" if self.latency else "any"

    def port(self, given: int | None, lab: bool) -> int | None:
        """The server's port: the one given; for latency `sockperf server`'s own (not
        iperf3's); in the lab the runner picks its servers' ports itself."""
        if given is None and self.latency and not lab:
            from tuitune.core.bench.engines import get as get_engine

            return get_engine(self.engine).default_port
        return given


def parse_goal(text: str) -> Goal:
    """A typed goal; ValueError (one line) for anything else."""
    t = text.strip().lower()
    for g in GOALS:
        if t == g:
            return Goal(g)
    raise ValueError(f"goal {text[:20]!r}: give {' or '.join(GOALS)}")
