"""Every program tuitune starts goes through here: a trusted binary, a clean environment, cwd /.

tuitune runs as root on hosts where other users have shells, so nothing they can influence may
decide what root runs: not $PATH, not the current directory, not the environment
(PYTHONPATH, LD_PRELOAD...), not a file they can replace.

Trusted path: every component from / to the program, symlinks included and followed hop by hop
as the kernel does, is owned by a trusted owner, and no directory on the way is writable by
group or others unless it has the sticky bit (/tmp: others cannot rename or remove what root put
there); the program itself is a regular file, executable, writable by its owner only. Once that
holds, nobody but a trusted owner can change what the path names between the check and exec.
The trusted owner is root; a plain user running tuitune also trusts its own uid (it only runs
with that user's rights then, but a program another user could swap is refused all the same).

A bare command name is looked up only in TRUSTED_DIRS, never in $PATH. A child gets PATH set to
those directories and LC_ALL=C.UTF-8 and nothing else unless the caller names it, runs in /,
with its stdin on /dev/null and no inherited descriptors. `ip netns exec NS PROG` runs PROG
inside the namespace by its own PATH lookup: PROG is resolved and checked here first, and
passed to ip as the absolute path. A refusal is `ProgramRefused`, whose text is one line.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

TRUSTED_DIRS = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")
SAFE_PATH = ":".join(TRUSTED_DIRS)
LOCALE = "C.UTF-8"
_MAX_LINKS = 40  # the kernel's own limit on symlinks followed in one lookup (ELOOP)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Never passed on, whoever asks: they change what a program loads or runs before its main.
_NEVER = re.compile(r"(LD_|PYTHON|PERL5|RUBY|GCONV_|MALLOC_)")


class ProgramRefused(Exception):
    """tuitune will not run this program; str(exc) is the one-line reason."""

    def __init__(self, program: str, why: str) -> None:
        super().__init__(f"{program}: {why}")
        self.program = program
        self.why = why


class ProgramMissing(ProgramRefused):
    """No such program in the trusted directories (or at the absolute path given)."""


def trusted_owners() -> frozenset[int]:
    """root, and the user tuitune runs as."""
    return frozenset({0, os.geteuid()})


def _mode_problem(path: str, st: os.stat_result, owners: frozenset[int]) -> str | None:
    if st.st_uid not in owners:
        return f"{path} is owned by uid {st.st_uid}, not root"
    if stat.S_ISLNK(st.st_mode):
        return None  # a link's own mode means nothing; its directory decides who can swap it
    writable = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if stat.S_ISDIR(st.st_mode):
        if writable and not st.st_mode & stat.S_ISVTX:
            return f"{path} is a directory others can write to"
    elif writable:
        return f"{path} is writable by others"
    return None


def check_path(path: str, *, owners: frozenset[int] | None = None) -> str:
    """Walk absolute `path` as the kernel would and check every component (see the module's
    docstring); returns the final, link-free path of what it names. Raises ProgramRefused
    (ProgramMissing when something on the way does not exist)."""
    owners = trusted_owners() if owners is None else owners
    if not os.path.isabs(path):
        raise ProgramRefused(path, "not an absolute path")
    todo = [p for p in path.split("/") if p]
    todo.reverse()  # a stack: pop() gives the next component
    current = "/"
    links = 0
    problem = _mode_problem("/", os.lstat("/"), owners)
    if problem is not None:
        raise ProgramRefused(path, problem)
    while todo:
        name = todo.pop()
        if name == ".":
            continue
        if name == "..":
            current = os.path.dirname(current)  # `current` holds no link: lexical is exact
            continue
        nxt = os.path.join(current, name)
        try:
            st = os.lstat(nxt)
        except OSError as exc:
            raise ProgramMissing(path, f"{nxt}: {exc.strerror or exc}") from None
        problem = _mode_problem(nxt, st, owners)
        if problem is not None:
            raise ProgramRefused(path, problem)
        if stat.S_ISLNK(st.st_mode):
            links += 1
            if links > _MAX_LINKS:
                raise ProgramRefused(path, "too many symbolic links")
            target = os.readlink(nxt)
            if target.startswith("/"):
                current = "/"
            todo.extend(reversed([p for p in target.split("/") if p]))
            continue
        if todo and not stat.S_ISDIR(st.st_mode):
            raise ProgramMissing(path, f"{nxt} is not a directory")
        current = nxt
    return current


def check_program(path: str, *, owners: frozenset[int] | None = None) -> str:
    """`check_path`, and the end is an executable regular file. Returns the final path."""
    real = check_path(path, owners=owners)
    st = os.stat(real)
    if not stat.S_ISREG(st.st_mode):
        raise ProgramRefused(path, "not a regular file")
    if not st.st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH):
        raise ProgramRefused(path, "not executable")
    return real


def resolve(program: str) -> str:
    """The absolute path to run for `program`: checked as given when it is absolute, else
    looked up in TRUSTED_DIRS only. Raises ProgramRefused / ProgramMissing."""
    if "/" in program:
        if not os.path.isabs(program):
            raise ProgramRefused(program, "a relative path is never run")
        check_program(program)
        return program
    if not program or program in (".", ".."):
        raise ProgramRefused(repr(program), "not a program name")
    for directory in TRUSTED_DIRS:
        candidate = os.path.join(directory, program)
        if os.path.lexists(candidate):
            check_program(candidate)  # found but untrusted: refused, never the next one
            return candidate
    raise ProgramMissing(program, f"not found in {', '.join(TRUSTED_DIRS)}")


def find(program: str) -> str | None:
    """`resolve`, or None when it is missing or refused (for "is it installed" questions)."""
    try:
        return resolve(program)
    except ProgramRefused:
        return None


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """PATH and the locale, plus `extra` (names a caller needs passed, e.g. IRQBALANCE_*)."""
    env = {"PATH": SAFE_PATH, "LC_ALL": LOCALE}
    for name, value in (extra or {}).items():
        if not _ENV_NAME.fullmatch(name) or _NEVER.match(name):
            raise ValueError(f"{name!r} is never passed to a program tuitune runs")
        if "\0" in value:
            raise ValueError(f"{name}: a NUL in its value")
        env[name] = value
    return env


def prepare(argv: Sequence[str]) -> tuple[str, list[str]]:
    """(the program to exec, argv): argv[0] kept as given for the program to see and, for
    `ip netns exec NS PROG ...`, PROG replaced by its checked absolute path."""
    if not argv:
        raise ProgramRefused("''", "an empty command")
    out = list(argv)
    exe = resolve(out[0])
    if os.path.basename(out[0]) == "ip" and out[1:3] == ["netns", "exec"] and len(out) > 4:
        out[4] = resolve(out[4])
    return exe, out


def run(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run to completion, output captured as text. Raises ProgramRefused before starting
    anything, or OSError / subprocess.TimeoutExpired as subprocess does."""
    exe, args = prepare(argv)
    return subprocess.run(
        args,
        executable=exe,
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
        env=clean_env(env),
        cwd="/",
        close_fds=True,
        check=False,
    )


def popen(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdout: int = subprocess.PIPE,
    stderr: int = subprocess.STDOUT,
    start_new_session: bool = False,
) -> subprocess.Popen[str]:
    """Start it, its output as text lines. Raises ProgramRefused or OSError."""
    exe, args = prepare(argv)
    return subprocess.Popen(
        args,
        executable=exe,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        text=True,
        bufsize=1,
        errors="replace",
        env=clean_env(env),
        cwd="/",
        close_fds=True,
        start_new_session=start_new_session,
    )


# ---- tuitune's own Python helpers --------------------------------------------------------------
def python() -> str:
    """This interpreter, checked like any program (a venv's python is its link, kept as such:
    the venv is found from the path it is started by)."""
    exe = sys.executable
    if not exe:
        raise ProgramMissing("python", "the interpreter's path is unknown")
    resolve(exe)
    return exe


def package_dir() -> str:
    """The directory of the tuitune package this process runs, checked like a program's path
    (a copy another user can edit is not imported by a helper running as root)."""
    import tuitune

    pkg = str(Path(tuitune.__file__).resolve().parent)
    check_path(pkg)
    return pkg


# `python -I -c BOOT PKG MODULE ARGS...`: isolated mode (no cwd, PYTHON* variables or user site
# on sys.path), then the `tuitune` package loaded from exactly PKG, whatever sys.path holds, and
# MODULE's main(ARGS) run. Dependencies (pyroute2...) come from the interpreter's site-packages.
_BOOT = """\
import importlib.util, sys
pkg = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "tuitune", pkg + "/__init__.py", submodule_search_locations=[pkg])
mod = importlib.util.module_from_spec(spec)
sys.modules["tuitune"] = mod
spec.loader.exec_module(mod)
main = importlib.import_module(sys.argv[2]).main
sys.exit(main(sys.argv[3:]))
"""


def python_module_argv(module: str, *args: str) -> list[str]:
    """The argv that runs tuitune's `module`.main(args) in a clean interpreter (see _BOOT)."""
    if not module.startswith("tuitune."):
        raise ValueError(f"{module}: not a tuitune module")
    return [python(), "-I", "-c", _BOOT, package_dir(), module, *args]


def python_code_argv(code: str, *args: str) -> list[str]:
    """The argv that runs `code` (stdlib only) in an isolated interpreter."""
    return [python(), "-I", "-c", code, *args]
