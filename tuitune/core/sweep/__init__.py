"""Sweeps: the reports' tables measured unattended. A spec (spec.py) names settings and their
values; plan.py orders the combinations; runner.py applies each through the change journal,
runs iperf3 and records the runs in the notebook; pivot.py makes the table. No UI imports."""
