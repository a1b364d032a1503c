"""Unit tests of tuitune/core/session/ (laid out like the package)."""
