"""End-to-end behaviour through a real gRPC server and a real redis-server."""

from __future__ import annotations

import grpc
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2, hearts_pb2
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    RANDOM,
    create,
    finished,
    first_legal,
    submit,
    tokens_of,
    view,
)


def test_list_game_types_shows_hearts_options_with_defaults(stub):
    reply = stub.ListGameTypes(api.ListGameTypesRequest())
    hearts = next(t for t in reply.game_types if t.name == "hearts")
    assert hearts.seats == 4
    options = {o.name: o for o in hearts.options}
    assert options["target"].default_value == "100"
    assert options["target"].rule_id == "H-R12"
    assert options["variant"].default_value == "special"
    assert set(options["variant"].choices) == {"classic", "special"}
    assert options["moon_opponent_penalty"].default_value == "13"


def test_list_game_types_says_which_seats_are_partners(stub):
    # G-R1: Guandan's partners sit opposite; Hearts and Klaberjass seats play for themselves.
    reply = stub.ListGameTypes(api.ListGameTypesRequest())
    teams = {t.name: [list(team.seats) for team in t.teams] for t in reply.game_types}
    assert teams == {
        "hearts": [[0], [1], [2], [3]],
        "guandan": [[0, 2], [1, 3]],
        "klaberjass": [[0], [1]],
    }


def test_create_returns_tokens_for_human_seats_only(stub):
    created = create(stub, [HUMAN, RANDOM, HUMAN, HEURISTIC], seed=5)
    assert sorted(tokens_of(created)) == [0, 2]
    assert all(len(t) >= 32 for t in tokens_of(created).values())
    spectator = created.view
    assert not spectator.HasField("viewer_seat")
    assert list(spectator.hearts.hand) == []
    assert spectator.hearts.phase == hearts_pb2.HeartsView.PHASE_PASSING
    # the bots have already chosen their passes; the humans are still to act
    assert list(spectator.to_act) == [0, 2]
    assert list(spectator.hearts.pass_submitted) == [False, True, False, True]


def test_seat_view_shows_own_hand_and_legal_passes(stub):
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=9)
    seat_view = view(stub, created.game_id, 0, tokens_of(created)[0])
    assert seat_view.viewer_seat == 0
    assert len(seat_view.hearts.hand) == 13
    # H-R2: any 3 of the 13 cards, given as one choice rather than 286 listed actions
    assert not seat_view.legal_actions
    (choice,) = seat_view.legal_choices
    assert list(choice.cards) == list(seat_view.hearts.hand) and choice.count == 3
    assert choice.action.hearts.HasField("pass_cards") and not choice.action.hearts.pass_cards.cards
    assert seat_view.ByteSize() < 1024
    assert seat_view.hearts.options.target == 100


def test_options_are_applied(stub):
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], target=50, variant=1)
    assert created.view.hearts.options.target == 50
    assert created.view.hearts.options.variant == hearts_pb2.HEARTS_VARIANT_CLASSIC


def test_all_bot_game_is_played_to_the_end_by_the_timer_loop(stub):
    created = create(stub, [RANDOM, HEURISTIC, RANDOM, HEURISTIC], seed=3, target=30)
    final = finished(stub, created.game_id)
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    assert len(final.outcome.winners) >= 1
    assert max(final.outcome.scores) >= 30
    assert final.version > 100


def test_one_human_plays_a_whole_game_against_bots(stub):
    created = create(stub, [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC], seed=11, target=40)
    token = tokens_of(created)[0]
    current = view(stub, created.game_id, 0, token)
    moves = 0
    while current.status == game_pb2.GAME_STATUS_IN_PROGRESS:
        assert list(current.to_act) == [0]
        current = submit(stub, created.game_id, 0, token, first_legal(current), current.version)
        moves += 1
    assert moves > 13
    assert current.outcome.summary
    totals = list(current.hearts.totals)
    assert sum(sum(h.scores) for h in current.hearts.hand_scores) == sum(totals)


def test_health_and_reflection_are_served(channel):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "cardengine.v1.EngineService"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    for version in ("v1alpha", "v1"):
        ask = channel.stream_stream(
            f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        requests = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(
                file_containing_symbol="cardengine.v1.ErrorReason"
            ),
        ]
        listed, described = list(ask(iter(requests)))
        names = {s.name for s in listed.list_services_response.service}
        assert {"cardengine.v1.EngineService", "grpc.reflection.v1.ServerReflection"} <= names
        files = [
            descriptor_pb2.FileDescriptorProto.FromString(data)
            for data in described.file_descriptor_response.file_descriptor_proto
        ]
        (errors,) = [f for f in files if f.name == "cardengine/v1/errors.proto"]
        comments = " ".join(
            location.leading_comments for location in errors.source_code_info.location
        )
        assert "PERMISSION_DENIED" in comments, "the served file lost its comments"


def test_reflection_finds_files_by_name_and_reports_unknown_symbols(channel):
    ask = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    requests = [
        reflection_pb2.ServerReflectionRequest(file_by_filename="cardengine/v1/game.proto"),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="cardengine.v1.Nothing"),
        reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="cardengine.v1.EngineService.SubmitAction"
        ),
        reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="cardengine.v1.EngineService.NoSuchMethod"
        ),
    ]
    by_name, unknown, method, no_method = list(ask(iter(requests)))
    # A method resolves as grpcurl's describe asks for it: to its service's file.
    (service_file, *_) = method.file_descriptor_response.file_descriptor_proto
    declared = descriptor_pb2.FileDescriptorProto.FromString(service_file)
    assert declared.name == "cardengine/v1/engine_service.proto"
    assert "SubmitAction" in {m.name for m in declared.service[0].method}
    assert no_method.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
    names = {
        descriptor_pb2.FileDescriptorProto.FromString(data).name
        for data in by_name.file_descriptor_response.file_descriptor_proto
    }
    assert {"cardengine/v1/game.proto", "cardengine/v1/hearts.proto"} <= names
    assert unknown.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
