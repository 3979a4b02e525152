"""Each registered game's codec, by game name (the name of its oneof fields)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from engine_service.codec.guandan import GuandanCodec
from engine_service.codec.hearts import HeartsCodec
from engine_service.codec.klaberjass import KlaberjassCodec
from engine_service.codec.protocol import GameCodec

CODECS: Final[Mapping[str, GameCodec]] = {
    "hearts": HeartsCodec(),
    "guandan": GuandanCodec(),
    "klaberjass": KlaberjassCodec(),
}
