// A minimal Hearts for the peers benchmark: the same rules under boardgame.io and Colyseus.
//
// Four seats, 13 cards each from a seeded shuffle, no passing. The holder of the two of clubs
// leads it to a deal's first trick; every seat must follow the suit led when it can; the
// highest card of the suit led wins the trick and its winner leads the next. A heart is worth
// 1 point and the queen of spades 13 (no shooting the moon, no "hearts broken" rule, no
// first-trick ban). After 13 tricks the points are added to the running totals and the next
// deal is dealt from the same seed; the game ends once a total reaches 100.
//
// A card is a number 0..51: suit * 13 + rank, suits clubs 0, diamonds 1, spades 2, hearts 3,
// rank 0 the two up to 12 the ace. "Lowest" is the smallest number, which is the engine's order
// too (suit clubs < diamonds < spades < hearts, then rank).

export const TWO_OF_CLUBS = 0;
export const QUEEN_OF_SPADES = 2 * 13 + 10;
export const TARGET = 100;

const suitOf = (card) => Math.floor(card / 13);

// mulberry32: a small seeded generator, so every host deals the very same cards.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function deal(seed, dealNumber) {
  const next = generator(Math.imul(seed, 7919) + dealNumber);
  const deck = Array.from({ length: 52 }, (_, card) => card);
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return [0, 1, 2, 3].map((seat) => deck.slice(seat * 13, seat * 13 + 13).sort((x, y) => x - y));
}

function startDeal(state) {
  state.hands = deal(state.seed, state.deal);
  state.trick = [];
  state.taken = [0, 0, 0, 0];
  state.toMove = state.hands.findIndex((hand) => hand.includes(TWO_OF_CLUBS));
}

/** A new game: plain data (boardgame.io keeps it as G; the Colyseus room mirrors it). */
export function newGame(seed) {
  const state = { seed, deal: 0, moves: 0, scores: [0, 0, 0, 0], over: false };
  startDeal(state);
  return state;
}

/** The cards ``seat`` may play now, from what that seat sees (its own hand and the trick). */
export function legalCards(hand, trick, counts, seat, toMove) {
  if (seat !== toMove) return [];
  if (trick.length === 0) {
    const firstLead = counts.every((count) => count === 13);
    return firstLead ? hand.filter((card) => card === TWO_OF_CLUBS) : hand.slice();
  }
  const led = suitOf(trick[0].card);
  const following = hand.filter((card) => suitOf(card) === led);
  return following.length ? following : hand.slice();
}

/**
 * Plays ``card`` for ``seat`` in place; returns null, or why the move is refused (the state is
 * then unchanged).
 */
export function play(state, seat, card) {
  if (state.over) return "GAME_OVER";
  if (seat !== state.toMove) return "NOT_YOUR_TURN";
  const hand = state.hands[seat];
  if (!hand.includes(card)) return "CARD_NOT_IN_HAND";
  const counts = state.hands.map((h) => h.length);
  if (!legalCards(hand, state.trick, counts, seat, state.toMove).includes(card)) {
    return state.trick.length ? "MUST_FOLLOW_SUIT" : "MUST_LEAD_TWO_OF_CLUBS";
  }
  hand.splice(hand.indexOf(card), 1);
  state.trick.push({ seat, card });
  state.moves += 1;
  if (state.trick.length < 4) {
    state.toMove = (seat + 1) % 4;
    return null;
  }
  const led = suitOf(state.trick[0].card);
  let winner = state.trick[0];
  let points = 0;
  for (const played of state.trick) {
    if (suitOf(played.card) === led && played.card > winner.card) winner = played;
    if (suitOf(played.card) === 3) points += 1;
    if (played.card === QUEEN_OF_SPADES) points += 13;
  }
  state.taken[winner.seat] += points;
  state.trick = [];
  state.toMove = winner.seat;
  if (state.hands[0].length === 0) {
    state.scores = state.scores.map((score, s) => score + state.taken[s]);
    if (Math.max(...state.scores) >= TARGET) {
      state.over = true;
    } else {
      state.deal += 1;
      startDeal(state);
    }
  }
  return null;
}

/** What ``seat`` sees: its own hand, every hand's size, the trick, scores and whose turn. */
export function view(state, seat) {
  return {
    seat,
    hand: state.hands[seat].slice(),
    counts: state.hands.map((hand) => hand.length),
    trick: state.trick.map((played) => ({ seat: played.seat, card: played.card })),
    toMove: state.toMove,
    taken: state.taken.slice(),
    scores: state.scores.slice(),
    deal: state.deal,
    moves: state.moves,
    over: state.over,
  };
}

/** The load generators' choice: the lowest legal card of the seat's view (null: not its turn). */
export function lowestLegal(seen) {
  const legal = legalCards(seen.hand, seen.trick, seen.counts, seen.seat, seen.toMove);
  return legal.length ? Math.min(...legal) : null;
}
