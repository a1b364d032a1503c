"""The Textual front end: draws snapshots from tuitune.core and sends intents back.

May import tuitune.core, Textual and Rich, never tuitune.cli. Only app.py (and cli.live) know
TuituneApp: controllers see the Shell protocol (shell.py) and talk back through Messages."""
