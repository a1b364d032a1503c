"""CPU lists ("0-3,8") and hex masks ("ff,ffffffff"), as the kernel prints and accepts them.

Every list is bounded before it is expanded: a typed "0-4000000000" (or one in a profile or a
recorded tree) is refused in microseconds instead of building a set of four billion CPUs. The
bound is the host's possible CPUs when the caller knows them, else NR_CPUS_MAX.
"""

from __future__ import annotations

from collections.abc import Iterable

# The largest CONFIG_NR_CPUS any architecture builds (x86 MAXSMP): no kernel has a CPU number
# at or above it, so it bounds every list whose host is unknown.
NR_CPUS_MAX = 8192
# The kernel reads each number as an unsigned 32-bit int; ten digits is all one can need, and
# it keeps int() far from Python's 4300-digit limit (a ValueError of another kind).
_MAX_DIGITS = 10
_SHOWN = 24  # how much of a bad list a one-line message repeats


class CpuListError(ValueError):
    """A CPU list or mask the user typed (or a file held) is malformed."""


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes "²" (which int() refuses) and "٣"."""
    return text.isascii() and text.isdigit()


def shown(text: str, limit: int = _SHOWN) -> str:
    """`text` as a message quotes it: repr, the middle elided past `limit` characters."""
    if len(text) <= limit:
        return repr(text)
    half = limit // 2
    return f"{text[:half]!r}...{text[-half:]!r} ({len(text)} characters)"


def _bound(nbits: int | None) -> int:
    return NR_CPUS_MAX if nbits is None else max(1, min(nbits, NR_CPUS_MAX))


def _number(token: str, nbits: int | None, part: str, text: str) -> int:
    if token == "N":  # the kernel's "last CPU": nr_cpu_ids - 1
        if nbits is None:
            raise CpuListError(f"'N' (the last CPU) in {shown(text)}: this host's CPUs are unknown")
        return _bound(nbits) - 1
    if not _digits(token) or len(token.lstrip("0")) > _MAX_DIGITS:
        raise CpuListError(f"{shown(part)} in {shown(text)} is not a CPU number or range like 0-3")
    return int(token)


def _region_mask(start: int, end: int, used: int, group: int) -> int:
    """Bits start..end, of which the first `used` of every `group` (the kernel's N-M:u/g),
    built by doubling so a region costs a few big-int operations whatever its size."""
    width = end - start + 1
    used = min(used, width)  # both were bounded by the caller's limit, not by the region
    if used >= group:
        return ((1 << width) - 1) << start
    if group >= width:
        return ((1 << used) - 1) << start
    pattern, copies, needed = (1 << used) - 1, 1, -(-width // group)
    while copies < needed:
        pattern |= pattern << (group * copies)
        copies *= 2
    return (pattern & ((1 << width) - 1)) << start


def _bits(mask: int) -> frozenset[int]:
    return frozenset(i for i, bit in enumerate(reversed(bin(mask)[2:])) if bit == "1")


def parse_cpulist(text: str, nbits: int | None = None) -> frozenset[int]:
    """Parse the kernel's list format (lib/bitmap-str.c, bitmap_parselist): comma-separated
    regions, each "N", "N-M", "N-M:used/group" (0-7:2/4 is 0,1,4,5) or "all" (also with a
    ":used/group"); "N" as a number is the last CPU. "" is the empty set.

    `nbits`: how many CPU numbers the host has (its possible CPUs, the kernel's nr_cpu_ids);
    None when unknown: NR_CPUS_MAX bounds the list and "N"/"all" are refused. Every region is
    checked against the bound before any of it is expanded. The kernel's tolerance of empty
    items and of spaces between regions is not copied: those are typos more often than not.
    """
    text = text.strip()
    if not text:
        return frozenset()
    limit = _bound(nbits)
    mask = 0
    for raw in text.split(","):
        part = raw.strip()
        if not part:
            raise CpuListError(f"empty item in CPU list {shown(text)}")
        span, colon, pattern = part.partition(":")
        if span.lower() == "all":
            if nbits is None:
                raise CpuListError(f"'all' in {shown(text)}: this host's CPUs are unknown")
            start, end = 0, limit - 1
        else:
            lo_s, dash, hi_s = span.partition("-")
            start = _number(lo_s, nbits, part, text)
            end = _number(hi_s, nbits, part, text) if dash else start
            if colon and not dash:
                raise CpuListError(
                    f"{shown(part)} in {shown(text)}: a group pattern needs a range (0-7:1/2)"
                )
        used, group = end + 1, end + 1
        if colon:
            used_s, slash, group_s = pattern.partition("/")
            if not slash:
                raise CpuListError(
                    f"{shown(part)} in {shown(text)}: after ':' comes used/group, as in 0-7:1/2"
                )
            used = _number(used_s, nbits, part, text)
            group = _number(group_s, nbits, part, text)
            if group == 0 or used > group:
                raise CpuListError(f"{shown(part)} in {shown(text)}: needs 0 <= used <= group > 0")
        if end < start:
            raise CpuListError(f"range {shown(part)} in {shown(text)} runs backwards")
        if end >= limit:
            where = f"not on this host (CPUs 0-{limit - 1})" if nbits else "beyond any host"
            raise CpuListError(f"CPU {end} in {shown(text)} is {where}")
        mask |= _region_mask(start, end, used, group)
    return _bits(mask)


def format_cpulist(cpus: Iterable[int]) -> str:
    """Format as the kernel does: sorted, runs collapsed ("0-3,8")."""
    out: list[str] = []
    run_start = prev = -2
    for cpu in sorted(set(cpus)):
        if cpu == prev + 1:
            prev = cpu
            continue
        if run_start >= 0:
            out.append(str(run_start) if run_start == prev else f"{run_start}-{prev}")
        run_start = prev = cpu
    if run_start >= 0:
        out.append(str(run_start) if run_start == prev else f"{run_start}-{prev}")
    return ",".join(out)


def parse_mask(text: str, nbits: int | None = None) -> frozenset[int]:
    """Parse a hex mask in comma-separated 32-bit groups, most significant first ("ff,00000001").
    Bounded like parse_cpulist: no more groups, and no bit, than `nbits` CPUs need."""
    text = text.strip()
    if not text:
        return frozenset()
    limit = _bound(nbits)
    if text.count(",") >= -(-limit // 32):  # counted before split() makes a string of each
        raise CpuListError(f"mask {shown(text)} is wider than {limit} CPUs")
    value = 0
    for group in text.split(","):
        group = group.strip()
        if not group or len(group) > 8:
            raise CpuListError(f"bad mask group {shown(group)} in {shown(text)}")
        try:
            value = (value << 32) | int(group, 16)
        except ValueError:
            raise CpuListError(f"{shown(group)} in {shown(text)} is not hexadecimal") from None
    if value.bit_length() > limit:
        cpu = value.bit_length() - 1
        raise CpuListError(f"mask {shown(text)} names CPU {cpu}, beyond {limit} CPUs")
    return _bits(value)


def format_mask(cpus: Iterable[int], ncpus: int) -> str:
    """Format as /proc/irq/N/smp_affinity and rps_cpus print: 32-bit groups covering ncpus."""
    value = 0
    for cpu in cpus:
        if cpu < 0:
            raise CpuListError(f"negative CPU {cpu}")
        if cpu >= NR_CPUS_MAX:
            raise CpuListError(f"CPU {cpu} is beyond any host")
        value |= 1 << cpu
    width = max(min(ncpus, NR_CPUS_MAX), value.bit_length())
    groups = max(1, (width + 31) // 32)
    parts = [f"{(value >> (32 * g)) & 0xFFFFFFFF:08x}" for g in reversed(range(groups))]
    # The kernel prints the top group only as wide as the CPU count needs (2 CPUs: "3").
    top_bits = width - 32 * (groups - 1)
    top_digits = max(1, (top_bits + 3) // 4)
    parts[0] = parts[0][-top_digits:] if top_digits < 8 else parts[0]
    return ",".join(parts)
