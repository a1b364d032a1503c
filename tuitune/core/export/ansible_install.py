"""The role's tasks that install tuitune itself (`export --ansible --install-tuitune`), and
their variables: a venv of its own, its command linked where the affinity unit runs it, the
man page and completions; from the wheelhouse the role ships or from the hosts' index."""

from __future__ import annotations

from tuitune.core.export.wheelhouse import Install
from tuitune.core.export.yamlout import Comment, Expr, Node

_PREFIX = "{{ tuitune_root | regex_replace('/+$', '') }}"
WHEELHOUSE = "wheelhouse"  # the role's files/wheelhouse/, from `--install-tuitune DIR`


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
        items.append(
            {
                "name": "Tuitune: the wheelhouse on the host",
                "ansible.builtin.copy": {
                    "src": f"{WHEELHOUSE}/",
                    "dest": Expr("{{ tuitune_wheelhouse }}/"),
                    "mode": "0644",
                    "directory_mode": "0755",
                },
                "when": when,
            }
        )
        pip["requirements"] = Expr("{{ tuitune_wheelhouse }}/requirements.txt")
        pip["extra_args"] = Expr(
            "--no-index --require-hashes --find-links {{ tuitune_wheelhouse }}/wheels"
        )
    items.append(
        {
            "name": f"Tuitune: tuitune {install.version} in its venv",
            "ansible.builtin.pip": pip,
            "when": when_live,
        }
    )
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
                    "src": f"{WHEELHOUSE}/share/",
                    "dest": Expr("{{ tuitune_datadir }}/"),
                    "mode": "0644",
                    "directory_mode": "0755",
                },
                "when": when,
            }
        )
    return items
