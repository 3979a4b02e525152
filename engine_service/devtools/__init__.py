"""Local running helpers: a private redis-server, an in-process service, `make run`/`make play`."""
