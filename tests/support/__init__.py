"""Support code the tests share, not tests: host trees built from real captures
(hosttree), fakes for what this machine lacks (fakes/, session_fakes), recorded hosts for the
screen (fixture_hosts, edit_host), reading the screen as a user would (screen_text), running
the `tuitune` command (command) and the package's import graph (imports)."""
