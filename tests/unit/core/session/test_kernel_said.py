"""EPERM and EACCES in words: "needs root" only when tuitune lacks the privilege; with it,
the kernel refused the value, and the message says what it said (issue 22 #18)."""

from __future__ import annotations

import errno

import pytest

from tuitune.core.session import Key, kernel_said
from tuitune.core.session.access import refusal

SOMAXCONN = Key.sysctl("net.core.somaxconn")
CC = Key.sysctl("net.ipv4.tcp_congestion_control")


def test_without_the_privilege_it_needs_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel_said, "privileged", lambda: False)
    state = refusal(SOMAXCONN, OSError(errno.EPERM, "x"), "8192")
    assert (state.kind, state.reason) == (
        "permission",
        "net.core.somaxconn: changing it needs root",
    )


def test_with_it_the_kernel_refused_the_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel_said, "privileged", lambda: True)
    state = refusal(SOMAXCONN, OSError(errno.EPERM, "x"), "8192")
    assert (state.kind, state.reason) == (
        "error",
        "net.core.somaxconn: the kernel refused 8192 (EPERM: operation not permitted)",
    )
    state = refusal(SOMAXCONN, OSError(errno.EACCES, "x"), "8192")
    assert state.reason == "net.core.somaxconn: read-only here (EACCES: permission denied)"


def test_a_restricted_congestion_control_names_the_allowed_list() -> None:
    said = kernel_said.value_refused(CC, errno.EPERM, "cubic", "reno\tbbr\n")
    assert said == (
        "net.ipv4.tcp_congestion_control: the kernel refused cubic (EPERM: operation not "
        "permitted): not in net.ipv4.tcp_allowed_congestion_control (reno bbr); outside the "
        "host's own network namespace only those may be set"
    )


def test_this_process_is_privileged_as_root() -> None:
    """Tests run as root with every capability (COMMON.md): the reading must agree."""
    import os

    kernel_said.privileged.cache_clear()
    assert kernel_said.privileged() is (os.geteuid() == 0)
