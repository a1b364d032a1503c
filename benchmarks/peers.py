"""The peers tuitune is measured beside, installed by the benchmark itself.

htop and btop are Debian packages: installed with apt-get when missing (as root; without root
they are reported missing and left out). glances and network-top (netutils-linux) come from
the package index into a scratch venv of their own, never into the project's. mpstat
(sysstat) is the floor of a monitor that only prints numbers.

Each peer is run in its own private HOME (`home()`): btop reads its refresh period from
~/.config/btop/btop.conf (no command-line flag in Debian 12's 1.2.13; its default is 2 s).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DEBS = {"htop": "htop", "btop": "btop", "mpstat": "sysstat"}
PIP = {"glances": "glances", "network-top": "netutils-linux"}
SCRATCH = Path(os.environ.get("TUITUNE_BENCH_SCRATCH", "/var/tmp/tuitune-bench"))


@dataclass(frozen=True)
class Peers:
    paths: dict[str, str]  # peer -> executable
    missing: dict[str, str]  # peer -> why it is left out
    versions: dict[str, str]


def _log(text: str) -> None:
    print(f"peers: {text}", file=sys.stderr, flush=True)


def _apt_install(packages: list[str]) -> str | None:
    """None when installed, else why not."""
    if os.geteuid() != 0:
        return "not root: apt-get install " + " ".join(packages)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    _log("apt-get install " + " ".join(packages))
    for cmd in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
    ):
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            return f"{' '.join(cmd[:2])} failed: {done.stderr.strip()[-200:]}"
    return None


def _venv(scratch: Path) -> tuple[Path | None, str | None]:
    venv = scratch / "peers-venv"
    bin_dir = venv / "bin"
    if all((bin_dir / name).exists() for name in PIP):
        return bin_dir, None
    _log(f"pip install {' '.join(PIP.values())} into {venv}")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        subprocess.run(
            [str(bin_dir / "python"), "-m", "pip", "install", "-q", *PIP.values()],
            check=True,
            timeout=900,
            capture_output=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"pip install into {venv} failed: {exc}"
    return bin_dir, None


def _version(cmd: list[str]) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return "?"
    text = (done.stdout or done.stderr).strip().splitlines()
    return text[0].strip() if text else "?"


def ensure(scratch: Path = SCRATCH, install: bool = True) -> Peers:
    """Every peer that is there or could be installed, and why any other is left out."""
    scratch.mkdir(parents=True, exist_ok=True)
    paths: dict[str, str] = {}
    missing: dict[str, str] = {}
    absent = [deb for name, deb in DEBS.items() if shutil.which(name) is None]
    if absent and install:
        why = _apt_install(sorted(set(absent)))
        if why:
            _log(why)
    for name in DEBS:
        found = shutil.which(name)
        if found:
            paths[name] = found
        else:
            missing[name] = f"not installed (Debian package {DEBS[name]})"
    bin_dir, why = _venv(scratch) if install else (scratch / "peers-venv" / "bin", None)
    for name in PIP:
        exe = bin_dir / name if bin_dir is not None else None
        if exe is not None and exe.exists():
            paths[name] = str(exe)
        else:
            missing[name] = why or f"not installed (pip {PIP[name]})"
    versions = {}
    if "htop" in paths:
        versions["htop"] = _version([paths["htop"], "--version"])
    if "btop" in paths:
        versions["btop"] = _version([paths["btop"], "--version"])
    if "glances" in paths:
        versions["glances"] = _version([paths["glances"], "--version"])
    if "network-top" in paths:
        pip = Path(paths["network-top"]).parent / "pip"
        versions["network-top"] = "netutils-linux " + _pip_version(pip)
    return Peers(paths, missing, versions)


def _pip_version(pip: Path) -> str:
    try:
        out = subprocess.run(
            [str(pip), "show", "netutils-linux"], capture_output=True, text=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "?"
    for line in out.splitlines():
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    return "?"


def home(scratch: Path, label: str, btop_update_ms: int = 1000) -> Path:
    """A private HOME for one run: btop's refresh period set, nothing else carried over."""
    h = scratch / "homes" / label
    conf = h / ".config" / "btop"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "btop.conf").write_text(f"update_ms = {btop_update_ms}\n")
    return h
