"""A `tuitune show --json` document read back by `tuitune apply`: strictly (docs/profile.md).

Every field `apply` takes a value from must have its type and range (whole numbers, not 1.5,
true or NaN; finite; CPU numbers; names of the shape their kind has), or the whole document is
refused with one line naming the field. Keys are checked against the snapshot dataclasses the
document is generated from (jsondoc.py), so a field `show` writes is never unknown here and a
field it does not write (a typo, a newer tuitune's setting) is refused rather than skipped.

This module checks the document's frame (schema, version, top-level fields, the interface
and its link) and walks the kind table: each kind's handler reads its part (`show_requests`,
session/kinds/, with kinds/showform.py's readers), in kinds/table.py's SHOW_ORDER. The parts
no handler reads are ignored whatever they hold: `tuitune`, `host`, `rates`, `queue_rates`,
`rss` but for `setting`, `flow_hash` and `ntuple`, `qdiscs` (`interface.qdisc` is applied),
`connections`, `platform` but for the driver's private flags, configured FEC modes and
writable module parameters and the CPU power (governor, EPP, boost, C-states disabled),
`interface.placement`, `.driver`, `.driver_stats`, the link's fields other than ifname, mtu
and txqlen, and each sysctl's `unavailable`, `note`, `scope` and `summary`.
"""

from __future__ import annotations

from tuitune.core.host.netdev import Link
from tuitune.core.jsondoc import SCHEMA, SCHEMA_VERSION
from tuitune.core.names import netns_problem
from tuitune.core.session.kinds.showform import ShowDoc, fields, obj, what
from tuitune.core.session.kinds.table import handler, show_order
from tuitune.core.session.profile_model import Profile, ProfileError, Request, check_ifname
from tuitune.core.watch.snapshot import NicState

# "processes" is read and not applied: a PID means nothing once its process is gone (a
# profile's [processes] section names them by command instead). "platform" (CPU power, PCIe,
# driver) is a report of the host: only the driver's private flags, configured FEC modes and
# writable parameters and the CPU power are applied from it; "queue_rates" (per-queue
# counters), "qdiscs" and "connections": read, nothing to set ("interface.qdisc",
# "rss.setting", "rss.flow_hash" and "rss.ntuple" are the journal's values, applied).
_TOP = frozenset(
    {"schema", "version", "tuitune", "host", "sysctls", "interface", "rates", "processes"}
    | {"platform", "queue_rates", "rss", "qdiscs", "connections"}
)


def parse_show_json(doc: object, *, netns: str | None = None) -> Profile:
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ProfileError("not a `tuitune show --json` document (no schema tuitune.report.show)")
    version = doc.get("version")
    if type(version) is not int or version != SCHEMA_VERSION:
        raise ProfileError(f"show document version {what(version)}: this tuitune reads 1")
    try:
        obj(doc, "the document", _TOP)
        iface = doc.get("interface")
        ifname = link = None
        if iface is not None:
            iface = obj(iface, "interface", fields(NicState), ("link",))
            link = obj(iface["link"], "interface.link", fields(Link), ("ifname",))
            ifname = check_ifname(link["ifname"], "interface.link.ifname")
        shown = ShowDoc(doc, iface, link, netns)
        requests: list[Request] = []
        for kind in show_order():
            requests += handler(kind).show_requests(kind, shown)
    except ProfileError as exc:
        raise ProfileError(f"malformed show document: {exc}") from None
    return Profile(ifname, tuple(requests), "show --json", _saved_netns(doc))


def _saved_netns(doc: dict[str, object]) -> str | None:
    """host.netns of the document when it is a name `ip netns` could hold, else None (the
    file is only a hint here: a bad value is left out, never quoted)."""
    host = doc.get("host")
    netns = host.get("netns") if isinstance(host, dict) else None
    return netns if isinstance(netns, str) and netns_problem(netns) is None else None
