"""Requests for every EngineService method, generated from the protobuf descriptors.

:class:`RequestFuzzer` walks a method's request descriptor and fills fields with values a
careless or hostile client might send: unknown enum numbers, seats out of range, repeated
fields far longer than any game needs, strings of the wrong shape or length, actions of
another game, and, on the wire, strings that are not UTF-8 and bytes that are no message at
all. Values are drawn from pools that also hold real game ids, tokens, versions and legal
actions, so many requests reach the engine rather than stopping at the first field check.

Everything is drawn from one seeded :class:`random.Random`, so a failing run is repeated by
its seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from cardengine.v1 import engine_service_pb2, game_pb2
from google.protobuf import descriptor, message_factory
from google.protobuf.message import Message

SERVICE: Final = engine_service_pb2.DESCRIPTOR.services_by_name["EngineService"]
MAX_DEPTH: Final = 5
"""Nested messages below this depth stay unset (every request message is shallower)."""
SENTINEL: Final = "\x7f~fz~\x7f"
"""A string the wire mutation swaps for bytes that are not UTF-8, keeping its length."""
NOT_UTF8: Final = b"\xff\xfe\xc3\x28\xa0\xa1\xe2"
LONG_TEXT: Final = 70_000
"""A string of this many characters: far beyond any field, still within the request limit."""
OVER_LIMIT: Final = 300_000
"""A string of this many characters makes the request larger than the 256 KiB it may be."""
REPEATS: Final = (0, 1, 2, 3, 4, 9, 11, 27, 28, 53, 200, 3000)
"""Lengths of repeated fields: a few, a hand, a hand and one, two packs, far too many."""
INTS: Final = (0, 1, 2, 3, 4, 5, -1, 7, 13, 27, 500, 501, 2**31 - 1, -(2**31))
INT64S: Final = (*INTS, 2**62, -(2**63), 2**63 - 1)
UINTS: Final = (0, 1, 2, 3, 255, 2**32 - 1)
SEATS: Final = (0, 1, 2, 3, -1, 4, 5, 8, 99, 2**31 - 1, -(2**31))
ENUM_NUMBERS: Final = (-1, 99, 1000, 2**31 - 1, -(2**31))
"""Enum numbers no enum of the API defines."""


@dataclass
class Pools:
    """Real values of the running test's games, mixed into the generated requests.

    Attributes:
        game_ids: ids of real games (and one of a game that does not exist).
        game_types: the hosted game types.
        actions: legal actions seen in the games' views, of every game.
        versions: versions the games have had.
    """

    game_ids: list[str] = field(default_factory=list)
    game_types: list[str] = field(default_factory=list)
    actions: list[game_pb2.Action] = field(default_factory=list)
    versions: list[int] = field(default_factory=lambda: [1, 2])


@dataclass(frozen=True)
class FuzzCase:
    """One generated call: the method, the bytes sent and what they were made from."""

    method: descriptor.MethodDescriptor
    data: bytes
    how: str
    game_id: str

    @property
    def path(self) -> str:
        return f"/{SERVICE.full_name}/{self.method.name}"


class RequestFuzzer:
    """Generates :class:`FuzzCase` values for the service's methods from one seed."""

    def __init__(self, rng: random.Random, pools: Pools) -> None:
        self.rng = rng
        self.pools = pools
        self._strings: dict[str, Callable[[], str]] = {
            "game_id": self._game_id,
            "game_type": self._game_type,
            "request_id": self._request_id,
        }
        self._short = False  # inside a long repeated field: no long strings
        self._ints: dict[str, Sequence[int]] = {
            "seat": SEATS,
            "expected_version": (*self.pools.versions, *INT64S),
            "from_version": (*self.pools.versions, *INT64S),
        }

    def case(self, method: descriptor.MethodDescriptor) -> FuzzCase:
        """A request for ``method``: a generated message, mutated on the wire one time in three."""
        request = self.message(method.input_type, 0)
        game_id = str(getattr(request, "game_id", ""))
        data = request.SerializeToString()
        roll = self.rng.random()
        how = "message"
        if roll < 0.08:
            data, how = self.rng.randbytes(self.rng.randrange(1, 64)), "random bytes"
        elif roll < 0.16 and data:
            data, how = self._flipped(data), "flipped bytes"
        elif roll < 0.22:
            data, how = data + self._bad_tag(), "bad tag"
        elif SENTINEL.encode() in data:
            data, how = self._not_utf8(data), "string not UTF-8"
        return FuzzCase(method, data, how, game_id)

    def message(self, message_type: descriptor.Descriptor, depth: int) -> Message:
        """A message of ``message_type`` with a random choice of its fields set."""
        made: Message = message_factory.GetMessageClass(message_type)()
        if depth >= MAX_DEPTH:
            return made
        fields = list(message_type.fields)
        self.rng.shuffle(fields)
        for field_type in fields:
            if self.rng.random() < 0.55:
                self._fill(made, field_type, depth)
        return made

    def _fill(self, made: Message, field_type: descriptor.FieldDescriptor, depth: int) -> None:
        target = getattr(made, field_type.name)
        count = self._count()
        outer, self._short = self._short, self._short or count > 4
        try:
            self._fill_count(made, target, field_type, count, depth)
        finally:
            self._short = outer

    def _fill_count(
        self,
        made: Message,
        target: Any,
        field_type: descriptor.FieldDescriptor,
        count: int,
        depth: int,
    ) -> None:
        if _is_map(field_type):
            key_type, value_type = field_type.message_type.fields
            for _ in range(count):
                key = self._scalar(key_type)
                if value_type.type == value_type.TYPE_MESSAGE:
                    target[key].CopyFrom(self.message(value_type.message_type, depth + 1))
                else:
                    target[key] = self._scalar(value_type)
            return
        if field_type.is_repeated:
            for _ in range(count):
                if field_type.type == field_type.TYPE_MESSAGE:
                    target.add().CopyFrom(self._child(field_type, depth))
                else:
                    target.append(self._scalar(field_type))
            return
        if field_type.type == field_type.TYPE_MESSAGE:
            target.CopyFrom(self._child(field_type, depth))
            if not target.ListFields():
                target.SetInParent()
            return
        setattr(made, field_type.name, self._scalar(field_type))

    def _child(self, field_type: descriptor.FieldDescriptor, depth: int) -> Message:
        is_action = field_type.message_type.full_name == "cardengine.v1.Action"
        if is_action and self.pools.actions and self.rng.random() < 0.5:
            return self.rng.choice(self.pools.actions)  # a legal action, of this game or another
        return self.message(field_type.message_type, depth + 1)

    def _count(self) -> int:
        return self.rng.choice(REPEATS) if self.rng.random() < 0.3 else self.rng.randrange(4)

    def _scalar(self, field_type: descriptor.FieldDescriptor) -> Any:
        kind = field_type.type
        if kind == field_type.TYPE_STRING:
            maker = self._strings.get(field_type.name, self._text)
            return maker()
        if kind == field_type.TYPE_BYTES:
            return self.rng.randbytes(self.rng.randrange(40))
        if kind == field_type.TYPE_BOOL:
            return self.rng.random() < 0.5
        if kind == field_type.TYPE_ENUM:
            if self.rng.random() < 0.25:
                return self.rng.choice(ENUM_NUMBERS)
            return self.rng.choice(field_type.enum_type.values).number
        if kind in (field_type.TYPE_DOUBLE, field_type.TYPE_FLOAT):
            return self.rng.choice((0.0, -1.0, 1e308, float("nan"), float("inf")))
        if kind in (field_type.TYPE_UINT32, field_type.TYPE_FIXED32):
            return self.rng.choice(UINTS)
        if kind in (field_type.TYPE_UINT64, field_type.TYPE_FIXED64):
            return self.rng.choice((*UINTS, 2**64 - 1))
        hinted = self._ints.get(field_type.name)
        if hinted is not None and self.rng.random() < 0.7:
            return self._fit(self.rng.choice(hinted), field_type)
        pool = INT64S if kind in _INT64_KINDS else INTS
        return self._fit(self.rng.choice(pool), field_type)

    @staticmethod
    def _fit(value: int, field_type: descriptor.FieldDescriptor) -> int:
        """``value`` where the field holds it, else the field's largest value."""
        if field_type.type in _INT64_KINDS:
            return max(-(2**63), min(value, 2**63 - 1))
        return max(-(2**31), min(value, 2**31 - 1))

    def _text(self) -> str:
        roll = self.rng.random()
        if roll < 0.15:
            return SENTINEL
        if self._short and roll < 0.34:
            return self.rng.choice(("", "x", "é", "0" * 33))
        if roll < 0.25:
            return ""
        if roll < 0.32:
            return self.rng.choice("xé漢🂡") * self.rng.choice((65, 257, 5000, LONG_TEXT))
        if roll < 0.33:
            return "y" * OVER_LIMIT
        if roll < 0.5:
            return self.rng.choice(("en", "de-DE", "zz", "*", "en;q=oops", "hearts", "\x00"))
        return self.rng.randbytes(self.rng.randrange(1, 24)).hex()

    def _game_id(self) -> str:
        roll = self.rng.random()
        if roll < 0.7 and self.pools.game_ids:
            return self.rng.choice(self.pools.game_ids)
        if roll < 0.8:
            return self.rng.randbytes(16).hex()
        if roll < 0.85:
            return self.rng.randbytes(16).hex().upper()
        return self._text()

    def _game_type(self) -> str:
        if self.rng.random() < 0.6 and self.pools.game_types:
            return self.rng.choice(self.pools.game_types)
        if self.rng.random() < 0.3:
            return "x" * 6000
        return self._text()

    def _request_id(self) -> str:
        roll = self.rng.random()
        if roll < 0.6:
            return self.rng.randbytes(8).hex()
        if roll < 0.7:
            return "r" * 65
        return self._text()

    def _flipped(self, data: bytes) -> bytes:
        mutable = bytearray(data)
        for _ in range(self.rng.randrange(1, 4)):
            mutable[self.rng.randrange(len(mutable))] = self.rng.randrange(256)
        return bytes(mutable)

    def _bad_tag(self) -> bytes:
        """A field of a wire type its number does not have, or cut short."""
        return self.rng.choice((b"\x0a\xff\xff\xff\xff\x0f", b"\x0f", b"\x08", b"\x12\x05ab"))

    def _not_utf8(self, data: bytes) -> bytes:
        sentinel = SENTINEL.encode()
        return data.replace(sentinel, NOT_UTF8[: len(sentinel)])


_INT64_KINDS: Final = frozenset(
    {
        descriptor.FieldDescriptor.TYPE_INT64,
        descriptor.FieldDescriptor.TYPE_SINT64,
        descriptor.FieldDescriptor.TYPE_SFIXED64,
    }
)


def _is_map(field_type: descriptor.FieldDescriptor) -> bool:
    return (
        field_type.type == field_type.TYPE_MESSAGE
        and field_type.message_type.GetOptions().map_entry
    )
