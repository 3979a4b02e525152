"""Writes per key on a Redis server, counted from its ``MONITOR`` feed for a bounded time.

A key that takes a large share of all writes pins that share of the load to one slot, so to
one master, however many masters a cluster has; this finds such keys under real load.

What counts as one write of a key (:attr:`WriteCounter.per_key`):

* a plain command the server flags ``write`` (``COMMAND``): its first key;
* a script (``EVALSHA``, ``EVAL``, ``FCALL``): each key it declares (``numkeys``), once, if
  any command the script ran was a write. ``MONITOR`` shows a script's own commands (client
  ``lua``) right after the script's line, as a script runs alone; those are not counted
  again here.

A script declares every key it might touch, so the first count also charges keys a script
only read or left alone. :attr:`WriteCounter.run_per_key` counts instead every write command
that ran, a script's own included, by its first key: what each key really took.

redis-py's ``Monitor.next_command`` joins the arguments with spaces, which loses where one
ends when an argument holds a space (a snapshot does), so the raw line is parsed here.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis

SCRIPT_CALLS = frozenset({"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"})
"""Commands whose keys follow a count of keys: ``EVALSHA sha numkeys key...``."""
MAX_ARGS = 64
"""Arguments parsed per line at most: the keys come first, bulky values after."""
_LINE = re.compile(r"(?P<time>[\d.]+) \[(?P<db>\d+) (?P<client>[^\]]*)\] (?P<args>.*)", re.S)
_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)
_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})|\\(.)", re.S)
_ESCAPED = {"n": "\n", "r": "\r", "t": "\t", "a": "\a", "b": "\b"}


@dataclass(frozen=True)
class Logged:
    """One ``MONITOR`` line: who sent it (``lua`` for a script's own commands), the arguments."""

    client: str
    args: tuple[str, ...]


def _unescape(text: str) -> str:
    """Undo the quoting ``MONITOR`` applies to an argument (``\\"``, ``\\xHH``, ``\\n``...)."""

    def one(found: re.Match[str]) -> str:
        if found.group(1) is not None:
            return chr(int(found.group(1), 16))
        return _ESCAPED.get(found.group(2), found.group(2))

    return _ESCAPE.sub(one, text)


def parse_monitor_line(line: str) -> Logged | None:
    r"""The client and first :data:`MAX_ARGS` arguments of a ``MONITOR`` line; None for "OK".

    >>> parse_monitor_line('1.5 [0 127.0.0.1:5000] "evalsha" "ab" "2" "k\\"1" "a b"')
    Logged(client='127.0.0.1:5000', args=('evalsha', 'ab', '2', 'k"1', 'a b'))
    >>> parse_monitor_line('1.6 [0 lua] "hset" "k\\x01" "f" "v"').args[1]
    'k\x01'
    """
    found = _LINE.match(line)
    if found is None:
        return None
    quoted = itertools.islice(_ARG.finditer(found.group("args")), MAX_ARGS)
    return Logged(found.group("client"), tuple(_unescape(arg.group(1)) for arg in quoted))


def write_commands(client: redis.Redis) -> dict[str, int]:
    """The server's write commands and where each one's first key is (``COMMAND``)."""
    return {
        name.lower(): int(info["first_key_pos"])
        for name, info in client.command().items()
        if "write" in info["flags"] and int(info["first_key_pos"]) > 0
    }


@dataclass
class WriteCounter:
    """Writes per key from ``MONITOR`` lines fed in order (see the module's rules)."""

    writes: Mapping[str, int]
    """Write command name -> position of its first key (:func:`write_commands`)."""
    per_key: Counter[str] = field(default_factory=Counter)
    run_per_key: Counter[str] = field(default_factory=Counter)
    lines: int = 0
    _script_keys: tuple[str, ...] = ()
    _script_wrote: bool = False

    def feed(self, logged: Logged) -> None:
        """Count one line."""
        self.lines += 1
        if not logged.args:
            return
        name = logged.args[0].lower()
        written = self._written(name, logged.args)
        if written is not None:
            self.run_per_key[written] += 1
        if logged.client == "lua":
            self._script_wrote = self._script_wrote or written is not None
            return
        self.close()
        if name in SCRIPT_CALLS and len(logged.args) > 2 and logged.args[2].isdigit():
            self._script_keys = logged.args[3 : 3 + int(logged.args[2])]
        elif written is not None:
            self.per_key[written] += 1

    def _written(self, name: str, args: tuple[str, ...]) -> str | None:
        """The key a write command writes first; None for any other command."""
        position = self.writes.get(name)
        return args[position] if position is not None and len(args) > position else None

    def close(self) -> None:
        """Count the script seen last, now that all its commands have been seen."""
        if self._script_wrote:
            self.per_key.update(self._script_keys)
        self._script_keys, self._script_wrote = (), False


def watch(client: redis.Redis, seconds: float, max_lines: int) -> WriteCounter:
    """Count writes per key on one server for ``seconds`` or ``max_lines`` lines.

    ``client`` needs a ``socket_timeout`` (so a quiet server cannot hold the watch past its
    time); its ``MONITOR`` connection is its own and is closed afterwards.
    """
    counter = WriteCounter(write_commands(client))
    deadline = time.monotonic() + seconds
    untyped: Any = client  # redis-py leaves monitor() and its connection unannotated
    with untyped.monitor() as monitor:
        connection = monitor.connection
        while time.monotonic() < deadline and counter.lines < max_lines:
            try:
                raw = connection.read_response()
            except redis.TimeoutError:
                continue
            text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
            logged = parse_monitor_line(text)
            if logged is not None:
                counter.feed(logged)
    counter.close()
    return counter


def watch_all(clients: Sequence[redis.Redis], seconds: float, max_lines: int) -> list[WriteCounter]:
    """:func:`watch` every server at once (a thread each), so the windows coincide."""
    counters: list[WriteCounter | None] = [None] * len(clients)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            counters[index] = watch(clients[index], seconds, max_lines)
        except BaseException as error:  # re-raised in the calling thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [counter for counter in counters if counter is not None]


def merged(counts: Iterable[Counter[str]]) -> Counter[str]:
    """Writes per key over several servers (a key lives on one, so nothing adds up twice)."""
    total: Counter[str] = Counter()
    for count in counts:
        total.update(count)
    return total
