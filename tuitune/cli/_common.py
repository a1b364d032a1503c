"""Argument types shared by every subcommand: each refuses a bad value with one line from
argparse (exit status 2) before anything reads the host, writes or starts a program.

Why here and not in each command: `--interval nan` passed every `<= 0 or > 60` check (NaN
compares false) and spun the screen; a 5,000-character interface name reached os.stat as a
traceback. A type runs at parse time, for every subcommand that declares the option.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import NoReturn

from tuitune.core.bench.limits import BadLength, parse_length
from tuitune.core.names import ifname_problem, netns_problem

INTERVAL_MIN, INTERVAL_MAX = 0.1, 60.0  # seconds between samples (iperf3's -i has the same)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line: what is wrong, and where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _short(text: str) -> str:
    return repr(text) if len(text) <= 24 else f"{text[:24]!r}... ({len(text)} characters)"


def bounded_float(low: float, high: float, what: str) -> Callable[[str], float]:
    """A float type for argparse: finite (no nan, inf), within [low, high]."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_short(text)} is not a number") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{_short(text)}: {what} must be between {low:g} and {high:g}"
            )
        return value

    return parse


interval = bounded_float(INTERVAL_MIN, INTERVAL_MAX, "seconds")


def ifname(text: str) -> str:
    problem = ifname_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def netns(text: str) -> str:
    problem = netns_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def length(text: str) -> str:
    """iperf3's -l (bench): a number of bytes with an optional K or M, at most 1M."""
    try:
        return parse_length(text)
    except BadLength as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
