"""Unit tests of tuitune/cli/ (laid out like the package)."""
