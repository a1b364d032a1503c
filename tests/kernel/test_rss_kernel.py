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
