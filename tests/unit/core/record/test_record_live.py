"""The live screen's recording holder (core/record/live.py, the `w` key and --record): a
write that fails (a full disk) stops the recording, not the samples: each later sample is
delivered with the line, REC goes, and stopping names the file's counts with the reason."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from tests.support.recorded import record
from tuitune.core.record import fileformat
from tuitune.core.record.live import LiveRecording
from tuitune.core.record.replay import open_recording
from tuitune.core.units import size
from tuitune.core.watch.sampler import Sample


def test_a_full_disk_stops_the_recording_and_the_samples_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = record(tmp_path, tmp_path / "plain.rec", samples=4)
    host = next(s.host for s in taken if s.host is not None)
    live = LiveRecording()
    shown: list[Sample] = []
    deliver = live.tee(shown.append)
    deliver(taken[0])  # not recording yet: handed on as it is
    path = tmp_path / "live.rec"
    live.start(path, iface="eth4", netns=None, interval=1.0, host=host)
    deliver(taken[1])
    badge = live.badge()
    assert live.active and badge is not None and badge.startswith("REC ")
    real = os.write

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fileformat.os, "write", full)
    deliver(taken[2])
    monkeypatch.setattr(fileformat.os, "write", real)
    deliver(taken[3])
    assert len(shown) == 4  # every sample reached the screen
    assert [s.error for s in shown[:2]] == [None, None]
    want = f"{path}: recording stopped: No space left on device"
    assert [s.error for s in shown[2:]] == [want, want]
    assert not live.active and live.badge() is None
    assert live.stop() == f"{want} (1 sample, {size(path.stat().st_size)})"
    assert live.stop() is None  # nothing running any more
    assert open_recording(path).span()[2] == 1  # what was written reads back
