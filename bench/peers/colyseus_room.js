// The Hearts of hearts.js as a Colyseus room: @colyseus/schema state, each seat's hand a
// field tagged .view() that only that seat's StateView holds, and one patch broadcast per
// move (patchRate null: no patch timer, broadcastPatch after each accepted card).
import { Room } from "@colyseus/core";
import { ArraySchema, StateView, schema, t } from "@colyseus/schema";

import { newGame, play } from "./hearts.js";

export const Seat = schema(
  {
    hand: t.array("uint8").view(),
    count: t.uint8(),
    taken: t.uint8(),
    score: t.uint16(),
  },
  "Seat",
);
export const Played = schema({ seat: t.uint8(), card: t.uint8() }, "Played");
export const Table = schema(
  {
    seats: t.array(Seat),
    trick: t.array(Played),
    toMove: t.int8(),
    deal: t.uint16(),
    moves: t.uint32(),
    over: t.boolean(),
  },
  "Table",
);

export class HeartsRoom extends Room {
  maxClients = 4;
  patchRate = null;

  onCreate(options) {
    this.game = newGame(options.seed ?? 1);
    const table = new Table();
    table.seats = new ArraySchema(...[0, 1, 2, 3].map(() => new Seat()));
    table.trick = new ArraySchema();
    this.setState(table);
    this.mirrorDeal();
    this.onMessage("play", (client, card) => {
      const refused = play(this.game, client.userData.seat, card);
      if (refused) {
        client.send("refused", refused);
        return;
      }
      this.mirrorMove(client.userData.seat, card);
      this.broadcastPatch();
    });
  }

  onJoin(client, options) {
    client.userData = { seat: options.seat };
    client.view = new StateView();
    client.view.add(this.state.seats[options.seat]);
  }

  /** The schema state from the rules' state after a new deal. */
  mirrorDeal() {
    const game = this.game;
    this.state.seats.forEach((seat, s) => {
      seat.hand.clear();
      seat.hand.push(...game.hands[s]);
      seat.count = game.hands[s].length;
      seat.taken = game.taken[s];
      seat.score = game.scores[s];
    });
    this.state.trick.clear();
    this.mirrorPublic();
  }

  mirrorPublic() {
    this.state.toMove = this.game.toMove;
    this.state.deal = this.game.deal;
    this.state.moves = this.game.moves;
    this.state.over = this.game.over;
  }

  /** The schema state after ``seat`` played ``card``: only what that card changed. */
  mirrorMove(seat, card, dealBefore = this.state.deal) {
    const game = this.game;
    if (game.deal !== dealBefore) {
      this.mirrorDeal();
      return;
    }
    const mine = this.state.seats[seat];
    mine.hand.splice(mine.hand.indexOf(card), 1);
    mine.count = game.hands[seat].length;
    if (game.trick.length) {
      this.state.trick.push(new Played({ seat, card }));
    } else {
      this.state.trick.clear();
      this.state.seats.forEach((s, index) => {
        s.taken = game.taken[index];
        s.score = game.scores[index];
      });
    }
    this.mirrorPublic();
  }
}
