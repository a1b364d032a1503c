"""Each queue's RPS/XPS CPU set and RPS flow count (sysfs, one device's queues read at once)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.core.cpulist import format_cpulist, format_mask
from tuitune.core.host.netdev import QueueMasks, read_queues
from tuitune.core.session import validate as v
from tuitune.core.session.kinds.base import (
    Family,
    Form,
    GroupRead,
    ProfileField,
    Values,
)
from tuitune.core.session.kinds.edit import PICK_INTERFACE, EditContext, EditSpec
from tuitune.core.session.kinds.showform import (
    ShowDoc,
    array,
    cpus,
    fields,
    is_refusal,
    obj,
    once,
    whole,
)
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import ALL_QUEUES, ProfileError, Request, check_name
from tuitune.core.session.settings import NO_CPUS, Key, Kind, cpus_of, cpus_value
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort

RPS_FLOW_CNT_MAX = 1 << 30  # the largest power of two the kernel accepts (count <= INT_MAX)


class Queues(Family):
    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField(kind)  # [interface.rps_cpus] "rx-0" = [0, 1] (or "*")

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        if name != ALL_QUEUES:
            check_name("queue", name, origin)
            side = "tx-" if kind == "xps_cpus" else "rx-"
            if not name.startswith(side):
                raise ProfileError(f'{origin}: {kind} is set on {side}N queues (or "*")')

    carriers: tuple[str, ...] = ("udev",)  # sysfs files a .link file cannot set

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        # One part holds all three kinds, queue by queue: read once, at rps_cpus's turn.
        if doc.iface is None or kind != "rps_cpus":
            return []
        return _show_queues(doc.iface.get("queues", []))

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        return read_device_queues(acc, key.ifname or "")

    def absent(self, key: Key) -> Unavailable:
        return Unavailable("missing", f"{key.label}: no queue {key.name} (now)")

    def sysfs_attr(self, key: Key) -> str | None:
        return key.kind  # queues/rx-0/rps_cpus, xps_cpus, rps_flow_cnt: named as the kinds

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        if key.kind == "rps_flow_cnt":
            acc.current(key)
            return v.parse_power_of_two(key, text, RPS_FLOW_CNT_MAX)
        current = acc.current(key)  # the queue must exist
        return acc.host_cpus().parse(key, text, allow_empty=True, current=current)

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        if key.kind == "rps_flow_cnt":
            acc.writer(_queue_path(acc, key), value)
        else:
            _, present = acc.cpus()
            mask = format_mask(cpus_of(value), max(present, default=0) + 1)
            acc.writer(_queue_path(acc, key), mask)
        return ()

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} {key.name} {key.kind}"

    def group(self, key: Key) -> tuple[object, ...]:
        return ("queues", key.ifname)

    def form(self, key: Key) -> Form:
        return "count" if key.kind == "rps_flow_cnt" else "cpus"

    def row_key(self, key: Key) -> str:
        # A queue's row edits its CPU set; its flow count has no row of its own.
        return f"{key.kind}:{key.name}" if key.kind == "rps_flow_cnt" else f"queue:{key.name}"

    rows: tuple[str, ...] = ("queue",)

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        ifname, nic = ctx.ifname, ctx.nic
        if ifname is None or nic is None:
            return PICK_INTERFACE
        q = next((q for q in nic.queues if q.name == rest), None)
        if q is None:
            return f"{rest}: no such queue"
        if isinstance(q.cpus, Unavailable):
            return q.cpus.reason
        key = Key.rps_cpus(ifname, rest) if rest.startswith("rx") else Key.xps_cpus(ifname, rest)
        current = format_cpulist(q.cpus) or "none"
        hint = ctx.cpus_hint + ", or none"
        return EditSpec(key, current, hint, cpus=ctx.ncpus, possible=ctx.possible)


def read_device_queues(acc: KernelPort, ifname: str) -> GroupRead:
    if not acc.root.sys_path(f"class/net/{ifname}").exists():
        return Unavailable("missing", f"{ifname}: no such interface")
    out: Values = {}
    for q in read_queues(acc.root, ifname):
        rx = q.name.startswith("rx-")
        if not isinstance(q.cpus, Unavailable):
            key = Key.rps_cpus(ifname, q.name) if rx else Key.xps_cpus(ifname, q.name)
            out[key] = cpus_value(q.cpus)
        if isinstance(q.rps_flow_cnt, int):
            out[Key.rps_flow_cnt(ifname, q.name)] = str(q.rps_flow_cnt)
    return out


def _queue_path(acc: KernelPort, key: Key) -> Path:
    return acc.root.sys_path(f"class/net/{key.ifname}/queues/{key.name}/{key.kind}")


def _show_queues(v: object) -> list[Request]:
    """`interface.queues`: each queue's CPUs (rps_cpus of an rx queue, xps_cpus of a tx
    queue) and an rx queue's rps_flow_cnt, in the document's order."""
    out: list[Request] = []
    seen: set[str] = set()
    for i, raw in enumerate(array(v, "interface.queues")):
        at = f"interface.queues[{i}]"
        q = obj(raw, at, fields(QueueMasks), ("name", "cpus"))
        name = check_name("queue", q["name"], f"{at}.name")
        once(seen, name, f"{at}.name")
        rx = name.startswith("rx-")
        if not is_refusal(q["cpus"], f"{at}.cpus"):
            got = cpus(q["cpus"], f"{at}.cpus")
            text = format_cpulist(got) if got else NO_CPUS
            qkind: Kind = "rps_cpus" if rx else "xps_cpus"
            out.append(Request(qkind, name, text, f"interface.queues {name}"))
        flows = q.get("rps_flow_cnt")
        if flows is None or is_refusal(flows, f"{at}.rps_flow_cnt"):
            continue
        if not rx:
            raise ProfileError(f"{at}.rps_flow_cnt: a tx queue has none (null)")
        n = whole(flows, f"{at}.rps_flow_cnt")
        out.append(Request("rps_flow_cnt", name, str(n), f"queues {name}"))
    return out
