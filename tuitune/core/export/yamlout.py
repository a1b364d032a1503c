"""YAML and Jinja text for the Ansible export, emitted so host state cannot become code.

Ansible reads a playbook as YAML and then templates every string in it with Jinja; a template
file is Jinja through and through. A value tuitune read from a host (a hostname, an original
value, a config file) may hold `{{`, `{%`, a quote or a newline. So:
  - every scalar is written double-quoted with JSON escapes (valid YAML: no value can end the
    string, start a key or a document);
  - a string that holds `{` is tagged `!unsafe` (Ansible never templates it), unless it is one
    of our own expressions (`Expr`), which are built from checked names only;
  - in a template file every `{` of the text becomes `{{ '{' }}`: every Jinja tag starts with
    `{`, so nothing of the text can open one (a carriage return, which Jinja would make a
    newline, is written as an expression too); a leading `#jinja2:` (Ansible's header that
    changes the template's syntax) is escaped the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TypeAlias

from tuitune.core.session.kinds.safe import comment

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


class Expr(str):
    """A Jinja expression of ours (`{{ tuitune_etc }}/...`): written quoted, not `!unsafe`."""

    __slots__ = ()


class Comment(str):
    """A `# ...` line before the next key or item (one line of printable text)."""

    __slots__ = ()


Node: TypeAlias = str | bool | int | Sequence["Node"] | Mapping[str, "Node"] | None


def scalar(value: str | bool | int | None) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    quoted = json.dumps(str(value), ensure_ascii=True)
    if "{" in value and not isinstance(value, Expr):
        return "!unsafe " + quoted
    return quoted


def _block(node: Node, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(node, Mapping):
        out: list[str] = []
        for key, value in node.items():
            if isinstance(value, Comment):
                out.append(f"{pad}# {comment(value)}")
                continue
            name = key if _PLAIN_KEY.fullmatch(key) else scalar(key)
            out += _entry(f"{pad}{name}:", value, indent)
        return out or [f"{pad}{{}}"]
    if isinstance(node, Sequence) and not isinstance(node, str):
        out = []
        for item in node:
            if isinstance(item, Comment):
                out.append(f"{pad}# {comment(item)}")
                continue
            out += _entry(f"{pad}-", item, indent)
        return out or [f"{pad}[]"]
    return [pad + scalar(node)]


def _entry(head: str, value: Node, indent: int) -> list[str]:
    """`head value` for a scalar, else `head` and the block below it."""
    if isinstance(value, Mapping | Sequence) and not isinstance(value, str) and value:
        body = _block(value, indent + 2)
        if head.endswith("-") and isinstance(value, Mapping):
            # "- key: value" with the rest of the mapping aligned under the first key.
            first = body[0].lstrip()
            return [f"{head} {first}", *body[1:]]
        return [head, *body]
    return [f"{head} {_block(value, 0)[0]}"]


def dump(node: Node, header: Sequence[str] = ()) -> str:
    """A YAML document: `header` as comments, then the node in block style."""
    lines = ["---", *(f"# {comment(h)}" if h else "#" for h in header)]
    return "\n".join([*lines, *_block(node, 0)]) + "\n"


def jinja_literal(text: str) -> str:
    """Template text that renders to exactly `text`."""
    # Jinja turns a carriage return of the text into a newline; from an expression it stays.
    out = text.replace("{", "{{ '{' }}").replace("\r", "{{ '\\r' }}")
    if out.startswith("#jinja2:"):
        out = "{{ '#' }}" + out[1:]
    return out


def jinja_with(text: str, word: str, expr: str) -> str:
    """Template text rendering `text` with each whole-word `word` (not inside a longer run of
    letters and digits) given by the Jinja expression `expr` instead."""
    pieces: list[str] = []
    start = 0
    i = text.find(word) if word else -1
    while i >= 0:
        end = i + len(word)
        before = text[i - 1] if i > 0 else ""
        after = text[end] if end < len(text) else ""
        if not before.isalnum() and not after.isalnum():
            pieces += [jinja_literal(text[start:i]), "{{ " + expr + " }}"]
            start = end
        i = text.find(word, end)
    pieces.append(jinja_literal(text[start:]))
    out = "".join(pieces)
    if out.startswith("#jinja2:"):
        out = "{{ '#' }}" + out[1:]
    return out
