"""Game storage. It keeps bytes, versions and log entries and knows nothing of any game."""
