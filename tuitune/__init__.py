"""tuitune: a live, interactive tuner for fast NICs on Linux.

Layers, each importing only those below it (import-linter checks it, see pyproject.toml):
cli/ (commands) -> tui/ (the Textual screen; only cli.live imports its App) -> core/ (all the
knowledge and every kernel read and write, no Textual or Rich). themes/ is the shipped themes'
data (a link to the top-level folder)."""

__version__ = "0.1.0.dev0"
