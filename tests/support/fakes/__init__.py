"""Stand-ins for what this machine lacks (a real NIC's ethtool answers), built from captures
in tests/fixtures/captures; never used where the real kernel can answer."""
