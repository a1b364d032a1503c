"""The platform's worst static finding: the NIC panel title's note on the live screen, the
`show` report's title. Apart from core/platformview.py (the Host view's rows and
`show --json`), which walks every setting kind's handler: the note is read from the fifth
sample on, and a small host's screen stays within its memory budget without the kinds'
modules (issue 38, goal 3: about 3 MB resident) until a change or the Host view needs them.
"""

from __future__ import annotations

from dataclasses import replace

from tuitune.core.advise import EMPTY, RULES, Context, Facts
from tuitune.core.advise.model import SEVERITIES, Finding
from tuitune.core.host.platform import Platform
from tuitune.core.watch.snapshot import HostState, NicState

# The rules that judge the platform without a window (the screen's header names the worst).
STATIC_RULES = (
    "pcie-degraded",
    "pcie-payload",
    "msix-short",
    "cpu-governor",
    "cstates-deep",
    "smt-shared-core",
    "optics-rx-low",
)


def worst(host: HostState, nic: NicState | None, platform: Platform) -> Finding | None:
    """The worst static platform finding (no window needed), for the NIC panel's header."""
    facts = replace(Facts(host, nic, EMPTY, Context()), platform=platform)
    found = [out for rule in STATIC_RULES for out in RULES[rule](facts) if isinstance(out, Finding)]
    found.sort(key=lambda f: SEVERITIES.index(f.severity))
    return found[0] if found else None
