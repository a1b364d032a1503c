"""CPU lists ("0-3,8") and hex masks ("ff,ffffffff"), as the kernel prints and accepts them."""

from __future__ import annotations

from collections.abc import Iterable


class CpuListError(ValueError):
    """A CPU list or mask the user typed (or a file held) is malformed."""


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes "²" (which int() refuses) and "٣"."""
    return text.isascii() and text.isdigit()


def parse_cpulist(text: str) -> frozenset[int]:
    """Parse the kernel's list format: "0-3,8,10-11", "" (empty), and strides "0-7:2" (stride)."""
    text = text.strip()
    cpus: set[int] = set()
    if not text:
        return frozenset()
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise CpuListError(f"empty item in CPU list {text!r}")
        stride = 1
        if ":" in part:
            part, _, step = part.partition(":")
            if not _digits(step) or int(step) == 0:
                raise CpuListError(f"bad stride in CPU list {text!r}")
            stride = int(step)
        lo_s, dash, hi_s = part.partition("-")
        if not _digits(lo_s) or (dash and not _digits(hi_s)):
            raise CpuListError(f"{part!r} in {text!r} is not a CPU number or range like 0-3")
        lo = int(lo_s)
        hi = int(hi_s) if dash else lo
        if hi < lo:
            raise CpuListError(f"range {part!r} in {text!r} runs backwards")
        cpus.update(range(lo, hi + 1, stride))
    return frozenset(cpus)


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


def parse_mask(text: str) -> frozenset[int]:
    """Parse a hex mask in comma-separated 32-bit groups, most significant first ("ff,00000001")."""
    text = text.strip()
    if not text:
        return frozenset()
    value = 0
    for group in text.split(","):
        group = group.strip()
        if not group or len(group) > 8:
            raise CpuListError(f"bad mask group {group!r} in {text!r}")
        try:
            value = (value << 32) | int(group, 16)
        except ValueError:
            raise CpuListError(f"{group!r} in {text!r} is not hexadecimal") from None
    return frozenset(i for i in range(value.bit_length()) if value >> i & 1)


def format_mask(cpus: Iterable[int], ncpus: int) -> str:
    """Format as /proc/irq/N/smp_affinity and rps_cpus print: 32-bit groups covering ncpus."""
    value = 0
    for cpu in cpus:
        if cpu < 0:
            raise CpuListError(f"negative CPU {cpu}")
        value |= 1 << cpu
    width = max(ncpus, value.bit_length())
    groups = max(1, (width + 31) // 32)
    parts = [f"{(value >> (32 * g)) & 0xFFFFFFFF:08x}" for g in reversed(range(groups))]
    # The kernel prints the top group only as wide as the CPU count needs (2 CPUs: "3").
    top_bits = width - 32 * (groups - 1)
    top_digits = max(1, (top_bits + 3) // 4)
    parts[0] = parts[0][-top_digits:] if top_digits < 8 else parts[0]
    return ",".join(parts)
