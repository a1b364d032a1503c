"""Support code the tests share, not tests: host trees built from real captures
(hosttree), fakes for what this machine lacks (fakes/, session_fakes), recorded hosts for the
screen (fixture_hosts, edit_host) and reading the screen as a user would (screen_text)."""
