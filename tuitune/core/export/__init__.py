"""Export: the tuned state as files that survive a reboot, and a check that they hold.

Formats (`FORMATS`): a sysctl.d file, udev rules for the device (MTU, txqueuelen, ethtool
settings, RPS/XPS), a systemd .link file, NetworkManager [ethtool] settings, and IRQ affinity
by queue name (applied by `tuitune apply-affinity` from a systemd unit, with irqbalance told to
leave those IRQs alone). No UI imports.

For a preview (the TUI):
    changes, problems = from_originals(access, journal.originals(), ifname)
    ctx = gather_context(access, ifname)
    plan = build_plan(changes, ctx)           # ExportRefused: an unsafe value, nothing written
    for f in plan.files: f.path, f.text, f.diff, f.warnings, f.notes, f.installable
    install(plan.files)                       # after the user confirmed
"""

from tuitune.core.export.affinity import Applied, Pin
from tuitune.core.export.affinity import apply as apply_affinity
from tuitune.core.export.build import build_plan, default_formats, parse_formats
from tuitune.core.export.changes import between, changes_from, from_journal, from_originals
from tuitune.core.export.context import ExportContext, gather_context
from tuitune.core.export.device import DeviceMatch, identify
from tuitune.core.export.files import Written, install, write_out
from tuitune.core.export.model import (
    FORMATS,
    Change,
    ExportFile,
    ExportPlan,
    ExportRefused,
    Format,
)
from tuitune.core.export.verify import Difference, Report, installed_files, verify

__all__ = [
    "FORMATS",
    "Applied",
    "Change",
    "DeviceMatch",
    "Difference",
    "ExportContext",
    "ExportFile",
    "ExportPlan",
    "ExportRefused",
    "Format",
    "Pin",
    "Report",
    "Written",
    "apply_affinity",
    "between",
    "build_plan",
    "changes_from",
    "default_formats",
    "from_journal",
    "from_originals",
    "gather_context",
    "identify",
    "install",
    "installed_files",
    "parse_formats",
    "verify",
    "write_out",
]
