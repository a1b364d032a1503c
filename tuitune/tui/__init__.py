"""The Textual front end: draws snapshots from tuitune.core and sends intents back.

May import tuitune.core, Textual and Rich, never tuitune.cli. Only app.py (and cli.live) know
TuituneApp: controllers see the Shell protocol (shell.py) and talk back through Messages; the
presenters that compute the panels (view.py, grid_view.py) see the Scene protocol (scene.py):
values and read-only panels, no widget; the App applies what they compute. The App's own hooks
sit in its base classes: look/styled.py (theme, glyphs), frame.py (layout, the widget side)."""

from tuitune.tui.notls import import_asyncio_without_tls

import_asyncio_without_tls()  # before Textual imports asyncio (notls.py says why)
