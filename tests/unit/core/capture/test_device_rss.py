"""A capture holds the RSS state (issue 34): the table, its key (bytes, hex in the JSON) and the
hash fields come back as read; a key that is not hex is refused in one line."""

from __future__ import annotations

import json

import pytest

from tuitune.core.capture.device import DeviceCapture, LinkExtra, capture_json
from tuitune.core.host.rss import RssState, RssTable
from tuitune.core.record.codec import decode
from tuitune.core.untrusted import Refused
from tuitune.core.values import Unavailable

NONE = Unavailable("unsupported", "not here")
KEY = bytes(range(40))  # a Toeplitz key's length (40 bytes on most drivers)


def _device(rss: RssState | None) -> DeviceCapture:
    link = LinkExtra(None, None, None, None)
    return DeviceCapture(NONE, NONE, NONE, NONE, NONE, NONE, NONE, link, NONE, NONE, rss)


def test_the_rss_state_comes_back_as_read() -> None:
    rss = RssState(RssTable((0, 1, 2, 3) * 32, KEY, "toeplitz", 4), {"tcp4": "sd fn"})
    doc = json.loads(capture_json(_device(rss)))
    assert KEY.hex() in json.dumps(doc)
    back = decode(doc, DeviceCapture, "eth0.json")
    assert back.rss == rss
    assert decode(json.loads(capture_json(_device(None))), DeviceCapture, "x").rss is None


def test_a_key_that_is_not_hex_is_refused() -> None:
    rss = RssState(RssTable((0, 1), KEY, None), {})
    text = capture_json(_device(rss)).decode().replace(KEY.hex(), "zz\\u001b[31m")
    with pytest.raises(Refused, match=r"eth0\.json: .*key: not hexadecimal bytes"):
        decode(json.loads(text), DeviceCapture, "eth0.json")
