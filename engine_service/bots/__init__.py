"""Bots that sit in seats. A bot sees one seat's view and its legal actions, nothing more."""
