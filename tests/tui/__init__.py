"""The live screen driven through Textual's pilot on recorded hosts (fixture_hosts.py), and
snapshots of its look; screen_text.py reads the screen as a user would."""
