"""The core on recorded trees, captures and constructed inputs: no root, no kernel writes. Laid
out like the package (core/host/, core/session/, cli/, tui/...); tests of the project as a
whole stay here at the top."""
