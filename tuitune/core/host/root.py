"""One root object for every kernel path, so tests and --root read a fixture tree instead."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from tuitune.core.values import Unavailable, from_oserror

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HostRoot:
    """Where /proc and /sys are, and which network namespace (if any) the host layer reads.

    With a fixture tree, `proc` and `sys` point into it; `live` is False there so that nothing
    tries netlink or ioctl against this machine's kernel on behalf of a recorded host.
    """

    proc: Path = Path("/proc")
    sys: Path = Path("/sys")
    netns: str | None = None
    live: bool = True
    etc: Path = Path("/etc")

    @classmethod
    def fixture(cls, tree: Path) -> HostRoot:
        """A recorded host: `tree/proc` and `tree/sys`, read-only, no netlink."""
        return cls(proc=tree / "proc", sys=tree / "sys", live=False, etc=tree / "etc")

    def proc_path(self, rel: str) -> Path:
        return self.proc / rel

    def sys_path(self, rel: str) -> Path:
        return self.sys / rel

    def read_proc(self, rel: str) -> str:
        return (self.proc / rel).read_text()

    def read_net(self, rel: str) -> str:
        """/proc/net/REL as the calling thread sees it. /proc/net is /proc/self/net, the main
        thread's namespace; the kernel thread of a --netns host must read thread-self."""
        return self.read_proc(f"thread-self/net/{rel}" if self.live else f"net/{rel}")

    def read_sys(self, rel: str) -> str:
        return (self.sys / rel).read_text()


def read_value(path: Path, what: str) -> str | Unavailable:
    """Read a one-value kernel file; a refusal becomes an Unavailable state."""
    try:
        return path.read_text().strip()
    except OSError as exc:
        return from_oserror(exc, what)


def read_parsed(path: Path, what: str, parse: Callable[[str], T]) -> T | Unavailable:
    """Read a one-value kernel file and parse it; a refusal or a malformed value is a state."""
    text = read_value(path, what)
    if isinstance(text, Unavailable):
        return text
    try:
        return parse(text)
    except ValueError as exc:
        return Unavailable("error", f"{what}: {exc}")


def read_int(path: Path, what: str) -> int | Unavailable:
    text = read_value(path, what)
    if isinstance(text, Unavailable):
        return text
    try:
        return int(text)
    except ValueError:
        return Unavailable("error", f"{what}: unexpected value {text!r}")
