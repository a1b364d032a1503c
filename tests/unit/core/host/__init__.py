"""Unit tests of tuitune/core/host/ (laid out like the package)."""
