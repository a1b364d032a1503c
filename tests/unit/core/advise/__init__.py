"""Unit tests of tuitune/core/advise/ (laid out like the package)."""
