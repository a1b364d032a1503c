"""Screens and dialogs pushed over the live screen: editors and choices, the benchmark
form and its live view, the runs notebook, the export preview."""
