"""The Textual front end: draws snapshots from tuitune.core and sends intents back."""
