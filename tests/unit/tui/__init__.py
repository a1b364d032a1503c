"""Unit tests of tuitune/tui/ (laid out like the package)."""
