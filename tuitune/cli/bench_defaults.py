"""Where `tuitune bench`, `runs` and `sweep` find what the user did not name: the lab of
`tuitune lab` (its interface, namespace and peer), the hint that restarts its server, and the
notebook file a run is recorded in. Apart from bench.py because runs.py and sweep.py use them
too, and bench.py registers `runs`.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tuitune.core.bench.notebook import Notebook


def current_lab() -> Any | None:
    """The lab of `tuitune lab`, if there is one (and the lab module exists)."""
    try:
        from tuitune.core import lab
    except ImportError:
        return None
    try:
        return lab.current_lab()
    except Exception:  # an unreadable state file: as if there were no lab
        return None


def lab_hint(lab: Any) -> str:
    return (
        f"`tuitune lab` (it restarts the lab's server), or: ip netns exec {lab.peer_netns} "
        f"iperf3 -s -B {lab.peer_addr} -D"
    )


def open_notebook(args: argparse.Namespace, ifname: str | None, netns: str | None) -> Notebook:
    """The notebook of --notebook, else the interface's own (under the state directory)."""
    from tuitune.core.bench.notebook import Notebook

    if args.notebook is not None:
        return Notebook(args.notebook)
    assert ifname is not None
    return Notebook(Notebook.default_path(ifname, netns=netns))
