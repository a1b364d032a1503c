"""The PM QoS latency request in force on the guest's real kernel (issue 32): a request held
open on /dev/cpu_dma_latency, as tuned's force_latency holds one, is what `show --json`
reports, with its holder named, and tuitune's own read leaves nothing behind: its descriptor
on the device (which holds a request of its own, at the no-limit value) is closed, and the
value falls back to "none" once the holder closes. The holder is this process, as is
tuitune (`show` runs in it): a second Python costs tens of seconds under TCG."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from tuitune.core.host.pmqos import DMA_LATENCY, read_request

from .conftest import show_json

pytestmark = pytest.mark.vm


def _link(f: Path) -> str:
    try:
        return os.readlink(f)
    except OSError:  # the listing's own descriptor, closed by now
        return ""


def _held() -> int:
    """This process's descriptors open on the device."""
    return sum(1 for f in Path("/proc/self/fd").iterdir() if _link(f) == DMA_LATENCY)


def test_the_request_in_force_is_shown_and_reading_leaves_none() -> None:
    assert read_request(True) is None, "a fresh guest holds no latency request"
    assert _held() == 0
    fd = os.open(DMA_LATENCY, os.O_RDWR | os.O_CLOEXEC)
    try:
        os.write(fd, struct.pack("=i", 37))  # held for as long as fd stays open
        cpu = show_json("lo")["platform"]["cpu_power"]
        assert cpu["pm_qos_request_us"] == 37, cpu
        held = cpu["pm_qos_holders"]  # this process, found by its /proc/PID/fd link
        assert os.getpid() in [h["pid"] for h in held["processes"]] and held["complete"], held
        assert _held() == 1  # only the test's own: tuitune closed what it opened
    finally:
        os.close(fd)
    assert read_request(True) is None
    assert _held() == 0
