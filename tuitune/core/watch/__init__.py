"""Watching the host: the sampler's ticks (sampler, cadence), the reads behind them
(hostreader, snapshot), and what is computed from two samples (rates, cpuview).

May import core.host, core.catalog and the core's small value modules; never core.session,
core.export, core.bench, the UI or the command line."""
