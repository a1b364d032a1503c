"""Unit tests of tuitune/core/bench/ (laid out like the package)."""
