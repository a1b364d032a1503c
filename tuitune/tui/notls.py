"""asyncio without its TLS support: ssl (OpenSSL's libssl and libcrypto, ~4 MB resident) is not
loaded with the event loop Textual runs on, only when something really imports it.

asyncio imports ssl at its own import, for TLS connections, which tuitune never makes (its
event loop drives the screen; kernel reads are files, netlink and ioctls). CPython supports
builds without ssl and asyncio then works the same without TLS: it is imported here with ssl
hidden, and ssl is unhidden at once, so a later `import ssl` (pyroute2's probe module, say)
loads it as usual. Issue 38, goal 3: a small host's screen after its first frame.
"""

from __future__ import annotations

import sys


def import_asyncio_without_tls() -> None:
    """Import asyncio with ssl hidden; nothing to do when asyncio is already loaded (a test
    runner's event loop) or ssl is (its memory is spent)."""
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        return
    sys.modules["ssl"] = None  # type: ignore[assignment]  # `import ssl` raises ImportError
    try:
        import asyncio  # noqa: F401
    finally:
        if "ssl" in sys.modules and sys.modules["ssl"] is None:
            del sys.modules["ssl"]
