"""The text presenters of the headless commands: `show` (show, platform, procs, queues) and
`advise` (advise), Rich renderables over the core's documents.

May import the core and Rich; never Textual, the TUI or the command line."""
