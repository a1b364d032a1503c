"""The role's tasks that install tuitune itself (`export --ansible --install-tuitune`), and
their variables: a venv of its own, its command linked where the affinity unit runs it, the
man page and completions; from the wheelhouse the role ships or from the hosts' index."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Mapping

from tuitune.core.export.wheelhouse import Install
from tuitune.core.export.yamlout import Comment, Expr, Node

_PREFIX = "{{ tuitune_root | regex_replace('/+$', '') }}"
WHEELHOUSE_TAR = "wheelhouse.tar"  # the role's files/wheelhouse.tar, from `--install-tuitune DIR`
# Every member's time: fixed, so two exports of one wheelhouse are the same bytes and the
# unpacked files compare equal to the archive on the next run (unarchive's idempotence).
_MTIME = 1_700_000_000


def wheelhouse_tar(files: Mapping[str, bytes]) -> bytes:
    """requirements.txt, wheels/ and share/ as one uncompressed tar (wheels are zips
    already), its members in name order, owned by root, 0644 in 0755 directories."""
    out = io.BytesIO()
    dirs: set[str] = set()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for rel in sorted(files):
            parts = rel.split("/")
            for i in range(1, len(parts)):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    tar.addfile(_member(d, tarfile.DIRTYPE, 0o755, 0))
            data = files[rel]
            tar.addfile(_member(rel, tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))
    return out.getvalue()


def _member(name: str, kind: bytes, mode: int, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.size, info.mtime = kind, mode, size, _MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def install_defaults(install: Install) -> dict[str, Node]:
    doc: dict[str, Node] = {
        "i1": Comment("Install tuitune on the host first (exported with --install-tuitune):"),
        "i2": Comment("a venv of its own, its command linked where the affinity unit runs it."),
        "tuitune_install": True,
        "tuitune_install_python": "python3",
        "tuitune_venv": Expr(_PREFIX + "/opt/tuitune"),
    }
    if not install.from_index:
        doc["i3"] = Comment("Where the man page and the shell completions go.")
        doc["tuitune_datadir"] = Expr(_PREFIX + "/usr/local/share")
        doc["i4"] = Comment("Where the role's wheelhouse is copied for pip (--no-index).")
        doc["tuitune_wheelhouse"] = Expr(_PREFIX + "/var/cache/tuitune/wheelhouse")
        doc["i5"] = Comment("pip writes every module's bytecode (most of the install's time on")
        doc["i6"] = Comment("a slow host); false leaves it to the first run as root.")
        doc["tuitune_install_bytecode"] = True
    return doc


def install_tasks(install: Install) -> list[Node]:
    """Install tuitune into `tuitune_venv` (from the wheelhouse the role ships, with no index,
    each wheel checked by sha256; or `tuitune==VERSION` from the host's own index) and link
    its command at `tuitune_command`, the path the affinity unit runs. The pip module reports
    a change only when it installed something, so a second run changes nothing."""
    when = Expr("tuitune_install | bool")
    when_live = Expr("tuitune_install | bool and not ansible_check_mode")
    pip: dict[str, Node] = {
        "virtualenv": Expr("{{ tuitune_venv }}"),
        "virtualenv_command": Expr("{{ tuitune_install_python }} -m venv"),
        "umask": "0022",
    }
    items: list[Node] = []
    if install.from_index:
        pip["name"] = [f"tuitune=={install.version}"]
    else:
        items += [
            {
                "name": "Tuitune: the wheelhouse's directory on the host",
                "ansible.builtin.file": {
                    "path": Expr("{{ tuitune_wheelhouse }}"),
                    "state": "directory",
                    "mode": "0755",
                },
                "when": when,
            },
            {
                "name": "Tuitune: the wheelhouse on the host (one archive, unpacked)",
                "ansible.builtin.unarchive": {
                    "src": WHEELHOUSE_TAR,
                    "dest": Expr("{{ tuitune_wheelhouse }}"),
                },
                "when": when_live,
            },
        ]
    if install.from_index:
        items.append(
            {
                "name": f"Tuitune: tuitune {install.version} in its venv",
                "ansible.builtin.pip": pip,
                "when": when_live,
            }
        )
    else:
        items.append(_from_wheelhouse(install, when_live))
    link = _PREFIX + "{{ tuitune_command }}"
    items.append(
        {
            "name": "Tuitune: the directory of the command's link",
            "ansible.builtin.file": {
                "path": Expr(
                    "{{ (tuitune_root | regex_replace('/+$', '') ~ tuitune_command) | dirname }}"
                ),
                "state": "directory",
                "mode": "0755",
            },
            "when": when_live,
        }
    )
    items.append(
        {
            "name": "Tuitune: the command where the affinity unit runs it",
            "ansible.builtin.file": {
                "src": Expr("{{ tuitune_venv }}/bin/tuitune"),
                "dest": Expr(link),
                "state": "link",
            },
            "when": when_live,
        }
    )
    if not install.from_index:
        items.append(
            {
                "name": "Tuitune: the man page and the shell completions",
                "ansible.builtin.copy": {
                    "src": Expr("{{ tuitune_wheelhouse }}/share/"),
                    "dest": Expr("{{ tuitune_datadir }}/"),
                    "remote_src": True,  # from the unpacked wheelhouse: one module run
                    "mode": "0644",
                    "directory_mode": "0755",
                },
                "when": when_live,
            }
        )
    return items


BOOTSTRAP_SCRIPT = "bootstrap/install-venv.sh"  # in the wheelhouse archive, written by us


def bootstrap_script(install: Install) -> bytes:
    """What the role runs where Ansible's pip module ran pip four times: the venv is made
    without pip (no ensurepip: Debian and Ubuntu hosts need no python3-venv), and the
    wheelhouse's pip wheel, checked by its sha256, installs the pinned wheels into it. The
    module also listed the venv's packages before and after to tell a change; pip's own
    "Successfully installed" says it. Under TCG in the VM bench the module's run was half of
    the role's time (ensurepip alone 84 s). pip runs from its wheel as pip's __main__ allows."""
    lines = [
        "#!/bin/sh",
        "# Written by tuitune export --install-tuitune: the role runs it as",
        "#   sh install-venv.sh PYTHON VENV [bytecode|no-bytecode]",
        "set -eu",
        "umask 0022",
        'here=$(cd "$(dirname "$0")/.." && pwd)',
        "python=$1 venv=$2 bytecode=${3:-bytecode}",
        'compile=--compile; [ "$bytecode" = no-bytecode ] && compile=--no-compile',
        '[ -x "$venv/bin/python" ] || "$python" -m venv --without-pip "$venv"',
        '(cd "$here/bootstrap" && sha256sum --check --strict --quiet SHA256SUMS)',
        f'exec "$venv/bin/python" "$here/bootstrap/{install.pip_wheel}/pip" install \\',
        '  --no-index --require-hashes --disable-pip-version-check --no-input "$compile" \\',
        '  --find-links "$here/wheels" -r "$here/requirements.txt"',
    ]
    return ("\n".join(lines) + "\n").encode()


def _from_wheelhouse(install: Install, when: Node) -> dict[str, Node]:
    """The install as one command (bootstrap_script), its change told by pip's own words."""
    return {
        "name": f"Tuitune: tuitune {install.version} in its venv",
        "ansible.builtin.command": {
            "argv": [
                "/bin/sh",
                Expr("{{ tuitune_wheelhouse }}/" + BOOTSTRAP_SCRIPT),
                Expr("{{ tuitune_install_python }}"),
                Expr("{{ tuitune_venv }}"),
                Expr("{{ 'bytecode' if tuitune_install_bytecode | bool else 'no-bytecode' }}"),
            ]
        },
        "register": "tuitune_pip",
        "changed_when": Expr("'Successfully installed' in tuitune_pip.stdout"),
        "when": when,
    }
