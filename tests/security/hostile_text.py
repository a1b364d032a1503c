"""What another user would put in a name or a field to take over root's terminal, and the
check that none of it reaches an output raw."""

from __future__ import annotations

# One of each: ESC alone, CSI (clear screen), OSC 0 (window title), OSC 8 (a forged link),
# OSC 52 (write the clipboard), DCS, the 8-bit CSI (C1 0x9b), DEL, and a bidi override.
HOSTILE = (
    "a\x1bb",
    "\x1b[2J\x1b[H",
    "\x1b]0;pwned\x07",
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "\x1b]52;c;cm0gLXJmIC8=\x07",
    "\x1bP1$qm\x1b\\",
    "\x9b31m",
    "x\x7fy",
    "safe\u202etxt.exe",
)
ALL = "".join(HOSTILE)
RAW = ("\x1b", "\x9b", "\x9d", "\x90", "\x07", "\x7f", "\u202e")


def raw_in(text: str) -> list[str]:
    """The raw control characters found in `text` (an output): none is the pass."""
    return [repr(c) for c in RAW if c in text]
