"""Which systemd unit a process runs in, and whose manager owns it, from /proc/PID/cgroup."""

from __future__ import annotations

import re

# systemd unit names (systemd.unit(5)): ASCII letters, digits, ":-_.\\" and one "@".
_UNIT = re.compile(r"^[A-Za-z0-9:_.\\@-]{1,255}\.(service|scope)$")
_USER_MANAGER = re.compile(r"^user@([0-9]{1,10})\.service$")


def unit_of(cgroup: bytes) -> tuple[str, int | None] | None:
    """The systemd unit of a process from /proc/PID/cgroup (its v2 path,
    "0::/system.slice/nginx.service"), and whose manager owns it: None for systemd's system
    manager, a uid for that user's manager (user@UID.service). None outside any unit.

    A unit is the first cgroup below the slices: what lies under a unit's cgroup is that
    unit's own, and may be delegated (user@UID.service always is, a container's scope may be),
    so its owner can name a cgroup there "sshd.service". Such names are never taken for units
    of the system manager; inside user@UID.service the user's manager's unit is found the same
    way, and called theirs."""
    for line in cgroup.decode("utf-8", "replace").splitlines():
        hier, _, path = line.partition(":")
        if hier != "0":
            continue
        _, _, path = path.partition(":")
        owner: int | None = None
        for part in path.split("/"):
            if not part or part.endswith(".slice"):
                continue
            user = _USER_MANAGER.match(part)
            if user is not None and owner is None:
                owner = int(user.group(1))
                continue
            return (part, owner) if _UNIT.match(part) else None
    return None


def systemd_unit(cgroup: bytes) -> str | None:
    """The unit's name from `unit_of` (whichever manager owns it)."""
    found = unit_of(cgroup)
    return found[0] if found is not None else None
