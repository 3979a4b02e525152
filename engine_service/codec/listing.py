"""Legal actions into a view, each action's message built once and then only copied."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from cardengine.v1 import game_pb2

ActionEncoder = Callable[[Any], game_pb2.Action]


@functools.lru_cache(maxsize=4096)
def _encoded_action(encode: ActionEncoder, action: Any) -> game_pb2.Action:
    """An action's proto, built once: views list the same few actions over and over.

    Shared between views, so it is only ever copied (into ``GameView.legal_actions``).
    Actions are immutable values, hashable by design; so is a codec's bound encoder.
    """
    return encode(action)


def list_actions(encode: ActionEncoder, actions: Iterable[Any], out: game_pb2.GameView) -> None:
    """Append ``actions``, encoded by ``encode``, to ``out.legal_actions`` one by one."""
    out.legal_actions.extend(_encoded_action(encode, action) for action in actions)
