"""Unit tests of tuitune/core/export/ (laid out like the package)."""
