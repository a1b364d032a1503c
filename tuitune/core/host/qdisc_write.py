"""Setting the root qdisc: RTM_DELQDISC / RTM_NEWQDISC on a NETLINK_ROUTE socket.

Written by hand rather than with pyroute2's `tc()`: pyroute2 0.9 has no fq, and for a kind
it has no plugin for it forces the parent to the root and drops the options, so fq under mq
could not be built. The messages are small (a tcmsg, TCA_KIND, TCA_OPTIONS: qdisc_spec.py).

A write replaces the whole root: delete it (the kernel attaches its default), then add the
new one, so no option of the old qdisc survives in the new one (a `tc qdisc change` keeps
what it is not given). Opened per write on the calling thread, which must be the host's
kernel thread (the socket lives in that thread's network namespace).
"""

from __future__ import annotations

import errno
import os
import socket
import struct
from typing import Protocol

from tuitune.core.host.ethtool_netlink import pack_attr
from tuitune.core.host.nlmsg import NLMSGHDR, messages
from tuitune.core.host.qdisc import ROOT
from tuitune.core.host.qdisc_spec import Leaf, Spec, options_payload

RTM_NEWQDISC, RTM_DELQDISC = 36, 37
NLMSG_ERROR = 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_REPLACE, NLM_F_CREATE = 0x1, 0x4, 0x100, 0x400
TCA_KIND, TCA_OPTIONS = 1, 2
_TCMSG = struct.Struct("=BxxxiIII")  # family, pad, ifindex, handle, parent, info
MQ_HANDLE = 0x10000  # "1:": mq's children are 1:1, 1:2, ... one per tx queue
MAX_TX_QUEUES = 4096


class Sender(Protocol):
    """Sends one netlink request and returns the kernel's errno (0: done). Tests fake it."""

    def __call__(self, mtype: int, flags: int, body: bytes) -> int: ...


def tcmsg(index: int, handle: int, parent: int, kind: str | None, options: bytes = b"") -> bytes:
    body = _TCMSG.pack(socket.AF_UNSPEC, index, handle, parent, 0)
    if kind is not None:
        body += pack_attr(TCA_KIND, kind.encode() + b"\0")
    if options:
        body += pack_attr(TCA_OPTIONS, options)
    return body


class NetlinkSender:
    """One NETLINK_ROUTE socket; each request waits for its acknowledgement."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        self._sock.bind((0, 0))
        self._seq = 0

    def __call__(self, mtype: int, flags: int, body: bytes) -> int:
        self._seq += 1
        hdr = NLMSGHDR.pack(NLMSGHDR.size + len(body), mtype, flags | NLM_F_ACK, self._seq, 0)
        self._sock.send(hdr + body)
        while True:
            for kind, _flags, seq, part in messages(self._sock.recv(65536)):
                if seq == self._seq and kind == NLMSG_ERROR:
                    return -int(struct.unpack_from("=i", part)[0])

    def close(self) -> None:
        self._sock.close()


def _check(code: int) -> None:
    if code:
        raise OSError(code, os.strerror(code))


def set_root(send: Sender, index: int, spec: Spec | None, tx_queues: int) -> None:
    """Make `spec` the root qdisc of interface `index` (None: the kernel's default).

    OSError with the kernel's errno when it refuses (an unknown kind: ENOENT; the caller's
    journal then puts the original back). A missing root to delete (ENOENT, EINVAL: the
    default is there already) is not a refusal."""
    code = send(RTM_DELQDISC, NLM_F_REQUEST, tcmsg(index, 0, ROOT, None))
    if code not in (0, errno.ENOENT, errno.EINVAL):
        _check(code)
    if spec is None:
        return
    create = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE
    if not spec.mq:
        assert spec.leaf is not None
        _check(send(RTM_NEWQDISC, create, _leaf_msg(index, 0, ROOT, spec.leaf)))
        return
    _check(send(RTM_NEWQDISC, create, tcmsg(index, MQ_HANDLE, ROOT, "mq")))
    if spec.leaf is None:
        return
    for q in range(min(tx_queues, MAX_TX_QUEUES)):
        _check(send(RTM_NEWQDISC, create, _leaf_msg(index, 0, MQ_HANDLE | (q + 1), spec.leaf)))


def _leaf_msg(index: int, handle: int, parent: int, leaf: Leaf) -> bytes:
    return tcmsg(index, handle, parent, leaf.kind, options_payload(leaf))
