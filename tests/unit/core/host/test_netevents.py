"""The kernel's uevents as the device watch reads them from the netlink socket (no pyudev):
the shapes the kernel sends, and what is not a uevent. The socket itself, in a namespace of
its own, is tests/kernel/test_device_events.py."""

from __future__ import annotations

from tuitune.core.host.netevents import event_names, parse_uevent

RENAME = (
    b"move@/devices/virtual/net/vr\0ACTION=move\0DEVPATH=/devices/virtual/net/vr\0"
    b"SUBSYSTEM=net\0DEVPATH_OLD=/devices/virtual/net/va\0INTERFACE=vr\0IFINDEX=7\0SEQNUM=9\0"
)


def test_a_rename_names_both_the_new_and_the_old_interface() -> None:
    event = parse_uevent(RENAME)
    assert event is not None
    action, props = event
    assert action == "move" and props["SUBSYSTEM"] == "net"
    assert event_names(props) == {"vr", "va"}


def test_an_add_names_its_interface_only() -> None:
    event = parse_uevent(b"add@/devices/virtual/net/v1\0ACTION=add\0SUBSYSTEM=net\0INTERFACE=v1\0")
    assert event is not None
    assert event[0] == "add" and event_names(event[1]) == {"v1"}


def test_what_is_not_a_kernel_uevent_is_dropped() -> None:
    assert parse_uevent(b"") is None
    assert parse_uevent(b"libudev\0\xfe\xed\xca\xfe") is None  # udevd's own, re-sent form
    assert parse_uevent(b"add@/devices/x\0SUBSYSTEM=net\0") is None  # no ACTION
    odd = parse_uevent(b"add@/x\0ACTION=add\0=v\0NOEQUALS\0INTERFACE=\xff\0")
    assert odd is not None
    assert odd[1] == {"ACTION": "add", "INTERFACE": "\ufffd"}
