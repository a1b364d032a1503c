"""The core on recorded trees, captures and constructed inputs: no root, no kernel writes."""
