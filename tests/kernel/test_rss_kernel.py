"""RSS on this machine's kernel: veth has none, which must be a state on screen, not an error.
(A real table lives in the VM bench's virtio-net with rss=on; here the parser and the ioctl
path are tested on captures: tests/unit/core/host/test_rss.py.)"""

from __future__ import annotations

import subprocess
import sys

from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader

from .conftest import VethNs

PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def test_veth_has_no_rss_table(veth_ns: VethNs) -> None:
    with HostReader(HostRoot(netns=veth_ns.ns)) as reader:
        st = reader.rss(veth_ns.a)
    assert st.table is None
    assert st.why is not None and "not supported by veth" in st.why


def test_show_says_so_in_a_line(veth_ns: VethNs) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tuitune", "show", "--netns", veth_ns.ns, "--interval", "0.2",
         veth_ns.a],
        check=True, capture_output=True, text=True, env={"COLUMNS": "100", "PATH": PATH},
    ).stdout  # fmt: skip
    assert "RSS table: not supported by veth" in out
    assert "Traceback" not in out


def test_the_panel_and_the_advisor_give_one_reason(veth_ns: VethNs) -> None:
    """The live screen's path: the NIC state read for the panel carries the reason, and the
    advisor (which reads no table of its own there) says the panel's words, not "not read"."""
    from tuitune.core.advise import Context, Facts, advise
    from tuitune.core.advise.window import EMPTY
    from tuitune.tui.panels.nicpanel import steering_entries

    with HostReader(HostRoot(netns=veth_ns.ns)) as reader:
        snap = reader.snapshot(veth_ns.a)
    assert snap.nic is not None
    (row,) = [e for e in steering_entries(snap.nic) if e.key == "rss:table"]
    assert row.label.startswith("RSS table: not supported by veth")
    advice = advise(Facts(snap.host, snap.nic, EMPTY, Context()))
    (note,) = [n for n in advice.notes if n.rule == "rss-uncovered"]
    assert note.text == row.label


def test_the_kernel_lists_contexts_or_says_it_cannot(veth_ns: VethNs) -> None:
    """The RSS_GET dump (core/host/rss_netlink.py) on this machine's kernel: from 6.12 it is
    accepted and filtered by the device (a veth has no RSS: no context), a name that is not
    there is ENODEV; before 6.12 the refusal reads as "cannot list"."""
    import errno
    import os

    import pytest

    from tuitune.core.host.rss_netlink import CANNOT_LIST, list_contexts, listing_refused

    major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    if (major, minor) >= (6, 12):
        assert veth_ns.kt.call(list_contexts, veth_ns.a, None) == {}
        with pytest.raises(OSError) as exc:
            veth_ns.kt.call(list_contexts, veth_ns.a + "x", None)
        assert exc.value.errno == errno.ENODEV
    else:
        with pytest.raises(OSError) as exc:
            veth_ns.kt.call(list_contexts, veth_ns.a, None)
        assert listing_refused(exc.value) == CANNOT_LIST
