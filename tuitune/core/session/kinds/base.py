"""What every kind handler shares: the handler Protocol, the refusal in plain words and the
file writer.

A handler gets a `KernelPort` (`acc`, port.py; `HostAccess` is the one the program passes):
the kernel thread's helpers (ethtool handles, netlink, CPU sets, the IRQ parse cache) stay
behind it; what is particular to a family (how its group reads, how a typed value is checked,
how it is written) lives in its module.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from tuitune.core import catalog
from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist

# EthtoolLike, FileWriter, GroupRead, Values: re-exported, where the kinds have always found them.
from tuitune.core.host.ethtool_device import EthtoolLike as EthtoolLike
from tuitune.core.host.platform import KindRead, Platform
from tuitune.core.host.root import HostRoot, KernelFileError, open_in_tree, read_value
from tuitune.core.session import kernel_said
from tuitune.core.session.kinds.edit import CANNOT_CHANGE, EditContext, EditSpec, HostRowEdit
from tuitune.core.session.kinds.hostrow import Row
from tuitune.core.session.kinds.port import FileWriter as FileWriter
from tuitune.core.session.kinds.port import GroupRead as GroupRead
from tuitune.core.session.kinds.port import HostPlacing, KernelPort
from tuitune.core.session.kinds.port import Values as Values
from tuitune.core.session.kinds.safe import Checker
from tuitune.core.session.kinds.showform import ShowDoc, ShowPart, ShowSource
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import Request, check_name
from tuitune.core.session.settings import NO_CPUS, Key, Kind
from tuitune.core.values import Unavailable, errno_state
from tuitune.core.watch.snapshot import NicState

NOT_RECORDED = Unavailable("missing", "not recorded in this host tree")
# The export formats that write an interface's own settings (export/model.py's FORMATS).
DEVICE_CARRIERS: tuple[str, ...] = ("udev", "link", "nm")
# What the words of an `ethtool` set command are (export/udev.py checks each by its safe.*
# check): feature names, private flag names, a group's fields, or one `encoding MODES` per
# device (FEC).
EthtoolWords = Literal["feature", "priv_flag", "field", "encoding"]


@dataclass(frozen=True)
class EthtoolSet:
    """How `ethtool` sets a kind when the device appears (the udev rules' RUN, and `verify`
    reading them back). `step` orders the commands: channels first (the queues and the rings
    depend on them), then the driver's private flags and FEC (a flag may reset the device,
    i40e's and ixgbe's do, so what follows is set on the device as it comes back), features
    last (a ring change may reset the device)."""

    option: str
    step: int
    words: EthtoolWords = "field"
    # "encoding": the check of its one value before it lands in a file (kinds/safe.py's
    # UnsafeValue otherwise), the handler's own.
    encoding: Callable[[Key, str], str] | None = None
    # What the udev rules' comment over its command adds to its group's name (channels: why
    # its command runs first).
    note: str = ""


@dataclass(frozen=True)
class ProfileField:
    """Where a TOML profile's [interface] holds a kind (session/profile.py): `name` is its
    value (`mtu = 9000`) or, with `table`, its table of names ([interface.rings] rx = 4096)."""

    name: str
    table: bool = True


@dataclass(frozen=True)
class UdevRun:
    """One change as a handler's own udev lines see it (export/udev.py makes it): its key,
    the value to set, what it was (for the comment: export/common.py's `was`) and the full
    paths of the programs a RUN calls."""

    key: Key
    value: str
    was: str
    ethtool: str
    tc: str


# A handler's udev lines for one change, and why the change is left out (None: it is written).
UdevLines = tuple[list[str], str | None]


@dataclass(frozen=True)
class UdevRead:
    """One setting a handler reads back from a RUN of its own udev lines (`tuitune verify`):
    its key and canonical value. `after`: the line completes the one before it, which must
    hold this key at this value (an mq's children line completes its `mq` line); a line that
    finds no such one before it is not read."""

    key: Key
    value: str
    after: str | None = None


def ethtool_args(command: str, option: str) -> list[str] | None:
    """The words after `$name` of an `ethtool OPTION $name ...` RUN command, or None."""
    words = command.split()
    if len(words) < 3 or not words[0].endswith("ethtool") or words[1] != option:
        return None
    return words[3:]


class KindHandler(Protocol):
    """One family of kinds. `read` gives the whole group `key` belongs to (read once for all
    its keys); `group` names that group (keys with one id are read together); `related` is
    `key` and what a write to it may change as well. `calling_thread`: validated and written
    on the caller's thread, not the kernel thread (a daemon started from a thread inside a
    namespace would run in it). `of_interface`: its keys are settings of one interface (or
    its queues and IRQs), exported with it; False: the host's, in every interface's export.
    `row_key`: the live screen's panel row that shows `key` ("rings:rx"). `patch`: a NIC's
    state with `value` that a write read back (session/readback.py), before the re-read.
    `rows`: the panel rows' kinds ("rings" of "rings:rx") it edits; `edit`: how to edit the
    setting behind row "ROW:REST", or why it cannot be (kinds/edit.py).
    `always_on_trial`: a change to it is applied on trial wherever it is made, and
    `resets_link(key)`: on trial because the driver resets the link for it (session/risk.py).
    `carriers`: the export formats that write it (export/build.py's FORMATS), and
    `not_exported`: why no export ever writes it (then `carriers` is empty). `ethtool_set`:
    the `ethtool` command that sets it at boot (None: not ethtool's); `sysfs_attr(key)`: the
    device's (or its queue's) sysfs attribute udev's ATTR{} writes for it, or None.
    `profile_field(kind)`: where a TOML profile's [interface] holds it (None: not there), and
    `check_profile_name`: a name in its table, refused (ProfileError) unless it may be one.
    `host_row`: how `e` on its Host view row edits it (kinds/edit.py), None: it has none.
    `platform_read`: what it reads of the interface itself for the platform snapshot
    (host/platform.py's `KindRead`: run by read_driver, kept by a capture), None: nothing;
    `host_rows(kind, platform)`: its own rows of the Host view (kinds/hostrow.py), from that
    read, each put at the end of its section (core/platformview.py); () when it has none.
    `udev_turn`: the kind writes its own udev lines (`udev_lines(run, check)`, each value
    through kinds/safe.py's checks), in this turn after every ATTR and ethtool command of
    the device (the steering after `ethtool -L`, which resets it and makes the rx queues its
    rules name); None: the ATTR and ethtool tables above write it. `udev_readback(command,
    ifname)`: what one RUN command of its own lines sets (`tuitune verify`), [] when the
    command is not one of them.
    `show_requests(kind, doc)`: what `tuitune apply` of a `show --json` document asks of
    `kind`, read strictly from its part of the document (kinds/showform.py; [] when it has
    none). A part holding several kinds at once (a queue's rps_cpus, rps_flow_cnt and
    xps_cpus) is read at one of them, so the requests keep the document's order.
    `show_json(kind, src)`: its part of the `show --json` document (core/jsondoc.py), the
    value at each place ({} when it has none, or the read it is written from is missing):
    the part `show_requests` reads back.
    `place(kind, request, host, errors)`: the keys of this host a profile's host-wide request
    stands for (a CPU selector's policies, a C-state's index on each CPU), a request that
    cannot be placed a line in `errors`; {} for the interface's kinds (profile.py names them).
    `members`: a change to one key writes its members too (a process: each of its threads,
    in `related`), told as a count of them ("also its 12 thread(s)"), and a member its whole's
    put-back already gave its original is not told again; None: each related key is told.
    `may_vanish`: a key that can be gone for good (a process that exited): "unchanged" with
    no value is told by its reason alone. `permission_option`: the command-line option that
    lets root change it where a refusal for permission is tuitune's, not the kernel's
    (another user's process: --other-users), or None.
    `moved_back_by`: the daemon that would move it back while it runs (an IRQ's affinity:
    irqbalance), so the live screen asks before the first change; None: nobody does.
    `makes_queues`: a change to it makes or removes the interface's queues and re-spreads
    their IRQs (a channel count): the journal puts it back before the queues' settings and
    keeps the queue IRQs it may move, and a profile's queue settings wait for it.
    `consent`: the question to ask the user before changing `key` (another user's process),
    or None. `host_wide(key)`: why changing `key` from a network-namespace session changes
    the whole host (a sentence naming what it is: "The CPU governor is the host's..."),
    or None when it is the namespace's own or belongs to its interface (an IRQ, a queue): the
    screen asks before such a change, and HostAccess refuses it without `host_writes`."""

    calling_thread: bool
    of_interface: bool
    rows: tuple[str, ...]
    always_on_trial: bool
    carriers: tuple[str, ...]
    not_exported: str | None
    ethtool_set: EthtoolSet | None
    host_row: HostRowEdit | None
    platform_read: KindRead | None
    udev_turn: int | None
    members: str | None
    makes_queues: bool
    moved_back_by: str | None
    may_vanish: bool
    permission_option: str | None

    def read(self, acc: KernelPort, key: Key) -> GroupRead: ...
    def absent(self, key: Key) -> Unavailable: ...
    def validate(self, acc: KernelPort, key: Key, text: str) -> str: ...
    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]: ...
    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]: ...
    def label(self, key: Key) -> str: ...
    def scope(self, key: Key) -> catalog.Scope: ...
    def group(self, key: Key) -> tuple[object, ...]: ...
    def form(self, key: Key) -> Form: ...
    def canonical(self, key: Key, text: str) -> str: ...
    def row_key(self, key: Key) -> str: ...
    def patch(self, nic: NicState, key: Key, value: str, effect: bool) -> NicState: ...
    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str: ...
    def resets_link(self, key: Key) -> bool: ...
    def consent(self, key: Key, root: HostRoot) -> str | None: ...
    def host_wide(self, key: Key) -> str | None: ...
    def sysfs_attr(self, key: Key) -> str | None: ...
    def profile_field(self, kind: Kind) -> ProfileField | None: ...
    def host_rows(self, kind: Kind, platform: Platform) -> tuple[Row, ...]: ...
    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None: ...
    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]: ...
    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart: ...
    def place(
        self, kind: Kind, r: Request, host: HostPlacing, errors: list[str]
    ) -> dict[Key, str]: ...
    def udev_lines(self, run: UdevRun, check: Checker) -> UdevLines: ...
    def udev_readback(self, command: str, ifname: str) -> list[UdevRead]: ...


# `form`: the shape of a key's values as `read` gives them: a whole number, on/off, a CPU list
# ("none" allowed, or at least one CPU), or text only the kernel (or a check) judges. The
# journal checks an original's shape by it, and exporters pick how to write a value by it.
# `canonical`: a value from a file (an exported one, or any sysctl.d file) in the form `read`
# gives, so the two compare.
Form = Literal["count", "switch", "cpus", "some_cpus", "text"]
_COUNT = re.compile(r"[0-9]{1,10}")
_CPU = r"[0-9]{1,5}(?:-[0-9]{1,5})?"  # the kernel has at most 8192 CPUs (NR_CPUS)
_CPUS = re.compile(rf"none|{_CPU}(?:,{_CPU})*")


def well_formed(form: Form, value: str) -> bool:
    """Has `value` the shape of `form` (the kernel has the last word on the rest)?"""
    if form == "count":
        return _COUNT.fullmatch(value) is not None
    if form == "switch":
        return value in ("on", "off")
    if form in ("cpus", "some_cpus"):
        return _CPUS.fullmatch(value) is not None and (form == "cpus" or value != NO_CPUS)
    return True


def yes_is_on(text: str) -> str:
    """The words files use for "on" (udev, .link, keyfiles) as the reader says it."""
    return "on" if text in ("yes", "true", "on") else text


def switch_word(text: str) -> str:
    """yes_is_on, and the words for "off" too: for families whose values include switches."""
    return "off" if text in ("no", "false", "off") else yes_is_on(text)


def cpus_canonical(text: str) -> str:
    """A CPU list as the reader prints it ("0,1,2" -> "0-2"); text that is none as it is."""
    if text == NO_CPUS:
        return text
    try:
        cpus = parse_cpulist(text)
    except CpuListError:
        return text
    return format_cpulist(cpus) if cpus else NO_CPUS


class Family:
    """Defaults most families share: one value per key, "not present", on the kernel thread."""

    calling_thread = False
    of_interface = True
    rows: tuple[str, ...] = ()  # no panel row edits it
    always_on_trial = False
    # An interface's own settings: written beside it at boot (udev rules, .link, NetworkManager).
    carriers: tuple[str, ...] = DEVICE_CARRIERS
    not_exported: str | None = None
    ethtool_set: EthtoolSet | None = None
    host_row: HostRowEdit | None = None
    platform_read: KindRead | None = None
    udev_turn: int | None = None
    members: str | None = None
    makes_queues = False
    moved_back_by: str | None = None
    may_vanish = False
    permission_option: str | None = None
    value_form: Form  # no default: each family says the shape of its values (or has `form`)

    def form(self, key: Key) -> Form:
        return self.value_form

    def absent(self, key: Key) -> Unavailable:
        return Unavailable("missing", f"{key.label}: not present")

    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]:
        return own_related(acc, key, whole_group=False)

    def scope(self, key: Key) -> catalog.Scope:
        return "netns"

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind, key.ifname)

    def canonical(self, key: Key, text: str) -> str:
        if self.form(key) in ("cpus", "some_cpus"):
            return cpus_canonical(text)
        return yes_is_on(text)

    def row_key(self, key: Key) -> str:
        return f"{key.kind}:{key.name}"

    def patch(self, nic: NicState, key: Key, value: str, effect: bool) -> NicState:
        return nic  # the re-read that follows every change shows it

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        return CANNOT_CHANGE

    def resets_link(self, key: Key) -> bool:
        return False

    def consent(self, key: Key, root: HostRoot) -> str | None:
        return None  # nobody else's to change

    def host_wide(self, key: Key) -> str | None:
        return None  # the namespace's own, or its interface's

    def sysfs_attr(self, key: Key) -> str | None:
        return None

    def profile_field(self, kind: Kind) -> ProfileField | None:
        return None

    def host_rows(self, kind: Kind, platform: Platform) -> tuple[Row, ...]:
        return ()  # the platform frame's rows (core/platformview.py) show it, or none does

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        check_name("field", name, origin)  # so a typo or a hostile name stops at the file

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        return []  # nothing of `show --json` is applied to it

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        return {}  # the document's generic parts (the interface's dataclass) hold it

    def place(self, kind: Kind, r: Request, host: HostPlacing, errors: list[str]) -> dict[Key, str]:
        return {}  # an interface's kind: session/profile.py makes its key from the name

    def udev_lines(self, run: UdevRun, check: Checker) -> UdevLines:
        return [], None  # never asked: no udev_turn (the ATTR and ethtool tables write it)

    def udev_readback(self, command: str, ifname: str) -> list[UdevRead]:
        return []  # no lines of its own (udev_lines): the ATTR and ethtool tables read it


class HostFile(Family):
    """A host-wide setting held in one file (a cpufreq policy's governor, a C-state's
    `disable`, a module parameter): read as the kernel prints it and written as one value to
    that file, so the journal's original is exactly what was there and a restore writes it
    back."""

    value_form: Form = "text"
    of_interface = False

    def file(self, acc: KernelPort, key: Key) -> Path:
        """The key's file; WriteRefused for a name that is not one of this family's."""
        raise NotImplementedError

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        try:
            path = self.file(acc, key)
        except WriteRefused as exc:
            return exc.state
        value = read_value(acc.root, path, key.label)
        return value if isinstance(value, Unavailable) else {key: value}

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        acc.writer(self.file(acc, key), value)
        return ()

    def scope(self, key: Key) -> catalog.Scope:
        return "host"

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind, key.name)


def own_related(acc: KernelPort, key: Key, *, whole_group: bool) -> dict[Key, str | None]:
    """`key` with its value (None: absent); `whole_group`: every key of its group too (the
    other fields of an ethtool struct; each thread of a process)."""
    group = acc.read_group(key)
    out: dict[Key, str | None] = {key: None}
    if isinstance(group, Unavailable):
        return out
    if whole_group:
        out.update(group)
    else:
        out[key] = group.get(key)
    return out


class WriteRefused(Exception):
    """The setting cannot be changed (now, here); `state` says why in plain words."""

    def __init__(self, key: Key, state: Unavailable) -> None:
        state = _labelled(key, state)
        super().__init__(state.reason)
        self.key = key
        self.state = state


def _labelled(key: Key, state: Unavailable) -> Unavailable:
    """Name the setting in the reason: "rings: not supported by veth" -> "eth2 rings rx: not
    supported by veth", so a list of refusals says which line each is about."""
    if state.reason.startswith(key.label):
        return state
    head, sep, rest = state.reason.partition(": ")
    reason = rest if sep and head in (key.group, key.kind) else state.reason
    return Unavailable(state.kind, f"{key.label}: {reason}")


def write_file(path: Path, text: str, jail: str | None = None) -> None:
    """One write(2) of a /proc or /sys value (or a fixture tree's file): the kernel's answer
    comes back as the OSError of that write. Never creates a file. In a --root tree (`jail`)
    the file must be inside the tree: a linked directory never leads the write out of it."""
    fd = open_in_tree(path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW, jail, str(path))
    try:
        os.write(fd, text.encode() + b"\n")
    finally:
        os.close(fd)


def managed_irq(label: str) -> Unavailable:
    """A kernel-managed IRQ: learnt from EIO on a write, or from irq debugfs before one."""
    return Unavailable(
        "unsupported", f"{label}: managed by the kernel (its affinity is fixed by the driver)"
    )


def refusal(key: Key, exc: OSError, value: str | None = None) -> Unavailable:
    """A kernel's errno on a write, in plain words."""
    code, label = exc.errno, key.label
    if isinstance(exc, KernelFileError):  # not the kernel's answer: the tree's file was refused
        return Unavailable(exc.state.kind, f"{label}: {exc.state.reason}")
    shown = f" {value}" if value is not None else ""
    if code == errno.EIO and key.kind == "irq_affinity":
        return managed_irq(label)
    if code in (errno.EPERM, errno.EACCES):
        # As root with the capability, the kernel refused the value, not tuitune's right.
        said = kernel_said.privileged_refusal(key, code, value)
        if said is not None:
            return said
    state = errno_state(exc, "write", label, value=shown)  # core/values.py: the one table
    return state or Unavailable("error", f"{label}: {exc.strerror or exc}")


def switch(b: bool) -> str:
    return "on" if b else "off"
