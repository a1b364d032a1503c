"""One handler per kind family (sysctl, ethtool groups, link, queues, IRQ, service, process
affinity): how a group reads, how a typed value is checked, how it is written, what a write
touches, how a key names itself, the shape of its values (`form`, `canonical`: asked by the
journal's check of an original, `verify` and the udev and NetworkManager writers) and
whether an export carries it with its interface (`of_interface`), its part of a `show --json`
document (`show_requests`, showform.py's readers) and its own udev lines where it has them
(`udev_lines`, each value through safe.py, the leaf the exporters share). `table.HANDLERS`
maps each `Kind` to its handler; `session/access.py` keeps thread hopping and host-wide
routing.
A handler is given a `KernelPort` (port.py: the kernel calls it may make), which HostAccess
satisfies. Imports core.host, the catalog and session's value modules; never access.py, not
even for types (the import-linter contract "kinds-below-access" holds it)."""
