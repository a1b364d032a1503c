"""Short, fixed-width numbers for dense screens: rates, bit rates, byte counts."""

from __future__ import annotations


def rate(x: float, whole: bool = False) -> str:
    """Events per second in at most 6 characters: 0, 812, 12.3k, 4.10M, 1.20G; below 10 with
    one decimal (3.5) unless `whole` (4: `tuitune show`'s text tables)."""
    if x >= 1e9:
        return f"{x / 1e9:.2f}G"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e4:
        return f"{x / 1e3:.1f}k"
    if x >= 10 or x == 0 or whole:
        return f"{x:.0f}"
    return f"{x:.1f}"


def bitrate(bytes_per_s: float) -> str:
    """A link rate as people quote it: 9.41 Gb/s, 120 Mb/s, 3.2 kb/s."""
    b = bytes_per_s * 8
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if b >= scale:
            v = b / scale
            return (
                f"{v:.2f} {unit}" if v < 10 else f"{v:.1f} {unit}" if v < 100 else f"{v:.0f} {unit}"
            )
    return f"{b:.0f} b/s"


def size(n: float) -> str:
    """Bytes in binary units: 512 B, 4.0 KiB, 1.5 GiB."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"


def pct(x: float) -> str:
    """A percentage in 5 characters, as mpstat prints it (one decimal)."""
    return f"{x:5.1f}"


def duration(seconds: float) -> str:
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
