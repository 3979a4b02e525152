"""``python -m engine_service.api.keys``: make a service key, or hash one, for the configuration.

The service is configured with each key's SHA-256, name and scopes (``--service-key``,
``ENGINE_SERVICE_KEYS``; :func:`engine_service.app.seats.parse_key_spec`), never the key:

* ``new --name lobby --scopes create,list`` prints a fresh random key (give it to the
  backend, which sends it as ``x-service-key``) and, on the next line, its configuration line;
* ``hash --name lobby --scopes create,list`` reads a key from standard input (without echo
  on a terminal) and prints its configuration line; without ``--name`` only the hex digest.
"""

from __future__ import annotations

import argparse
import getpass
import secrets
import sys
from collections.abc import Sequence

from engine_service.app.seats import (
    SCOPES,
    TOKEN_BYTES,
    KeySpecError,
    key_spec,
    parse_key_spec,
    token_hash,
)


def _read_key() -> str:
    """The key from standard input: a prompt without echo on a terminal, else the first line."""
    if sys.stdin.isatty():
        return getpass.getpass("service key: ")
    return sys.stdin.readline().rstrip("\r\n")


def _line(name: str | None, key: str, scopes: str, limits: str | None) -> str:
    """The configuration line (or only the digest without a name), checked as the server would."""
    if name is None:
        return token_hash(key).hex()
    line = key_spec(name, key, [scope.strip() for scope in scopes.split(",")])
    if limits:
        line = f"{line}:{limits}"
    parse_key_spec(line)
    return line


def main(argv: Sequence[str] | None = None) -> int:
    """Print what was asked for; 2 for a key or options that cannot be used."""
    parser = argparse.ArgumentParser(prog="python -m engine_service.api.keys", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for command, text in (("new", "make a random key"), ("hash", "hash a key read from stdin")):
        sub = commands.add_parser(command, help=text)
        sub.add_argument("--name", required=command == "new", help="the key's name (logs, quotas)")
        sub.add_argument(
            "--scopes",
            default=",".join(SCOPES),
            help=f"comma-separated, of {', '.join(SCOPES)} (default: all)",
        )
        sub.add_argument("--limits", help="the key's own limits, e.g. rate=5,burst=10,games=100")
    args = parser.parse_args(argv)
    key = secrets.token_urlsafe(TOKEN_BYTES) if args.command == "new" else _read_key()
    if not key:
        print("keys: an empty key", file=sys.stderr)
        return 2
    try:
        line = _line(args.name, key, args.scopes, args.limits)
    except KeySpecError as error:
        print(f"keys: {error}", file=sys.stderr)
        return 2
    if args.command == "new":
        print(key)
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
