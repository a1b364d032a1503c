"""`tuitune completion {bash,zsh,fish}`: the shell's completion script, generated from the same
argparse parsers the command runs, by shtab.

shtab rather than argcomplete: shtab writes a static script once (at install, or by the user),
so the shell never starts tuitune while completing. argcomplete's hook runs the program (as
whoever presses Tab, root included) on every Tab, importing the package from wherever the shell
finds it: a start-up cost on each key and one more way into root's shell.

Interface names come from /sys/class/net and namespace names from /run/netns at Tab time, in
the shell's own code. Another user can make a namespace's interfaces visible by name only
through root; still, a name is offered only when it is made of characters a shell takes
literally (letters, digits, `_ . @ + = -`), so completing one never inserts `$(...)`, a quote
or an escape sequence into root's command line.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.cli import _common

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

SHELLS = ("bash", "zsh", "fish")

_BASH = r"""
# Names a shell takes literally: a hostile name is not offered (see tuitune/cli/completion.py).
_tuitune_names() {
  local dir="$1" cur="$2" path name
  for path in "$dir"/*; do
    name="${path##*/}"
    [[ -e "$path" && "$name" != *[![:alnum:]_.@+=-]* && "$name" == "$cur"* ]] || continue
    printf '%s\n' "$name"
  done
}
_tuitune_ifaces() { _tuitune_names /sys/class/net "$1"; }
_tuitune_netns() { _tuitune_names /run/netns "$1"; }
"""

_ZSH = r"""
_tuitune_netns() {
  local -a names
  names=(/run/netns/*(N:t))
  names=(${(M)names:#[[:alnum:]_.@+=-]##})
  _describe 'network namespace' names
}
"""

_FISH = r"""
function __tuitune_netns
    for n in /run/netns/*
        string match -qr '^[[:alnum:]_.@+=-]+$' -- (basename $n); and basename $n
    end
end
"""

PREAMBLE = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH}
# zsh and fish have their own interface listers (zsh's _net_interfaces, fish's
# __fish_print_interfaces); bash has none that every system carries.
IFACE = {"bash": "_tuitune_ifaces", "zsh": "_net_interfaces", "fish": "(__fish_print_interfaces)"}
NETNS = {"bash": "_tuitune_netns", "zsh": "_tuitune_netns", "fish": "(__tuitune_netns)"}
FILE = {
    "bash": "_shtab_compgen_files",
    "zsh": "_files",
    "fish": "(__fish_complete_path (commandline -ct))",
}
DIRECTORY = {
    "bash": "_shtab_compgen_dirs",
    "zsh": "_files -/",
    "fish": "(__fish_complete_directories)",
}


def register(subparsers: _common.Subparsers, parser: Callable[[], argparse.ArgumentParser]) -> None:
    """`parser` builds the command line's parser as the shell sees it: cli/ builds it and
    hands it in, so this module never imports the package that registers it."""
    p = _common.command(subparsers, "completion", cmd_completion)
    p.add_argument("shell", choices=SHELLS, help="the shell the script is for")
    p.set_defaults(completion_parser=parser)


def cmd_completion(args: argparse.Namespace) -> int:
    """print the shell completion script (bash, zsh, fish)

    Load it now with `source <(tuitune completion bash)`, or install it where the shell looks:
    bash: /usr/local/share/bash-completion/completions/tuitune (or
    ~/.local/share/bash-completion/completions/tuitune); zsh: a directory on $fpath as
    _tuitune; fish: ~/.config/fish/completions/tuitune.fish. The wheelhouse's install.sh
    installs all three."""
    print(script(args.shell, args.completion_parser()), end="")
    return _common.EXIT_OK


def _walk(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _walk(sub)


def _tag(parser: argparse.ArgumentParser) -> None:
    """Tell shtab what each argument's words are: interfaces, namespaces, files, directories."""
    for action in _walk(parser):
        if action.type is _common.ifname:
            action.complete = IFACE  # type: ignore[attr-defined]
        elif action.type is _common.netns:
            action.complete = NETNS  # type: ignore[attr-defined]
        elif action.type is Path:
            is_dir = action.metavar == "DIR" or (action.dest or "").endswith("_dir")
            action.complete = DIRECTORY if is_dir else FILE  # type: ignore[attr-defined]


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script for `shell`. The first word is a subcommand or, as for
    `tuitune IFACE`, an interface: bash and fish offer both; zsh offers the subcommands."""
    import shtab

    _tag(parser)
    text = shtab.complete(parser, shell, preamble=PREAMBLE[shell])
    if shell == "bash":
        text = text.replace(
            "\n_shtab_tuitune_pos_0_choices=",
            "\n_shtab_tuitune_pos_0_COMPGEN=_tuitune_ifaces\n_shtab_tuitune_pos_0_choices=",
            1,
        )
    elif shell == "fish":
        text += (
            "complete -c tuitune -n '_shtab_tuitune_using; and test $_shtab_tuitune_npos -eq 0' "
            "-f -a '(__fish_print_interfaces)' -d 'interface to watch'\n"
        )
    return text
