"""The headless core: everything that knows about tuning. No Textual or Rich imports here."""
