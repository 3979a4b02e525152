"""Finding games: ListGames and GetGame against real servers, each on a private Redis.

Listings are checked for exact contents, so every server here has a Redis of its own that no
other test writes to. Its settings keep each game in the state the test put it in: one bot
move per call, and a timer loop that looks for due games once at start (nothing is due
then) and next only after an hour, so an all-bot game stays running mid-way until the test
ends it. A waiting game has people in every seat; an over game was ended by its admin.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import random
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final, cast

import grpc
import pytest
import redis
from cardengine.v1 import cards_pb2, engine_service_pb2_grpc, game_pb2
from cardengine.v1 import engine_service_pb2 as api
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from engine_service.app.seats import key_spec
from engine_service.devtools.local import local_service, redis_server
from engine_service.store.keys import GROUPS, LIST_STATES, game_of_member, list_key
from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    RANDOM,
    assert_invalid_field,
    failure_of,
    first_legal,
    submit,
    tokens_of,
    view,
)

QUIET: Final[dict[str, Any]] = {"bot_moves_per_call": 1, "timer_loop": False}
"""Server settings under which no game changes state unless the test changes it."""

ANY: Final = api.GAME_STATE_UNSPECIFIED
WAITING: Final = api.GAME_STATE_WAITING_FOR_HUMAN
RUNNING: Final = api.GAME_STATE_RUNNING
OVER: Final = api.GAME_STATE_OVER
KINDS: Final = (WAITING, RUNNING, OVER)
SEATS: Final = {"hearts": 4, "guandan": 4, "klaberjass": 2}
LABEL_VALUES: Final = {"team": ("red", "blue", "green"), "tier": ("gold", "iron")}
POPULATION: Final = 2000
MAX_PAGES: Final = 5000
"""Bound of every page walk (far more pages than any walk here needs)."""
WORKERS: Final = 8
WAIT_SECONDS: Final = 10.0
SEED: Final = 20261201

Key = tuple[int, str]
"""Where a game stands in a listing: (create time in ms, game id), newest first."""


@dataclass
class Made:
    """A game as the test made it, and what a listing must show of it."""

    game_id: str
    game_type: str
    labels: dict[str, str]
    state: int
    admin_token: str
    tokens: dict[int, str]
    before_ms: int
    after_ms: int


@dataclass(frozen=True)
class Service:
    """A server on its own Redis: its stub and a client of that Redis."""

    stub: Any
    client: redis.Redis


@contextlib.contextmanager
def private_service(**settings: Any) -> Iterator[Service]:
    """A redis-server and an engine server of its own, both stopped on exit."""
    with (
        redis_server() as url,
        local_service(url, **settings) as address,
        grpc.insecure_channel(address) as channel,
    ):
        client = redis.Redis.from_url(url)
        try:
            yield Service(engine_service_pb2_grpc.EngineServiceStub(channel), client)
        finally:
            client.close()


@pytest.fixture(scope="module")
def crowd() -> Iterator[Service]:
    """The server holding the large population that the read-only listing tests walk."""
    with private_service(**QUIET) as service:
        yield service


@pytest.fixture(scope="module")
def quiet() -> Iterator[Service]:
    """A server for tests that create and change their own games."""
    with private_service(**QUIET) as service:
        yield service


def admin_md(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata of a game's admin (the token CreateGame returned)."""
    return (("x-admin-token", token),)


def key_md(key: str) -> tuple[tuple[str, str], ...]:
    """Call metadata of a backend holding a service key."""
    return (("x-service-key", key),)


def now_ms() -> int:
    """Wall-clock ms, to bound the create_time the server gives a game (same host clock)."""
    return int(time.time() * 1000)


def make(stub: Any, game_type: str, state: int, labels: dict[str, str], metadata: Any = ()) -> Made:
    """A game of ``game_type`` in ``state``: people everywhere, bots everywhere, or ended."""
    seats = SEATS[game_type]
    kinds = [HUMAN] * seats if state == WAITING else [RANDOM, HEURISTIC] * (seats // 2)
    before = now_ms()
    request = api.CreateGameRequest(game_type=game_type, seats=kinds, labels=labels)
    created = stub.CreateGame(request, metadata=metadata)
    after = now_ms()
    if state == OVER:
        ended = stub.EndGame(
            api.EndGameRequest(game_id=created.game_id, reason="the test is done with it"),
            metadata=admin_md(created.admin_token),
        )
        assert ended.view.status != game_pb2.GAME_STATUS_IN_PROGRESS
    return Made(
        created.game_id,
        game_type,
        labels,
        state,
        created.admin_token,
        tokens_of(created),
        before,
        after,
    )


def make_many(stub: Any, wanted: Sequence[tuple[str, int, dict[str, str]]]) -> list[Made]:
    """Create ``wanted`` games concurrently, as many backends would."""
    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(lambda spec: make(stub, *spec), wanted))


def end(stub: Any, game: Made) -> None:
    """The admin ends ``game`` (T-R8), and the test's model follows."""
    stub.EndGame(
        api.EndGameRequest(game_id=game.game_id, reason="ended between pages"),
        metadata=admin_md(game.admin_token),
    )
    game.state = OVER


def key_of(info: Any) -> Key:
    """A listed game's place in the newest-first order."""
    return (info.create_time.ToMilliseconds(), info.game_id)


def walk(
    stub: Any,
    request: api.ListGamesRequest,
    between: Callable[[list[Any]], None] | None = None,
    metadata: tuple[tuple[str, str], ...] = (),
) -> list[list[Any]]:
    """Every page of a listing; ``between`` sees each page before the next is asked for."""
    pages: list[list[Any]] = []
    asked = api.ListGamesRequest()
    asked.CopyFrom(request)
    for _ in range(MAX_PAGES):
        response = stub.ListGames(asked, metadata=metadata)
        assert len(response.games) <= min(request.page_size or 50, 500)
        pages.append(list(response.games))
        if not response.next_page_token:
            return pages
        if between is not None:
            between(pages[-1])
        asked.page_token = response.next_page_token
    raise AssertionError("the listing never ended")


def matches(game: Made, game_type: str, state: int, labels: dict[str, str]) -> bool:
    """Whether ``game`` as it stands passes a ListGames filter."""
    return (
        game_type in ("", game.game_type)
        and state in (api.GAME_STATE_UNSPECIFIED, game.state)
        and all(game.labels.get(k) == v for k, v in labels.items())
    )


def random_labels(rng: random.Random) -> dict[str, str]:
    """Each label key present or not, with a random value."""
    return {key: rng.choice(values) for key, values in LABEL_VALUES.items() if rng.random() < 0.7}


@pytest.fixture(scope="module")
def population(crowd: Service) -> dict[str, Made]:
    """Thousands of games of every type, state and label mix, created concurrently."""
    rng = random.Random(SEED)
    wanted = [
        (rng.choice(sorted(SEATS)), rng.choice(KINDS), random_labels(rng))
        for _ in range(POPULATION)
    ]
    return {game.game_id: game for game in make_many(crowd.stub, wanted)}


def test_listing_holds_every_game_once_newest_first(
    crowd: Service, population: dict[str, Made]
) -> None:
    """The whole population, each game once, as made, ordered by (create_time, id) descending."""
    rng = random.Random(SEED + 1)
    pages = walk(crowd.stub, api.ListGamesRequest(page_size=rng.randint(1, 500)))
    listed = [info for page in pages for info in page]
    assert sorted(info.game_id for info in listed) == sorted(population)
    keys = [key_of(info) for info in listed]
    assert keys == sorted(keys, reverse=True)
    assert len(set(keys)) == len(keys)
    for info in listed:
        game = population[info.game_id]
        assert (info.game_type, info.state, dict(info.labels)) == (
            game.game_type,
            game.state,
            game.labels,
        )
        assert game.before_ms <= info.create_time.ToMilliseconds() <= game.after_ms


def test_every_filter_lists_exactly_its_games(crowd: Service, population: dict[str, Made]) -> None:
    """Every combination of game type, state and label keys, with a random page size each."""
    rng = random.Random(SEED + 2)
    full = walk(crowd.stub, api.ListGamesRequest(page_size=500))
    order = [info.game_id for page in full for info in page]
    label_subsets = [
        keys
        for n in range(len(LABEL_VALUES) + 1)
        for keys in itertools.combinations(LABEL_VALUES, n)
    ]
    walked = 0
    combinations = itertools.product(("", *sorted(SEATS)), (ANY, *KINDS), label_subsets)
    for game_type, state, label_keys in combinations:
        labels = {key: rng.choice(LABEL_VALUES[key]) for key in label_keys}
        request = api.ListGamesRequest(
            game_type=game_type, state=state, labels=labels, page_size=rng.randint(1, 500)
        )
        listed = [info.game_id for page in walk(crowd.stub, request) for info in page]
        expected = [g for g in order if matches(population[g], game_type, state, labels)]
        assert listed == expected, request
        walked += len(listed)
    print(f"the filtered walks listed {walked} games")


@pytest.mark.parametrize("state", [ANY, *KINDS], ids=["any", "waiting", "running", "over"])
def test_games_changing_state_between_pages_are_listed_at_most_once(
    quiet: Service, state: api.GameState.ValueType
) -> None:
    """Ending games between pages, before and after the walk reaches them, and creating more.

    A game is listed iff it matched the filter when the walk read its position: during the
    first page whose lowest entry it is not below (a short page reads all that is left). It
    is never listed twice, and a game created after the first page is never listed.
    """
    rng = random.Random(SEED + state)
    batch = {"batch": uuid.uuid4().hex[:12]}
    games = make_many(quiet.stub, [(rng.choice(sorted(SEATS)), kind, batch) for kind in KINDS * 30])
    made = {game.game_id: game for game in games}
    known = walk(quiet.stub, api.ListGamesRequest(labels=batch, page_size=500))
    keys = {info.game_id: key_of(info) for page in known for info in page}
    assert sorted(keys) == sorted(made)
    size = rng.randint(1, 20)
    floors: list[Key | None] = []
    ended_before: dict[str, int] = {}
    late: list[str] = []

    def between(page: list[Any]) -> None:
        floor = key_of(page[-1]) if len(page) == size else None
        floors.append(floor)
        if floor is None:
            return
        live = [g for g in made.values() if g.state != OVER]
        passed = [g for g in live if keys[g.game_id] >= floor]
        ahead = [g for g in live if keys[g.game_id] < floor]
        for game in rng.sample(passed, min(2, len(passed))) + rng.sample(ahead, min(2, len(ahead))):
            end(quiet.stub, game)
            ended_before[game.game_id] = len(floors)
        late.append(make(quiet.stub, rng.choice(sorted(SEATS)), rng.choice(KINDS), batch).game_id)

    original = {game_id: game.state for game_id, game in made.items()}
    request = api.ListGamesRequest(state=state, labels=batch, page_size=size)
    pages = walk(quiet.stub, request, between)
    floors.append(None)
    listed = [info.game_id for page in pages for info in page]
    assert len(listed) == len(set(listed))
    assert not set(listed) & set(late)
    assert [keys[g] for g in listed] == sorted((keys[g] for g in listed), reverse=True)

    def read_at(game_id: str) -> int:
        """The page call during which the walk read the game's position."""
        return next(
            call for call, floor in enumerate(floors) if floor is None or keys[game_id] >= floor
        )

    def state_then(game_id: str) -> int:
        ended = ended_before.get(game_id)
        return OVER if ended is not None and ended <= read_at(game_id) else original[game_id]

    expected = {g for g in made if state in (ANY, state_then(g))}
    assert set(listed) == expected
    # Both kinds of change happened: games ended after the walk read them, and before.
    assert any(ended > read_at(g) for g, ended in ended_before.items())
    assert any(ended <= read_at(g) for g, ended in ended_before.items())


def test_page_size_defaults_and_limits(crowd: Service, population: dict[str, Made]) -> None:
    """0 means 50, more than 500 is lowered to 500; a page may be short before the end."""
    for asked, got in ((0, 50), (501, 500), (1_000_000, 500), (7, 7)):
        response = crowd.stub.ListGames(api.ListGamesRequest(page_size=asked))
        assert len(response.games) == got
        assert response.next_page_token
    # Nothing matches: the pages are empty yet carry a token until the indexes are walked.
    pages = walk(crowd.stub, api.ListGamesRequest(labels={"team": "nobody"}, page_size=100))
    assert len(pages) > 1
    assert not any(pages)


def test_bad_listing_requests_are_invalid_argument(
    crowd: Service, population: dict[str, Made]
) -> None:
    """Each names the field at fault in a BadRequest; the page size may change (AIP-158)."""
    stub = crowd.stub
    first = stub.ListGames(api.ListGamesRequest(game_type="hearts", page_size=5))
    token = first.next_page_token
    assert token
    bad: list[tuple[api.ListGamesRequest, str]] = [
        (api.ListGamesRequest(page_size=-1), "page_size"),
        (api.ListGamesRequest(game_type="guandan", page_size=5, page_token=token), "page_token"),
        (
            api.ListGamesRequest(game_type="hearts", state=OVER, page_size=5, page_token=token),
            "page_token",
        ),
        (
            api.ListGamesRequest(
                game_type="hearts", labels={"team": "red"}, page_size=5, page_token=token
            ),
            "page_token",
        ),
        (api.ListGamesRequest(page_token="not a token at all!"), "page_token"),
        (api.ListGamesRequest(page_token="bm90LWEtdG9rZW4"), "page_token"),
        (api.ListGamesRequest(game_type="poker"), "game_type"),
        (api.ListGamesRequest(state=api.GameState.ValueType(99)), "state"),
        (api.ListGamesRequest(labels={"Team": "red"}), "labels['Team']"),
        (api.ListGamesRequest(labels={"1st": "red"}), "labels['1st']"),
    ]
    for request, field in bad:
        assert_invalid_field(failure_of(functools.partial(stub.ListGames, request)), field)
    again = stub.ListGames(api.ListGamesRequest(game_type="hearts", page_size=5, page_token=token))
    assert [g.game_type for g in again.games] == ["hearts"] * 5
    resized = stub.ListGames(
        api.ListGamesRequest(game_type="hearts", page_size=7, page_token=token)
    )
    assert [g.game_id for g in resized.games][:5] == [g.game_id for g in again.games]


def test_service_keys_guard_listing_and_game_metadata() -> None:
    """With service keys, listing needs one; GetGame takes the game's admin token or a key."""
    keys = (key_spec("backend", "k1", ("create", "list")),)
    with private_service(service_keys=keys, **QUIET) as service:
        stub = service.stub
        game = make(stub, "hearts", WAITING, {}, key_md("k1"))
        other = make(stub, "klaberjass", WAITING, {}, key_md("k1"))
        for metadata in ((), key_md("k2"), key_md(""), admin_md(game.admin_token)):
            listing = functools.partial(stub.ListGames, api.ListGamesRequest(), metadata=metadata)
            failure = failure_of(listing)
            assert (failure.code, failure.reason) == (
                grpc.StatusCode.UNAUTHENTICATED,
                "SERVICE_KEY_INVALID",
            )
        listed = stub.ListGames(api.ListGamesRequest(), metadata=key_md("k1"))
        assert {g.game_id for g in listed.games} == {game.game_id, other.game_id}
        request = api.GetGameRequest(game_id=game.game_id)
        for metadata in (admin_md(game.admin_token), key_md("k1")):
            assert stub.GetGame(request, metadata=metadata).game.game_id == game.game_id
        failure = failure_of(functools.partial(stub.GetGame, request, metadata=key_md("k2")))
        assert (failure.code, failure.reason) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "SERVICE_KEY_INVALID",
        )
        seat_token = game.tokens[0]
        for metadata in (
            (),
            admin_md(other.admin_token),
            admin_md(seat_token),
            admin_md("x" * 43),
            (("x-seat-token", seat_token),),
        ):
            failure = failure_of(functools.partial(stub.GetGame, request, metadata=metadata))
            assert (failure.code, failure.reason) == (
                grpc.StatusCode.UNAUTHENTICATED,
                "ADMIN_TOKEN_INVALID",
            )


def reachable(descriptor: Descriptor) -> set[str]:
    """The full names of every message type a message can hold, at any depth."""
    seen: set[str] = set()
    todo = [descriptor]
    while todo:
        current = todo.pop()
        if current.full_name in seen:
            continue
        seen.add(current.full_name)
        todo.extend(
            field.message_type
            for field in current.fields
            if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type is not None
        )
    return seen


def test_game_metadata_shows_the_table_and_never_a_card(quiet: Service) -> None:
    """GetGame: type, options, seats, version, state, times, labels, clocks, then the outcome."""
    stub = quiet.stub
    assert cards_pb2.Card.DESCRIPTOR.full_name not in reachable(api.GetGameResponse.DESCRIPTOR)
    assert cards_pb2.Card.DESCRIPTOR.full_name not in reachable(api.ListGamesResponse.DESCRIPTOR)
    assert "cardengine.v1.GameOptions" in reachable(api.GetGameResponse.DESCRIPTOR)
    request = api.CreateGameRequest(
        game_type="hearts",
        seats=[HUMAN, RANDOM, HEURISTIC, HUMAN],
        labels={"table": "seven", "room.id": "r-1"},
    )
    request.options.hearts.target = 50
    request.clock.per_decision.FromSeconds(60)
    request.clock.bank.FromSeconds(120)
    request.clock.on_expiry = game_pb2.EXPIRY_ACTION_BOT_RANDOM
    created = stub.CreateGame(request)
    admin = admin_md(created.admin_token)
    ask = api.GetGameRequest(game_id=created.game_id)
    info = stub.GetGame(ask, metadata=admin).game
    assert (info.game_id, info.game_type, info.state) == (created.game_id, "hearts", WAITING)
    assert info.options.WhichOneof("game") == "hearts"
    hearts = info.options.hearts
    assert hearts.target == 50
    assert all(hearts.HasField(f.name) for f in hearts.DESCRIPTOR.fields)
    assert [(s.seat, s.player_type, s.has_token) for s in info.seats] == [
        (0, HUMAN, True),
        (1, RANDOM, False),
        (2, HEURISTIC, False),
        (3, HUMAN, True),
    ]
    assert info.version == created.view.version
    assert dict(info.labels) == {"table": "seven", "room.id": "r-1"}
    assert info.clock == request.clock
    assert [c.seat for c in info.clocks] == [0, 3]
    assert all(c.bank_remaining.ToSeconds() == 120 and c.HasField("deadline") for c in info.clocks)
    assert info.create_time.ToMilliseconds() <= info.update_time.ToMilliseconds()
    assert not info.HasField("outcome")
    assert not info.rematch_of and not info.rematch_id

    time.sleep(0.01)  # so the move's write lands in a later millisecond than the creation
    token = tokens_of(created)[0]
    seat_view = view(stub, created.game_id, 0, token)
    submit(stub, created.game_id, 0, token, first_legal(seat_view), seat_view.version)
    moved = stub.GetGame(ask, metadata=admin).game
    assert moved.version > info.version
    assert moved.create_time == info.create_time
    assert moved.update_time.ToMilliseconds() > info.update_time.ToMilliseconds()
    assert moved.state == WAITING  # seat 3 still has to pass

    stub.EndGame(api.EndGameRequest(game_id=created.game_id, reason="closing time"), metadata=admin)
    over = stub.GetGame(ask, metadata=admin).game
    assert over.state == OVER
    assert over.outcome.ended_early == "closing time"
    assert over.version > moved.version
    assert [c.HasField("deadline") for c in over.clocks] == [False, False]


def list_members(client: redis.Redis) -> set[str]:
    """The games every list index of every slot group holds."""
    members: set[str] = set()
    for group, state in itertools.product(range(GROUPS), LIST_STATES):
        found = cast(list[bytes], client.zrange(list_key(group, state), 0, -1))
        members.update(game_of_member(member) for member in found)
    return members


def expired(stub: Any, game: Made) -> bool:
    """Whether GetGame no longer finds the game."""
    try:
        stub.GetGame(api.GetGameRequest(game_id=game.game_id), metadata=admin_md(game.admin_token))
    except grpc.RpcError as error:
        assert error.code() is grpc.StatusCode.NOT_FOUND
        return True
    return False


def test_expired_games_leave_the_listings_and_their_indexes() -> None:
    """A game untouched past its TTL is gone from ListGames, which drops its index entries."""
    with private_service(game_ttl_seconds=1, **QUIET) as service:
        games = [make(service.stub, "guandan", kind, {"short": "lived"}) for kind in KINDS]
        ids = {game.game_id for game in games}
        listed = service.stub.ListGames(api.ListGamesRequest())
        assert {g.game_id for g in listed.games} == ids
        assert list_members(service.client) == ids
        deadline = time.monotonic() + WAIT_SECONDS
        while not all(expired(service.stub, game) for game in games):
            assert time.monotonic() < deadline, "the games did not expire"
            time.sleep(0.1)
        assert list_members(service.client) == ids  # dropped by a reader, not by Redis
        after = service.stub.ListGames(api.ListGamesRequest())
        assert (list(after.games), after.next_page_token) == ([], "")
        assert list_members(service.client) == set()
