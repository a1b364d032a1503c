"""The one way a string from outside tuitune reaches a terminal.

Other users choose much of what tuitune shows: process names and argv, cgroup and unit names,
interface aliases, theme names, the fields of a notebook or a peer file, iperf3's output, the
contents of a `--root` tree. Sent raw, ESC/CSI/OSC sequences in them would move the cursor,
rewrite the screen, set the clipboard (OSC 52) or forge a link (OSC 8) on root's terminal, and
a bidi override would reorder what is read. So every such string goes through `printable`
(one line) or `printable_lines` (keeps line breaks) before Rich, Textual or print(): hidden
characters become visible escapes, never dropped, so what was there can still be seen.
"""

from __future__ import annotations

import unicodedata

# A name or argv shown in a table or a one-line message: longer is elided in the middle.
SHOWN_MAX = 200


def _escape(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (read with surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _hidden(ch: str) -> bool:
    """A character that moves the cursor, changes the terminal, or reorders or hides text:
    C0/C1 controls, ESC and DEL (Cc), format characters such as bidi overrides and zero-width
    joiners (Cf), line and paragraph separators, undecodable bytes (surrogates), private-use
    and unassigned code points."""
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def _clean(text: str) -> str:
    if text.isprintable() and "\\" not in text:
        return text  # the common case, at C speed
    return "".join("\\\\" if ch == "\\" else _escape(ch) if _hidden(ch) else ch for ch in text)


def printable(text: object, limit: int = SHOWN_MAX) -> str:
    """`text` safe to show on one line: every hidden character escaped as \\xNN / \\uNNNN,
    a backslash doubled (so an escape cannot be forged), long text elided in the middle."""
    out = _clean(str(text))
    if len(out) <= limit:
        return out
    half = max(1, (limit - 5) // 2)
    return f"{out[:half]} ... {out[-half:]}"


def printable_lines(text: object) -> str:
    """Several lines of outside text (a program's output): each line as `printable` makes
    it, without a length limit, the line breaks kept."""
    return "\n".join(_clean(line) for line in str(text).split("\n"))


def escape_hidden(text: str) -> str:
    """Only the hidden characters of `text` escaped, line breaks and backslashes kept: the
    last net under output that `printable` already went through (a second doubling of the
    backslashes would show them twice)."""
    return "".join(_escape(ch) if ch != "\n" and _hidden(ch) else ch for ch in text)


def is_plain(text: str) -> bool:
    """True when `printable` would show `text` unchanged (nothing hidden, no backslash)."""
    return _clean(text) == text
