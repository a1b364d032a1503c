"""Tests against the real kernel, as root, each in its own network namespace with unique veth
names (conftest.veth_ns), deleted even on failure; never the host's interfaces, IRQs or global
sysctls."""
