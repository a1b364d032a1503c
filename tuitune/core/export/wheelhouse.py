"""The wheelhouse (scripts/wheelhouse) an Ansible role ships to install tuitune on hosts with no
package index, read for `export --ansible --install-tuitune DIR`.

DIR is read as any document another user may have touched: each file through fsutil (no link
followed, a regular file, bounded), only the names the wheelhouse layout has, and each wheel
checked against requirements.txt's sha256 before it goes into the role, so what the hosts
install is what the requirements pin; a tuitune wheel of this version must be among them.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from tuitune import __version__
from tuitune.core import fsutil

MAX_WHEEL = 64 << 20  # the largest wheel here is 1.6 MB; a bound, not a guess at sizes
MAX_TEXT = 1 << 20
# A wheel's file name (PEP 427): no separator, no leading dot, nothing a path could use.
_WHEEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+!-]*\.whl")
# pip's own wheel (bootstrap/), which the role runs to install into a venv made without pip.
_PIP = re.compile(r"pip-[0-9][A-Za-z0-9_.+!]*-py3-none-any\.whl")
_SUM = re.compile(r"([0-9a-f]{64})  (\S+)")  # a sha256sum line
_PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})+)")
# What install.sh also installs beside the command (written by scripts/wheelhouse).
SHARE = (
    "man/man1/tuitune.1",
    "bash-completion/completions/tuitune",
    "zsh/site-functions/_tuitune",
    "fish/vendor_completions.d/tuitune.fish",
)
INDEX = "index"  # --install-tuitune index: from the hosts' own package index, no wheelhouse


class WheelhouseError(ValueError):
    """Why DIR cannot be shipped (one line)."""


@dataclass(frozen=True, slots=True)
class Install:
    """How the role installs tuitune: `files` (relative to the role's files/wheelhouse/ ->
    bytes) from a wheelhouse, or none for the hosts' own index (`version` pinned)."""

    files: dict[str, bytes]
    version: str = __version__

    @property
    def from_index(self) -> bool:
        return not self.files

    @property
    def pip_wheel(self) -> str:
        """bootstrap/'s pip wheel, by name ('' from an index: the venv's own pip installs)."""
        return next(
            (n[10:] for n in self.files if n.startswith("bootstrap/") and _PIP.fullmatch(n[10:])),
            "",
        )


def _read(path: Path, limit: int) -> bytes:
    try:
        data = fsutil.read_file(path, limit, follow=False)
    except OSError as exc:
        raise WheelhouseError(f"--install-tuitune: {exc}") from None
    if data is None:
        raise WheelhouseError(f"--install-tuitune: {path} is missing (scripts/wheelhouse makes it)")
    return data


def read_wheelhouse(directory: Path) -> Install:
    """The wheelhouse at `directory` as the role's files; WheelhouseError when it is not one
    scripts/wheelhouse wrote for this tuitune."""
    text = _read(directory / "requirements.txt", MAX_TEXT).decode("utf-8", "replace")
    hashes: set[str] = set()
    pinned: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = _PIN.fullmatch(line.strip())
        if m is None:
            raise WheelhouseError(
                "--install-tuitune: requirements.txt has a line that is not NAME==VERSION "
                "--hash=sha256:... (scripts/wheelhouse writes only those)"
            )
        pinned[m.group(1).lower()] = m.group(2)
        hashes.update(re.findall(r"[0-9a-f]{64}", m.group(3)))
    if pinned.get("tuitune") != __version__:
        raise WheelhouseError(
            f"--install-tuitune: the wheelhouse pins tuitune {pinned.get('tuitune', 'nowhere')}, "
            f"this is {__version__}: build it from this version (scripts/wheelhouse)"
        )
    try:
        names = sorted(os.listdir(directory / "wheels"))
    except OSError as exc:
        raise WheelhouseError(
            f"--install-tuitune: {directory / 'wheels'}: {exc.strerror}"
        ) from None
    files: dict[str, bytes] = {"requirements.txt": text.encode()}
    for name in names:
        if not _WHEEL.fullmatch(name):
            continue
        data = _read(directory / "wheels" / name, MAX_WHEEL)
        if hashlib.sha256(data).hexdigest() not in hashes:
            raise WheelhouseError(
                f"--install-tuitune: wheels/{name} is not one requirements.txt pins by sha256"
            )
        files[f"wheels/{name}"] = data
    if len(files) == 1:
        raise WheelhouseError(f"--install-tuitune: no wheels in {directory / 'wheels'}")
    files.update(_bootstrap(directory))
    for rel in SHARE:
        files[f"share/{rel}"] = _read(directory / "share" / rel, MAX_TEXT)
    return Install(files)


def _bootstrap(directory: Path) -> dict[str, bytes]:
    """bootstrap/: pip's one wheel, checked against its SHA256SUMS line."""
    sums = _read(directory / "bootstrap" / "SHA256SUMS", MAX_TEXT)
    lines = [ln for ln in sums.decode("ascii", "replace").splitlines() if ln.strip()]
    m = _SUM.fullmatch(lines[0]) if len(lines) == 1 else None
    if m is None or not _PIP.fullmatch(m.group(2)):
        raise WheelhouseError(
            "--install-tuitune: bootstrap/SHA256SUMS is not one line naming pip's wheel "
            "(scripts/wheelhouse writes it)"
        )
    name = m.group(2)
    data = _read(directory / "bootstrap" / name, MAX_WHEEL)
    if hashlib.sha256(data).hexdigest() != m.group(1):
        raise WheelhouseError(f"--install-tuitune: bootstrap/{name} does not match its sha256")
    return {"bootstrap/SHA256SUMS": sums, f"bootstrap/{name}": data}
