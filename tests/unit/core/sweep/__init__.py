"""Unit tests of tuitune/core/sweep/ (laid out like the package)."""
