"""Refusals and summaries in the caller's language, through a real gRPC server and redis-server.

The same refused move asked in two languages must come back with the same code, reason and
rule ID (clients switch on those) and a ``google.rpc.LocalizedMessage`` in each language; no
``accept-language`` (or one naming no supported language) gives English. A finished game's
summary follows the language too, and English stays the rules' own sentence.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2
from cardengine_client import EngineClient, IllegalAction, klaberjass_trump
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from engine_service.codec.registry import CODECS
from engine_service.core.protocol import Outcome
from engine_service.games.guandan.actions import PassTurn
from engine_service.i18n import explain, outcome_summary
from engine_service.i18n.cards import SUIT_NAMES
from engine_service.i18n.outcomes import compose
from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    RANDOM,
    create,
    finished,
    first_legal,
    stored,
    submit,
    token_md,
    tokens_of,
    view,
)

FRENCH_SWISS = "fr-CH, fr;q=0.9, de;q=0.5"


@dataclass
class Localized:
    code: grpc.StatusCode
    reason: str
    metadata: dict[str, str]
    locale: str
    message: str


def localized_failure(call: Any) -> Localized:
    """Run ``call``, which must fail, and read its ErrorInfo and LocalizedMessage."""
    try:
        call()
    except grpc.RpcError as error:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
        assert status is not None
        info = error_details_pb2.ErrorInfo()
        localized: list[error_details_pb2.LocalizedMessage] = []
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                detail.Unpack(info)
            elif detail.Is(error_details_pb2.LocalizedMessage.DESCRIPTOR):
                message = error_details_pb2.LocalizedMessage()
                detail.Unpack(message)
                localized.append(message)
        assert len(localized) == 1, "exactly one LocalizedMessage"
        return Localized(
            error.code(),  # type: ignore[attr-defined]
            info.reason,
            dict(info.metadata),
            localized[0].locale,
            localized[0].message,
        )
    raise AssertionError("the call succeeded")


def metadata_for(token: str | None, language: str | None) -> tuple[tuple[str, str], ...]:
    token_part = token_md(token) if token is not None else ()
    return token_part + ((("accept-language", language),) if language is not None else ())


def submit_in(
    stub: Any, game_id: str, seat: int, token: str, action: Any, version: int, language: str | None
) -> Any:
    request = api.SubmitActionRequest(
        game_id=game_id,
        seat=seat,
        expected_version=version,
        request_id=uuid.uuid4().hex,
        action=action,
    )
    return stub.SubmitAction(request, metadata=metadata_for(token, language))


def refused_in(
    stub: Any,
    redis_client: Any,
    game_id: str,
    seat: int,
    token: str,
    action: Any,
    version: int,
    languages: tuple[str | None, ...],
) -> list[Localized]:
    """The same refused move asked in each of ``languages``; nothing stored changes."""
    before = stored(redis_client, game_id)
    failures = [
        localized_failure(
            lambda lang=lang: submit_in(stub, game_id, seat, token, action, version, lang)
        )
        for lang in languages
    ]
    assert stored(redis_client, game_id) == before
    first = failures[0]
    for failure in failures:
        assert (failure.code, failure.reason, failure.metadata) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            first.reason,
            first.metadata,
        )
        assert failure.message == explain(failure.reason, failure.metadata, failure.locale)
    return failures


def hearts_follow_suit_refusal(stub: Any) -> tuple[str, str, Any, Any]:
    """A Hearts game where seat 0 holds the suit led and tries another: id, token, action, view."""
    created = create(stub, [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC], seed=7)
    game_id, token = created.game_id, tokens_of(created)[0]
    seat_view = view(stub, game_id, 0, token)
    for _ in range(60):
        trick = seat_view.hearts.trick
        if list(seat_view.to_act) == [0] and trick.cards and not trick.HasField("winner"):
            led = trick.cards[0].suit
            if any(c.suit == led for c in seat_view.hearts.hand):
                other = next((c for c in seat_view.hearts.hand if c.suit != led), None)
                if other is not None:
                    action = game_pb2.Action()
                    action.hearts.play_card.card.CopyFrom(other)
                    return game_id, token, action, seat_view
        seat_view = submit(stub, game_id, 0, token, first_legal(seat_view), seat_view.version)
    raise AssertionError("seat 0 never had to follow suit while holding another suit")


# -- refusals in two languages ----------------------------------------------------------------


def test_hearts_must_follow_suit_in_spanish_and_french(stub, redis_client):
    game_id, token, action, seat_view = hearts_follow_suit_refusal(stub)
    spanish, french = refused_in(
        stub, redis_client, game_id, 0, token, action, seat_view.version, ("es", FRENCH_SWISS)
    )
    assert spanish.reason == "MUST_FOLLOW_SUIT" and spanish.metadata["ruleId"] == "H-R4"
    assert (spanish.locale, french.locale) == ("es", "fr")
    led = spanish.metadata["led_suit"]
    assert spanish.message.startswith(f"Sigue el palo de salida: {SUIT_NAMES['es'][led]} (")
    assert spanish.message.endswith("Regla H-R4: jugar por turno y seguir el palo.")
    assert french.message.startswith(f"Fournissez la couleur demandée : {SUIT_NAMES['fr'][led]} (")
    assert french.message.endswith("Règle H-R4 : jouer à son tour et fournir la couleur.")


def test_klaberjass_refusal_in_german_and_dutch(stub, redis_client):
    created = create(stub, [HUMAN, HUMAN], seed=31, game_type="klaberjass")
    tokens = tokens_of(created)
    elder = created.view.to_act[0]
    seat_view = view(stub, created.game_id, elder, tokens[elder])
    turned = seat_view.klaberjass.turn_up.suit
    other = next(s for s in (1, 2, 3, 4) if s != turned)
    german, dutch = refused_in(
        stub,
        redis_client,
        created.game_id,
        elder,
        tokens[elder],
        klaberjass_trump(other),
        seat_view.version,
        ("de-AT, en;q=0.5", "nl"),
    )
    assert german.reason == "MUST_TAKE_TURNED_SUIT" and german.metadata["ruleId"] == "K-R5"
    assert (german.locale, dutch.locale) == ("de", "nl")
    suit = german.metadata["turned_suit"]
    assert german.message.startswith("In der ersten Reizrunde darf nur die aufgedeckte Farbe")
    assert f": {SUIT_NAMES['de'][suit]}. Regel K-R5: " in german.message
    assert dutch.message.startswith("In de eerste biedronde mag alleen de omgedraaide kleur")
    assert f": {SUIT_NAMES['nl'][suit]}. Regel K-R5: " in dutch.message


def test_guandan_refusals_in_french_and_spanish(stub, redis_client):
    created = create(stub, [HUMAN] * 4, seed=31, game_type="guandan")
    tokens = tokens_of(created)
    (leader,) = created.view.to_act
    leader_view = view(stub, created.game_id, leader, tokens[leader])
    french, spanish = refused_in(
        stub,
        redis_client,
        created.game_id,
        leader,
        tokens[leader],
        CODECS["guandan"].encode_action(PassTurn()),
        leader_view.version,
        ("fr", "es;q=0.8, en;q=0.1"),
    )
    assert french.reason == "LEADER_MUST_PLAY" and french.metadata["ruleId"] == "G-R17"
    assert french.message == (
        "Celui qui entame le pli doit jouer, pas passer. "
        "Règle G-R17 : l'entameur joue ; les autres peuvent passer."
    )
    assert spanish.message == (
        "Quien abre la baza debe jugar, no pasar. "
        "Regla G-R17: quien abre juega; los demás pueden pasar."
    )
    other = (leader + 1) % 4
    other_view = view(stub, created.game_id, other, tokens[other])
    french_turn, spanish_turn = refused_in(
        stub,
        redis_client,
        created.game_id,
        other,
        tokens[other],
        CODECS["guandan"].encode_action(PassTurn()),
        other_view.version,
        ("fr", "es"),
    )
    assert french_turn.reason == "NOT_YOUR_TURN" and french_turn.metadata["turn"] == str(leader)
    assert french_turn.message.startswith(f"Ce n'est pas votre tour : c'est à la place {leader} ")
    assert spanish_turn.message.startswith(f"No es tu turno: le toca al asiento {leader}.")


@pytest.mark.parametrize("language", [None, "", "ja, zh;q=0.8", "fr;q=0", "*"])
def test_a_missing_or_unknown_language_gives_english(stub, redis_client, language):
    game_id, token, action, seat_view = hearts_follow_suit_refusal(stub)
    (failure,) = refused_in(
        stub, redis_client, game_id, 0, token, action, seat_view.version, (language,)
    )
    assert failure.locale == "en"
    assert failure.message.startswith("Follow the suit led: ")
    assert failure.message.endswith("Rule H-R4: play in turn and follow suit.")


def test_errors_outside_the_rules_are_localized_too(stub):
    missing = localized_failure(
        lambda: stub.GetGameView(
            api.GetGameViewRequest(game_id="0" * 32), metadata=metadata_for(None, "nl")
        )
    )
    assert (missing.code, missing.reason, missing.locale) == (
        grpc.StatusCode.NOT_FOUND,
        "GAME_NOT_FOUND",
        "nl",
    )
    assert missing.message == "Dit spel bestaat niet of is verlopen."
    malformed = localized_failure(
        lambda: stub.GetGameView(
            api.GetGameViewRequest(game_id="nope"), metadata=metadata_for(None, "de")
        )
    )
    assert malformed.reason == "INVALID_FIELD"
    assert malformed.message == "Das Feld game_id der Anfrage fehlt oder ist unverständlich."
    created = create(stub, [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC], seed=3)
    no_token = localized_failure(
        lambda: stub.GetGameView(
            api.GetGameViewRequest(game_id=created.game_id, seat=0),
            metadata=metadata_for(None, "es"),
        )
    )
    assert no_token.reason == "TOKEN_MISSING" and no_token.locale == "es"
    assert no_token.message.startswith("Envía el token del asiento")


def test_a_stale_version_names_both_versions_in_french(stub):
    created = create(stub, [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC], seed=3)
    token = tokens_of(created)[0]
    seat_view = view(stub, created.game_id, 0, token)
    stale = localized_failure(
        lambda: submit_in(
            stub,
            created.game_id,
            0,
            token,
            first_legal(seat_view),
            seat_view.version + 5,
            "fr",
        )
    )
    assert stale.code is grpc.StatusCode.ABORTED and stale.reason == "VERSION_MISMATCH"
    assert stale.message == (
        f"La partie a avancé : vous avez agi sur la version {seat_view.version + 5} et elle en "
        f"est à la version {seat_view.version}. Rechargez-la et décidez à nouveau."
    )


# -- finished games ----------------------------------------------------------------------------


def outcome_of(message: Any) -> Outcome:
    """The outcome as the API sends it, structured fields (Guandan's deal and order) included."""
    return Outcome(
        tuple(message.winners),
        tuple(message.scores),
        message.summary,
        deal=message.deal,
        finishing_order=tuple(message.finishing_order),
    )


@pytest.mark.parametrize(
    ("game_type", "seats", "options"),
    [
        ("hearts", [RANDOM] * 4, {"target": 30}),
        ("klaberjass", [RANDOM] * 2, {"target": 100}),
        ("guandan", [HEURISTIC] * 4, {}),
    ],
)
def test_a_finished_games_summary_in_french(stub, game_type, seats, options):
    """All-bot games are played to the end by the timer loop; the summary follows the language."""
    request = api.CreateGameRequest(game_type=game_type, seats=seats, seed=11)
    if options:
        chosen = getattr(request.options, game_type)
        for name, value in options.items():
            setattr(chosen, name, value)
    created = stub.CreateGame(request, metadata=metadata_for(None, "fr"))
    finished(stub, created.game_id)
    french = stub.GetGameView(
        api.GetGameViewRequest(game_id=created.game_id), metadata=metadata_for(None, "fr")
    ).view
    assert french.status == game_pb2.GAME_STATUS_FINISHED
    english = view(stub, french.game_id)  # no accept-language: the rules' own sentence
    assert english.outcome.winners == french.outcome.winners
    assert english.outcome.scores == french.outcome.scores
    outcome = outcome_of(english.outcome)
    assert compose(game_type, outcome, "en") == english.outcome.summary
    assert french.outcome.summary == outcome_summary(outcome, "fr", game_type)
    assert french.outcome.summary != english.outcome.summary
    assert french.outcome.summary.startswith(("La place", "Les places"))
    again = stub.GetGameView(
        api.GetGameViewRequest(game_id=french.game_id), metadata=metadata_for(None, FRENCH_SWISS)
    ).view
    assert again.outcome.summary == french.outcome.summary


def test_the_watch_of_a_finished_game_ends_with_a_french_summary(stub):
    created = stub.CreateGame(api.CreateGameRequest(game_type="hearts", seats=[RANDOM] * 4, seed=5))
    english = outcome_of(finished(stub, created.game_id).outcome)
    stream = stub.WatchGame(
        api.WatchGameRequest(game_id=created.game_id, from_version=0),
        metadata=metadata_for(None, "fr"),
        timeout=30,
    )
    summaries = []
    for message in stream:
        if message.HasField("update") and message.update.view.HasField("outcome"):
            summaries.append(message.update.view.outcome.summary)
        if message.HasField("ended"):
            summaries.append(message.ended.outcome.summary)
            break
    stream.cancel()
    expected = outcome_summary(english, "fr", "hearts")
    assert summaries and set(summaries) == {expected}


# -- the Python client -------------------------------------------------------------------------


def test_the_client_sends_its_language_and_reads_the_localized_message(stub, engine_address):
    game_id, token, action, seat_view = hearts_follow_suit_refusal(stub)
    messages = {}
    for language in ("fr", "nl", None):
        with (
            EngineClient(engine_address, language=language) as client,
            pytest.raises(IllegalAction) as caught,
        ):
            client.submit(game_id, 0, token, action, seat_view.version)
        error = caught.value
        assert (error.reason, error.rule_id) == ("MUST_FOLLOW_SUIT", "H-R4")
        messages[error.locale] = error.localized_message
    assert set(messages) == {"fr", "nl", "en"}
    assert messages["fr"].startswith("Fournissez la couleur demandée : ")
    assert messages["nl"].startswith("Volg de gevraagde kleur: ")
    assert messages["en"].startswith("Follow the suit led: ")
