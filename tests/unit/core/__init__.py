"""Unit tests of tuitune/core/ (laid out like the package)."""
