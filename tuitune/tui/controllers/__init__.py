"""What the user's keys start, apart from drawing: editing (the journal through the
Session), the benchmark, the export, irqbalance, the lab's quit. They see the App only
through tuitune.tui.shell.Shell and reach it with Messages; they never import tuitune.tui.app."""
