"""``python -m engine_service``: serve the engine (see ``--help``)."""

from engine_service.api.server import main

main()
