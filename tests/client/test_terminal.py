"""The terminal game against a real service (the ``engine_address`` fixture: gRPC + Redis).

The game follows the WatchGame stream, so besides playing to the end these check that every
event of the game is told once, in order, and that the Hearts pass is typed as three cards
against the view's card choice.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from cardengine.v1 import engine_service_pb2, game_pb2, hearts_pb2
from cardengine_client import EngineClient, choose_cards, parse_card, terminal
from cardengine_client.terminal import PlayerQuit, generic_event_text, play

pytestmark = pytest.mark.service

MAX_MOVES = 5000  # far more than any game needs: a runaway loop fails instead of hanging
SEED = 11


def scripted(*answers: str, then: str | None = "1"):
    """An input_fn giving ``answers`` in turn, then ``then`` forever (or EOF if it is None)."""
    queue = list(answers)
    prompts = []

    def input_fn(prompt: str) -> str:
        prompts.append(prompt)
        assert len(prompts) <= MAX_MOVES, "the game did not end"
        if queue:
            return queue.pop(0)
        if then is None:
            raise EOFError
        return then

    input_fn.prompts = prompts
    return input_fn


@pytest.fixture
def client(engine_address):
    with EngineClient(engine_address) as engine:
        yield engine


def test_always_the_first_legal_action_plays_a_game_to_its_end(client):
    output = io.StringIO()
    input_fn = scripted()
    final = play(client, input_fn=input_fn, output=output, seed=SEED)
    text = output.getvalue()
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    assert final.hearts.phase == final.hearts.PHASE_GAME_OVER
    assert list(final.outcome.winners)
    assert max(final.outcome.scores) >= 100  # H-R12: the game ends once a total reaches 100
    assert "Hand 1, passing, passing left (to seat 1)" in text
    assert "Your hand: clubs" in text
    assert "Game over." in text
    assert "Final scores: you " in text
    assert "Refused" not in text
    assert len(input_fn.prompts) >= 13


def test_the_same_seed_gives_the_same_game(client):
    finals = [play(client, input_fn=scripted(), output=io.StringIO(), seed=SEED) for _ in range(2)]
    assert finals[0].outcome == finals[1].outcome


def test_a_refused_move_shows_rule_h_r2_and_asks_again(client):
    output = io.StringIO()
    with pytest.raises(EOFError):
        play(client, input_fn=scripted("2C", "zz", "1", then=None), output=output, seed=SEED)
    text = output.getvalue()
    assert "Refused:" in text
    assert "[rule H-R2, WRONG_PASS_SIZE]" in text
    assert "not a card: 'zz'" in text
    assert "Hand 1, playing" in text  # "1" passed, and play went on


def first_move(view: game_pb2.GameView) -> game_pb2.Action:
    """The first legal action, or the first cards of the first choice (a Hearts pass)."""
    if view.legal_actions:
        return view.legal_actions[0]
    (choice,) = view.legal_choices
    return choose_cards(choice, choice.cards[: choice.count])


class RacingClient(EngineClient):
    """Remembers the created game, so a test can move it on behind the player's back."""

    def create_game(self, *args, **kwargs):
        self.created = super().create_game(*args, **kwargs)
        return self.created


def test_aborted_reloads_the_view_and_asks_again(engine_address):
    output = io.StringIO()
    with RacingClient(engine_address) as racing:

        def input_fn(prompt: str) -> str:
            if not hasattr(input_fn, "raced"):
                # Another client of the same seat acts first: the player's view goes stale.
                (seat_token,) = racing.created.seat_tokens
                game_id, token = racing.created.game_id, seat_token.token
                view = racing.view(game_id, seat_token.seat, token)
                racing.submit(game_id, 0, token, first_move(view), view.version)
                input_fn.raced = True
                return "1"
            raise EOFError

        with pytest.raises(EOFError):
            play(racing, input_fn=input_fn, output=output, seed=SEED)
    text = output.getvalue()
    assert "The game moved on before your move arrived" in text
    assert text.count("Hand 1, playing") == 1  # the reloaded view is shown


def run_module(module: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        input="1\n" * MAX_MOVES,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )


def test_every_event_of_the_stream_is_told_once_in_order(engine_address, monkeypatch):
    told = []

    def recording(view, event, language=None):
        told.append((view.version, event.SerializeToString()))
        return f"EVENT {len(told)}"

    monkeypatch.setattr(terminal, "describe_event", recording)
    output = io.StringIO()
    with RacingClient(engine_address) as racing:
        final = play(racing, input_fn=scripted(), output=output, seed=SEED)
        token = racing.created.seat_tokens[0].token
        # The game is over: watching it again from where the player joined (after the bots'
        # passes inside CreateGame) replays every update since.
        joined = racing.created.view.version
        expected = []
        watch = racing.watch(final.game_id, 0, token, from_version=joined)
        for item in watch:
            if isinstance(item, engine_service_pb2.GameUpdate):
                expected += [(item.version, e.SerializeToString()) for e in item.events]
    assert told
    assert "EVENT 1\n" in output.getvalue()
    assert told == expected


def test_the_pass_is_typed_as_three_cards_of_the_choice(client):
    output = io.StringIO()
    with pytest.raises(EOFError):
        play(client, input_fn=scripted("QH 6H 4H", then=None), output=output, seed=SEED)
    text = output.getvalue()
    assert "choose 3 of" in text
    assert "You passed:   4H 6H QH" in text
    assert "Refused" not in text


def test_help_and_quit(client):
    output = io.StringIO()
    with pytest.raises(PlayerQuit):
        play(client, input_fn=scripted("help", "quit", then=None), output=output, seed=SEED)
    assert "Commands:" in output.getvalue()
    assert "quit" in output.getvalue()


def test_hint_prints_the_suggestion_and_each_candidates_value_and_playouts(client):
    output = io.StringIO()
    with pytest.raises(PlayerQuit):
        play(client, input_fn=scripted("hint 40", "quit", then=None), output=output, seed=SEED)
    text = output.getvalue()
    (hint,) = [line for line in text.splitlines() if line.startswith("  Hint: pass ")]
    assert "(40 playouts; values in points fewer than the others' average this hand" in hint
    rated = [line for line in text.splitlines() if line.endswith(" over 2 playouts")]
    assert len(rated) == 20  # every 3 of the 6 most dangerous cards, 40 playouts over 20
    assert sum(line.startswith("   * pass ") for line in rated) == 1  # the suggestion, marked
    values = [float(line.split(": ")[1].split()[0]) for line in rated]
    assert values == sorted(values, reverse=True)


def hearts_event(**kind) -> game_pb2.GameEvent:
    return game_pb2.GameEvent(hearts=hearts_pb2.HeartsEvent(**kind))


def test_generic_event_text_names_cards_and_seats():
    view = game_pb2.GameView(viewer_seat=0, seats=[game_pb2.PLAYER_TYPE_HUMAN] * 4)
    played = hearts_pb2.HeartsCardPlayed(seat=2, card=parse_card("QS"))
    text = generic_event_text(view, hearts_event(card_played=played))
    assert text == "card played: seat 2, card QS"
    mine = hearts_pb2.HeartsCardPlayed(seat=0, card=parse_card("2C"))
    assert generic_event_text(view, hearts_event(card_played=mine)).startswith("card played: you")
    assert generic_event_text(view, game_pb2.GameEvent()).startswith("(an event of a game")


def test_the_terminal_command_plays_against_a_target(engine_address):
    done = run_module("cardengine_client.terminal", ["--target", engine_address, "--seed", "5"], {})
    assert done.returncode == 0, done.stderr
    assert "Game over." in done.stdout


def test_language_words_the_events_refusals_and_result(engine_address):
    """``--language de``: the events from the shared catalogue, the service's texts in German."""
    done = run_module(
        "cardengine_client.terminal",
        ["--target", engine_address, "--seed", "5", "--language", "de"],
        {},
    )
    assert done.returncode == 0, done.stderr
    assert "Platz 0 (du) spielte " in done.stdout
    assert "Spiel vorbei, gewonnen von " in done.stdout


def test_make_play_uses_engine_address_when_set(engine_address):
    done = run_module(
        "engine_service.devtools.play", ["--seed", "5"], {"ENGINE_ADDRESS": engine_address}
    )
    assert done.returncode == 0, done.stderr
    assert "Game over." in done.stdout


def test_an_unknown_game_type_is_reported(engine_address):
    done = run_module(
        "cardengine_client.terminal", ["--target", engine_address, "--game", "go"], {}
    )
    assert done.returncode == 1
    assert "does not host 'go'" in done.stderr
