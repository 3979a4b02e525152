"""Use cases of the service, free of any transport: create, view, act, read the log."""
