"""``python -m engine_service``: serve the engine, one process per core (see ``--help``)."""

from engine_service.api.launcher import main

main()
