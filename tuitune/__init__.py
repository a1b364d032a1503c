"""tuitune: a live, interactive tuner for fast NICs on Linux."""

__version__ = "0.1.0.dev0"
