"""Autotune: a closed loop that tunes a link with the benchmark as its judge (docs/autotune.md).
Importable without Textual: the search is pure (search.py), the host binding is host.py."""
