"""Unit tests of tuitune/core/procs/ (laid out like the package)."""
