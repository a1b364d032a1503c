"""The test suite, laid out by what a test needs: unit/ (recorded trees and captures, any user),
kernel/ (root: its own network namespaces and veth pairs), tui/ (the screen through Textual's
pilot, on recorded hosts), security/ (a local attacker's moves against root). Shared helpers:
hosttree.py (host trees from real captures), fakes/ (what this machine lacks, from captures)."""
