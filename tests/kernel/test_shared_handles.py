"""One owner of the kernel handles: the live screen's reads and writes share one netlink socket
and one ethtool handle per device, and forgetting a vanished device forgets it for both."""

from __future__ import annotations

from pathlib import Path

from tests.kernel.conftest import VethNs
from tuitune.core.host.root import HostRoot
from tuitune.core.session import Key, Session
from tuitune.core.watch.hostreader import HostReader


def test_reader_and_session_share_handles(veth_ns: VethNs, tmp_path: Path) -> None:
    reader = HostReader(HostRoot(netns=veth_ns.ns))
    session = Session(reader.root, journal_dir=tmp_path, call=reader.call, handles=reader.handles)
    try:
        nic = reader.nic_state(veth_ns.a)
        access = session.access()
        assert access.read(Key.mtu(veth_ns.a)) == str(nic.link.mtu)
        handle = reader.call(reader.handles.ethtool, veth_ns.a)
        # The write side asks the same owner: the very handle the reader opened.
        assert reader.call(access.ethtool, veth_ns.a) is handle
        assert reader.call(access.iproute) is reader.call(reader.handles.iproute)
        reader.forget(veth_ns.a)
        assert reader.call(access.ethtool, veth_ns.a) is not handle  # fresh for both
        session.close()
    finally:
        reader.close()
