"""Two floors of "one script per move": engines whose save script does the least, or nothing.

The scale-out goal asks for Redis CPU per move well under the save script's. Every move
costs Redis one script call in any design that keeps a move atomic (one script on one slot),
so :mod:`bench.capacity` also measures this tree's engine with its save script replaced:

* ``least save``: what any save must do: compare the version, append the move's events to
  the stream, and write the snapshot (and the request's reply). No log list, no trimming, no
  index or expiry upkeep; games stay correct for the benchmark's straight runs of moves,
  nothing more.
* ``no-op script``: returns OK and writes nothing: the cost of the call itself (the round
  trip, the script's start), which no change to the script can go under.

Each is a copy of this tree's sources (``engine_service`` and the Python client) with only
``store/save.lua`` changed, run from source as the baseline tree is.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Final

LEAST_SAVE: Final = """\
local stored = redis.call('HMGET', KEYS[1], 'v', ARGV[6] == '' and 'v' or ARGV[6])
if not stored[1] then return {'MISSING'} end
if ARGV[6] ~= '' and stored[2] then
  return {'REPLAYED', stored[1], stored[2], redis.call('HGET', KEYS[1], 's')}
end
if stored[1] ~= ARGV[1] then return {'CONFLICT', stored[1]} end
local version = tonumber(ARGV[1])
for i = 15, #ARGV, 2 do
  version = version + 1
  redis.call('XADD', KEYS[3], version .. '-0', 'a', ARGV[i], 'e', ARGV[i + 1])
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], ARGV[6], ARGV[5])
else
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
end
return {'OK'}
"""
NO_OP: Final = "return {'OK'}\n"
FLOORS: Final = {"least save": LEAST_SAVE, "no-op script": NO_OP}
_COPIED: Final = ("engine_service", "clients/python")
_SKIPPED: Final = shutil.ignore_patterns("*.so", "__pycache__", "*.egg-info", "node_modules")


def floor_tree(root: Path, destination: Path, script: str) -> Path:
    """A copy of ``root``'s sources at ``destination`` whose save script is ``script``."""
    for part in _COPIED:
        shutil.copytree(root / part, destination / part, ignore=_SKIPPED)
    (destination / "engine_service" / "store" / "save.lua").write_text(script)
    return destination
