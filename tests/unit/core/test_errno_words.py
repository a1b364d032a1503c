"""The one errno table (core/values.py): every errno the kernel gives, read or written, comes
out as a state with its words, and the three wordings (a read, a setting's write, a driver's
ethtool write) keep what they always said."""

from __future__ import annotations

import errno

import pytest

from tuitune.core.values import ERRNO_WORDS, Unavailable, When, errno_state, from_oserror


@pytest.mark.parametrize("code", [*errno.errorcode, 0])
def test_every_errno_has_a_state_and_no_placeholder_left(code: int) -> None:
    exc = OSError(code, "the kernel's own text")
    for driver in (None, "ixgbe"):
        state = from_oserror(exc, "rings", driver)
        assert state.reason.startswith("rings: ") and "{" not in state.reason
    for when in ("read", "write", "driver"):
        state = errno_state(exc, when, "rings", driver="ixgbe", ifname="eth0", value=" 9000")
        assert state is None or "{" not in state.reason


def test_the_three_wordings() -> None:
    def said(code: int, when: When, **words: str) -> Unavailable | None:
        return errno_state(OSError(code, "x"), when, "eth0 mtu", **words)

    assert from_oserror(OSError(errno.EINVAL, "x"), "rings", "veth") == Unavailable(
        "unsupported", "rings: not supported by veth"
    )
    assert from_oserror(OSError(errno.EINVAL, "Invalid argument"), "rings") == Unavailable(
        "error", "rings: Invalid argument"
    )
    assert said(errno.ERANGE, "write", value=" 99999") == Unavailable(
        "error", "eth0 mtu: the kernel rejected 99999"
    )
    assert said(errno.ENODEV, "driver", ifname="eth0") == Unavailable(
        "missing", "eth0 mtu: interface eth0 is gone"
    )
    assert said(errno.ENOENT, "driver") is None  # as a read says it
    assert set(ERRNO_WORDS) >= {errno.EOPNOTSUPP, errno.EPERM, errno.ENODEV, errno.EBUSY}
