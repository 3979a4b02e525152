"""The games: one package per game, each its rules alone (pure Python, no I/O, no bots).

:mod:`engine_service.registry` lists them, each paired with its bots.
"""
