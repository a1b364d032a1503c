"""The four panels of the live screen and their rows (CPU grid, IRQs, NIC, sysctls), the
header, and the row view they share. Widgets only: they draw what they are given."""
