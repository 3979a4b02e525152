// The browser table: create or join a game, watch it version by version, play legal moves.
// A seat follows its game and makes its moves on a Play session, a WebSocket of the web port
// (./session.ts); every other call goes over the Connect protocol (binary). Both reach the
// engine's own servicer (engine_service/web/gateway.py).
import { create, equals, fromJson, toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { durationFromMs, durationMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { type Card, CardSchema } from "./gen/cardengine/v1/cards_pb.js";
import { EngineService, type GameType, OptionKind } from "./gen/cardengine/v1/engine_service_pb.js";
import {
  type Action,
  ActionSchema,
  type CardChoice,
  ClockPolicySchema,
  ExpiryAction,
  type GameEvent,
  GameEventSchema,
  GameOptionsSchema,
  GameStatus,
  type GameView,
  PlayerType,
} from "./gen/cardengine/v1/game_pb.js";
import { ErrorInfoSchema, LocalizedMessageSchema } from "./gen/google/rpc/error_details_pb.js";
import { type Catalogue, eventText } from "../../clients/node/lib/events.js";
import catalogue from "../../clients/text/events.json";
import { PlaySession, sessionUrl } from "./session.js";
import { type Key, LANGUAGE_NAMES, LANGUAGES, type Language, language, setLanguage, startingLanguage, t } from "./i18n.js";

const client = createClient(
  EngineService,
  createConnectTransport({
    baseUrl: window.location.origin,
    useBinaryFormat: true,
    // Refusals' explanations and results come back in the page's language.
    interceptors: [(next) => async (request) => {
      request.header.set("accept-language", language());
      return next(request);
    }],
  }),
);
const SEATS: Record<string, number> = { hearts: 4, guandan: 4, klaberjass: 2 };
const RANKS: Record<string, string> = {
  RANK_TWO: "2", RANK_THREE: "3", RANK_FOUR: "4", RANK_FIVE: "5", RANK_SIX: "6",
  RANK_SEVEN: "7", RANK_EIGHT: "8", RANK_NINE: "9", RANK_TEN: "T", RANK_JACK: "J",
  RANK_QUEEN: "Q", RANK_KING: "K", RANK_ACE: "A", RANK_BLACK_JOKER: "BJ", RANK_RED_JOKER: "RJ",
};
const SUITS: Record<string, [string, string]> = {
  SUIT_CLUBS: ["C", "\u2663"], SUIT_DIAMONDS: ["D", "\u2666"],
  SUIT_SPADES: ["S", "\u2660"], SUIT_HEARTS: ["H", "\u2665"],
};

// A seat at a game; a spectator (watching, or replaying a finished game) has seat -1 and no token.
interface Seat { gameId: string; seat: number; token: string }
const SPECTATOR = -1;
const seated = (): boolean => seat !== null && seat.seat !== SPECTATOR;
const seatOf = (s: Seat): number | undefined => (s.seat === SPECTATOR ? undefined : s.seat);

let seat: Seat | null = null;
let view: GameView | null = null;
let busy = false;
let watchGeneration = 0;
// The Play session the table follows its game on, while one is open; moves go on it too.
let session: PlaySession | null = null;
const chosen = new Set<number>();
// The search bot's suggestion for the seat (SuggestAction), while the game is at its version.
let hinted: { version: bigint; action: Action } | null = null;

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

function el(tag: string, attrs: Record<string, string> = {}, text = ""): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text) node.textContent = text;
  return node;
}

// ---- cards and actions in words -------------------------------------------------------------

function cardJson(value: JsonValue): [string, string, boolean] | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const rank = value["rank"];
  if (typeof rank !== "string" || !(rank in RANKS)) return null;
  const suit = typeof value["suit"] === "string" ? SUITS[value["suit"]] : undefined;
  const code = RANKS[rank] + (suit ? suit[0] : "");
  const shown = RANKS[rank] + (suit ? suit[1] : "");
  return [code, shown, value["suit"] === "SUIT_HEARTS" || value["suit"] === "SUIT_DIAMONDS"
    || rank === "RANK_RED_JOKER"];
}

function cardCode(card: Card): string {
  return cardJson(toJson(CardSchema, card))?.[0] ?? "?";
}

function cardNode(card: Card, tag = "span"): HTMLElement {
  const [code, shown, red] = cardJson(toJson(CardSchema, card)) ?? ["?", "?", false];
  const node = el(tag, { class: red ? "card red" : "card", "data-card": code }, shown);
  if (isWild(card)) {  // G-R5: marked wherever it is, in the hand and in the plays
    node.classList.add("wild");
    node.setAttribute("title", t("wild"));
    node.setAttribute("aria-label", `${shown}, ${t("wild")}`);
  }
  return node;
}

// G-R5: in Guandan the two hearts of the level rank are wild.
const HEARTS_SUIT = 4;
function isWild(card: Card): boolean {
  return view?.game.case === "guandan" && card.suit === HEARTS_SUIT && card.rank === view.game.value.level;
}

const words = (name: string): string => name.replace(/([A-Z])/g, " $1").toLowerCase();

function describe(value: JsonValue, name = ""): string {
  const card = cardJson(value);
  if (card) return card[1];
  if (Array.isArray(value)) return value.map((item) => describe(item)).join(" ");
  if (value !== null && typeof value === "object") {
    return Object.entries(value)
      .map(([key, inner]) => {
        if (inner === true) return words(key);
        if (inner === false) return "";
        const text = describe(inner, key);
        if (key === "card" || key === "cards") return text;
        const cardish = cardJson(inner) !== null || Array.isArray(inner);
        return cardish || (typeof inner === "object" && inner !== null)
          ? `${words(key)} ${text}`.trim() : `${words(key)} ${text}`;
      })
      .filter((part) => part.length > 0)
      .join(", ");
  }
  if (typeof value === "string") {
    const suit = SUITS[value];
    return suit ? suit[1] : value.replace(/^[A-Z]+(_[A-Z]+)*?_(?=[A-Z]+$)/, "").toLowerCase();
  }
  return String(value) + (name ? "" : "");
}

function describeAction(action: Action): string {
  const json = toJson(ActionSchema, action) as JsonObject;
  const inner = Object.values(json)[0];
  return describe(inner ?? json) || "(move)";
}

// Events are worded from the catalogue the Python and Node clients use too
// (clients/text/events.json, filled in by the Node client's lib/events.js), in the page's
// language; an event newer than the catalogue is spelled out from its fields.
function describeEvent(event: GameEvent): string {
  const json = toJson(GameEventSchema, event, { useProtoFieldName: true, alwaysEmitImplicit: true });
  const worded = eventText(catalogue as Catalogue, json as object, {
    viewer: seat === null ? undefined : seatOf(seat),
    seats: view?.seats.length ?? 4,
    language: language(),
    cardText: (card) => cardJson(card as JsonValue)?.[1] ?? "?",
  });
  if (worded !== null) return worded;
  const inner = Object.values(toJson(GameEventSchema, event) as JsonObject)[0];
  return inner === undefined ? "?" : describe(inner);
}

function singleCard(action: Action): string | null {
  const found = actionCards(action);
  return found.length === 1 ? found[0] : null;
}

function fillChoice(choice: CardChoice, cards: Card[]): Action {
  const json = toJson(ActionSchema, choice.action ?? create(ActionSchema)) as JsonObject;
  const picked = cards.map((card) => toJson(CardSchema, card));
  let filled = false;
  const walk = (value: JsonObject): void => {
    for (const [key, inner] of Object.entries(value)) {
      if (filled) return;
      if (key === "cards" || (Array.isArray(inner) && inner.every((x) => cardJson(x)))) {
        value[key] = picked; filled = true; return;
      }
      if (inner !== null && typeof inner === "object" && !Array.isArray(inner)) walk(inner);
    }
  };
  walk(json);
  if (!filled) {  // an empty list is left out of JSON: the action's message is the holder
    const holder = Object.values(Object.values(json)[0] as JsonObject)[0] as JsonObject;
    holder["cards"] = picked;
  }
  return fromJson(ActionSchema, json);
}

// ---- calls -----------------------------------------------------------------------------------

const headers = (): Record<string, string> => (seat?.token ? { "x-seat-token": seat.token } : {});

function showError(error: unknown): void {
  const box = $("error");
  box.replaceChildren();
  if (error instanceof ConnectError) {
    const info = error.findDetails(ErrorInfoSchema)[0];
    const localized = error.findDetails(LocalizedMessageSchema)[0];
    box.dataset.code = Code[error.code];
    box.dataset.reason = info?.reason ?? "";
    box.dataset.ruleId = info?.metadata["ruleId"] ?? "";
    // Said once: the explanation (in the page's language), then the reason and rule it cites.
    box.append(el("strong", { class: "explanation" }, localized?.message ?? error.rawMessage));
    const rule = info?.metadata["ruleId"];
    box.append(el("p", { class: "reason" },
      `${info?.reason ?? Code[error.code]}${rule ? ` \u00b7 rule ${rule}` : ""}`));
  } else {
    box.dataset.reason = "CLIENT";
    box.append(el("p", { class: "explanation" }, String(error)));
  }
  box.hidden = false;
}

function clearError(): void { $("error").hidden = true; $("error").dataset.reason = ""; }

async function submit(action: Action): Promise<void> {
  if (!seat || !view || busy) return;
  busy = true;
  clearError(); // a new attempt: the last refusal no longer applies
  render();
  try {
    const move = {
      gameId: seat.gameId, seat: seat.seat, expectedVersion: view.version,
      requestId: crypto.randomUUID(), action,
    };
    const reply = session ? await session.move(seat.token, move)
      : await client.submitAction(move, { headers: headers() });
    clearError();
    chosen.clear();
    if (reply.view) accept(reply.view);
  } catch (error) {
    showError(error);
  } finally {
    busy = false;
    render();
  }
}

// What a good player would do here: the search bot's choice for this seat (SuggestAction, the
// seat's token; it reads only what the seat may see). Its cards are raised in the hand, or its
// button marked; it lasts until the game moves on.
async function hint(): Promise<void> {
  if (!seat || !view || busy) return;
  busy = true;
  render();
  try {
    const reply = await client.suggestAction({ gameId: seat.gameId, seat: seat.seat },
      { headers: headers() });
    if (reply.action) hinted = { version: reply.version, action: reply.action };
  } catch (error) {
    showError(error);
  } finally {
    busy = false;
    render();
  }
}

// The cards of an action (a card played, a pass, a Guandan play), as codes, copies repeated.
function actionCards(action: Action): string[] {
  const found: string[] = [];
  const walk = (value: JsonValue): void => {
    const card = cardJson(value);
    if (card) { found.push(card[0]); return; }
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(toJson(ActionSchema, action));
  return found;
}

// The suggestion for the view on the table, if there is one.
function currentHint(): Action | null {
  return hinted && view && hinted.version === view.version ? hinted.action : null;
}

function accept(next: GameView): void {
  if (view && next.version <= view.version && view.status === next.status) return;
  if (!view || next.version !== view.version) chosen.clear();
  view = next;
  render();
}

async function leaveTable(): Promise<void> {
  // The seat goes to a bot (T-R2); the page keeps showing the game as the seat's view.
  if (!seat || busy) return;
  busy = true;
  render();
  try {
    const reply = await client.leaveGame({ gameId: seat.gameId, seat: seat.seat },
      { headers: headers() });
    clearError();
    if (reply.view) accept(reply.view);
  } catch (error) {
    showError(error);
  } finally {
    busy = false;
    render();
  }
}

async function watch(generation: number): Promise<void> {
  // Follows the game from the version shown; re-opens after a drop (bounded back-off).
  let failures = 0;
  while (seat && generation === watchGeneration) {
    const opened = new PlaySession(sessionUrl(language()));
    session = opened;
    try {
      const stream = opened.join(
        seat.token, { gameId: seat.gameId, seat: seatOf(seat), fromVersion: view?.version ?? 0n },
      );
      for await (const reply of stream) {
        if (generation !== watchGeneration) break;
        failures = 0;
        if (reply.message.case === "update") {
          const update = reply.message.value;
          const log = $("events");
          for (const event of update.events) {
            const item = el("li", { "data-version": String(update.version) },
              `v${update.version}: ${describeEvent(event)}`);
            log.prepend(item);
          }
          if (update.view) accept(update.view);
        } else if (reply.message.case === "ended") {
          // The session stays open: a move's answer may still be on its way behind the end.
          // The next game shown (sit, replay) closes it.
          return;
        }
      }
    } catch (error) {
      failures += 1;
      if (error instanceof ConnectError && error.code === Code.OutOfRange && seat) {
        const reply = await client.getGameView({ gameId: seat.gameId, seat: seatOf(seat) },
          { headers: headers() });
        if (reply.view) { view = reply.view; render(); }
      }
    }
    opened.close();
    if (session === opened) session = null;
    await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** failures, 5000)));
  }
}

async function sit(next: Seat): Promise<void> {
  seat = next;
  view = null;
  frames = [];
  $("replay").hidden = true;
  watchGeneration += 1;
  session?.close(); // the watch of what was shown ends with it
  window.location.hash = new URLSearchParams(next.seat === SPECTATOR ? { game: next.gameId, watch: "1" }
    : { game: next.gameId, seat: String(next.seat), token: next.token }).toString();
  try {
    const reply = await client.getGameView({ gameId: next.gameId, seat: seatOf(next) },
      { headers: headers() });
    clearError();
    $("lobby").hidden = true;
    $("table").hidden = false;
    $("events").replaceChildren();
    if (reply.view) accept(reply.view);
    void watch(watchGeneration);
  } catch (error) {
    seat = null;
    showError(error);
    $("table").hidden = false;
  }
}

// ---- drawing ---------------------------------------------------------------------------------

function scoreTable(rows: [string, (number | string)[]][], columns?: string[]): HTMLElement {
  // One column per seat, unless named otherwise (Guandan's levels are per team).
  const table = el("table", { class: "scores" });
  const head = el("tr");
  head.append(el("th"));
  (columns ?? rows[0]?.[1].map((_, index) => seatName(index)) ?? [])
    .forEach((name) => head.append(el("th", {}, name)));
  table.append(head);
  for (const [name, values] of rows) {
    const row = el("tr");
    row.append(el("th", {}, name));
    values.forEach((value) => row.append(el("td", {}, String(value))));
    table.append(row);
  }
  return table;
}

function seatName(index: number): string {
  return seat && index === seat.seat ? t("you", { n: index }) : t("seat", { n: index });
}

// The seat the felt is drawn from: this seat, or seat 0 for a spectator.
const bottomSeat = (): number => (seat && seated() ? seat.seat : 0);

// Where a seat sits, seen from this seat: itself at the bottom, the next seat (passes go
// "left" to it, H-R2) on the left, then across at the top, then on the right.
function position(index: number): string {
  const n = view ? view.seats.length : 4;
  const relative = (index - bottomSeat() + n) % n;
  return n === 2 ? ["bottom", "top"][relative] : ["bottom", "left", "top", "right"][relative];
}

function cardsLeft(index: number): number | undefined {
  const game = view?.game;
  if (game?.case === "guandan") return game.value.cardCounts[index];
  if (game?.case === "klaberjass") return game.value.handSizes[index];
  return undefined;
}

// Each seat's box on the felt: who plays it, whether it is to act, its cards and its team.
function renderSeats(mine: boolean): void {
  if (!view || !seat) return;
  const shown = view;
  const me = bottomSeat();
  const felt = $("seats-info");
  felt.querySelectorAll(".seat").forEach((node) => node.remove());
  shown.seats.forEach((type, index) => {
    const toAct = shown.toAct.includes(index) && shown.status === GameStatus.IN_PROGRESS;
    const box = el("div", { class: toAct ? "seat to-act" : "seat", "data-pos": position(index),
      "data-seat": String(index) });
    const kind = KIND_WORDS[PlayerType[type]];
    box.append(el("span", { class: "who", "data-kind": PlayerType[type] },
      `${seatName(index)} ${kind ? t(kind) : PlayerType[type]}`));
    if (shown.gameType === "guandan" && index !== me) {
      box.append(el("span", { class: "team" }, t((index - me + 4) % 4 === 2 ? "partner" : "opponent")));
    }
    const left = cardsLeft(index);
    if (left !== undefined) box.append(el("span", {}, t("cards", { n: left })));
    if (toAct) box.append(el("span", { class: "turn" }, ` ${t(index === me && mine ? "yourMove" : "toAct")}`));
    felt.append(box);
  });
}

// A card or a move in the middle of the felt, on the side of the seat that made it. One not
// shown before slides in from that seat (redrawing the same trick moves nothing).
let slotsShown = new Set<string>();
let slotsNow = new Set<string>();

function slot(index: number, ...content: (Node | string)[]): HTMLElement {
  const key = `${view?.gameId}:${index}:${content.map((c) => (typeof c === "string" ? c : c.textContent)).join(",")}`;
  slotsNow.add(key);
  const fresh = !slotsShown.has(key);
  const box = el("div", { class: fresh ? "slot new" : "slot", "data-pos": position(index) }, "");
  box.append(el("span", { class: "hint" }, `${seatName(index)} `), ...content);
  return box;
}

function trickSlots(leader: number, cards: Card[]): HTMLElement[] {
  const n = view ? view.seats.length : 4;
  return cards.map((card, offset) => slot((leader + offset) % n, cardNode(card)));
}

function trickNode(leader: number, cards: Card[], winner?: number): HTMLElement {
  const box = el("div", { class: "trick" });
  cards.forEach((card, offset) => {
    const n = view ? view.seats.length : 4;
    const who = el("span", { class: "played" }, `${seatName((leader + offset) % n)}: `);
    who.append(cardNode(card));
    box.append(who);
  });
  if (winner !== undefined) box.append(el("span", { class: "winner" }, ` ${t("wonBy", { who: seatName(winner) })}`));
  if (cards.length === 0) box.append(el("span", {}, "(none)"));
  return box;
}

// The turn clocks: a countdown to each deadline, redrawn every second between views.
function seconds(ms: number): string {
  return `${Math.ceil(Math.max(0, ms) / 1000)} s`;
}

function renderClocks(): void {
  const box = $("clocks");
  box.replaceChildren();
  const running = view && view.status === GameStatus.IN_PROGRESS
    ? view.clocks.filter((clock) => clock.deadline) : [];
  box.hidden = running.length === 0;
  const now = Date.now();
  for (const clock of running) {
    const left = clock.deadline ? timestampMs(clock.deadline) - now : 0;
    const bank = clock.bankRemaining ? durationMs(clock.bankRemaining) : 0;
    box.append(el("div", {
      class: "clock", "data-seat": String(clock.seat), "data-left-ms": String(Math.max(0, Math.round(left))),
      "data-bank-ms": String(bank),
    }, t("clock", { who: seatName(clock.seat), left: seconds(left), bank: seconds(bank) })));
  }
}

function render(): void {
  if (!view || !seat) return;
  renderClocks();
  // A seat handed to a bot (after "Leave table") is the bot's to play, even on its turn.
  const mine = view.toAct.includes(seat.seat) && view.status === GameStatus.IN_PROGRESS
    && view.seats[seat.seat] === PlayerType.HUMAN;
  const game = view.game;
  const status = $("status");
  let phase = "";
  let deal = 0;
  let hand: Card[] = [];
  if (game.case) {
    phase = String((game.value as { phase: number }).phase);
  }
  status.dataset.version = String(view.version);
  status.dataset.status = GameStatus[view.status];
  status.dataset.myTurn = String(mine && !busy);
  status.dataset.gameType = view.gameType;
  const who = frames.length ? t("replay") : seated() ? t("youAreSeat", { n: seat.seat }) : t("watching");
  status.replaceChildren(
    el("span", {}, `${view.gameType} \u00b7 ${t("gameWord")} ${view.gameId} \u00b7 ${who} \u00b7 ${t("version")} ${view.version} \u00b7 `),
    el("span", { class: mine ? "turn" : "" }, view.status === GameStatus.FINISHED
      ? t("finished", { summary: view.outcome?.summary ?? "" }) : mine ? t("yourMove")
        : t("waitingFor", { who: view.toAct.map(seatName).join(", ") })),
  );
  const early = view.outcome?.endedEarly ?? "";
  status.dataset.endedEarly = early;
  if (early) status.append(el("span", { class: "ended-early" }, ` \u00b7 ${t("endedEarly", { reason: early })}`));
  const leave = $("leave") as HTMLButtonElement;
  leave.hidden = !seated();
  (document.querySelector(".hand-title") as HTMLElement).hidden = !seated();
  leave.disabled = busy || view.status === GameStatus.FINISHED
    || view.seats[seat.seat] !== PlayerType.HUMAN;
  renderSeats(mine);

  const scores = $("scores");
  const trick = $("trick");
  const previous = $("previous");
  const lastTrick = $("last-trick");
  trick.replaceChildren();
  previous.replaceChildren();
  lastTrick.replaceChildren();
  if (game.case === "hearts") {
    const h = game.value;
    deal = h.handNumber;
    hand = h.hand;
    scores.replaceChildren(scoreTable([[t("total"), h.totals], [t("thisHand"), h.pointsTaken],
      [t("tricks"), h.tricksWon]]));
    trick.append(el("div", { class: "info" }, t("hand", { n: h.handNumber + 1 })));
    if (h.trick) trick.append(...trickSlots(h.trick.leader, h.trick.cards));
    if (h.lastTrick && h.lastTrick.cards.length) {
      lastTrick.append(trickNode(h.lastTrick.leader, h.lastTrick.cards, h.lastTrick.winner));
    }
    const done = h.previousHand?.tricks.at(-1);
    if (h.previousHand && done) {
      previous.append(el("div", {}, t("handScores", { n: h.previousHand.handNumber + 1, scores: h.previousHand.scores.join(" / ") })),
        trickNode(done.leader, done.cards, done.winner));
    }
  } else if (game.case === "klaberjass") {
    const k = game.value;
    deal = k.dealNumber;
    hand = k.hand;
    scores.replaceChildren(scoreTable([[t("total"), k.totals], [t("cardPoints"), k.cardPoints],
      [t("tricks"), k.tricksWon]]));
    const info = el("div", { class: "info" }, `${t("trump", { suit: k.trump ? describe(SUITS_NAME(k.trump)) : t("notChosen") })} \u00b7 ${t("dealer", { who: seatName(k.dealer) })}${k.maker !== undefined ? ` \u00b7 ${t("maker", { who: seatName(k.maker) })}` : ""} \u00b7 ${t("turnUp")} `);
    if (k.turnUp) info.append(cardNode(k.turnUp));
    // K-R11: the turn-up a dix swap took stays public after the seven replaced it.
    if (k.dixTaken && k.dixBy !== undefined) {
      info.append(el("span", {}, ` \u00b7 ${t("swappedDix", { who: seatName(k.dixBy) })} `), cardNode(k.dixTaken));
    }
    trick.append(info);
    if (k.trick) trick.append(...trickSlots(k.trick.leader, k.trick.cards));
    if (k.lastTrick && k.lastTrick.cards.length) {
      lastTrick.append(trickNode(k.lastTrick.leader, k.lastTrick.cards, k.lastTrick.winner));
    }
    const done = k.previousDeal?.tricks.at(-1);
    if (k.previousDeal && done) {
      previous.append(el("div", {}, t("dealScores", { n: k.previousDeal.dealNumber + 1, scores: k.previousDeal.result?.scores.join(" / ") ?? "" })),
        trickNode(done.leader, done.cards, done.winner));
    }
  } else if (game.case === "guandan") {
    const g = game.value;
    deal = g.dealNumber;
    hand = g.hand;
    const teams = [0, 1].map((team) => `${seatName(team)} + ${seatName(team + 2)}`);
    scores.replaceChildren(
      scoreTable([[t("levelRow"), g.levels.map((r) => describe(RANK_NAME(r)))]], teams),
      scoreTable([[t("cardsLeft"), g.cardCounts]]),
    );
    trick.append(el("div", { class: "info" }, `${t("level", { level: describe(RANK_NAME(g.level)) })} \u00b7 ${t("out", { who: g.finished.map(seatName).join(", ") || t("nobodyYet") })}`));
    // The round so far: each seat's latest play (or pass), on its side of the felt.
    const latest = new Map<number, (typeof g.roundHistory)[number]>();
    for (const entry of g.roundHistory) latest.set(entry.seat, entry);
    for (const [index, entry] of latest) {
      trick.append(slot(index, ...(entry.move.case === "play"
        ? entry.move.value.cards.map((card) => cardNode(card)) : [t("passed")])));
    }
    if (g.previousDeal) {
      previous.append(el("div", {}, t("dealOrder", { n: g.previousDeal.dealNumber + 1, order: g.previousDeal.order.map(seatName).join(", ") })));
      for (const entry of g.previousDeal.lastPlays) {
        const line = el("div", { class: "played" }, `${seatName(entry.seat)}: `);
        if (entry.move.case === "play") entry.move.value.cards.forEach((card) => line.append(cardNode(card)));
        else line.append(t("passed"));
        previous.append(line);
      }
    }
  }
  status.dataset.phase = phase;
  status.dataset.deal = String(deal);
  $("last-trick-panel").hidden = lastTrick.childElementCount === 0;
  $("previous-panel").hidden = previous.childElementCount === 0;
  [slotsShown, slotsNow] = [slotsNow, new Set<string>()];

  // Hand: a card is a button when playing it alone is a legal move.
  const playable = new Map<string, Action>();
  if (mine && view.legalChoices.length === 0) {
    for (const action of view.legalActions) {
      const code = singleCard(action);
      if (code && !playable.has(code)) playable.set(code, action);
    }
  }
  const handBox = $("hand");
  handBox.replaceChildren();
  const choice = mine ? view.legalChoices[0] : undefined;
  // Dimmed cards mean "not playable now": while no card is (bidding, waiting), none is dimmed.
  handBox.classList.toggle("resting", playable.size === 0 && !choice
    && !(mine && game.case === "guandan"));
  // A card picked or put back on click: up to ``limit`` of them (the pass's count).
  const pickable = (node: HTMLButtonElement, index: number, kind: string, limit: number): void => {
    node.classList.add(kind);
    node.classList.toggle("selected", chosen.has(index));
    node.addEventListener("click", () => {
      if (chosen.has(index)) chosen.delete(index);
      else if (chosen.size < limit) chosen.add(index);
      render();
    });
  };
  const spread = Math.min(3, 40 / Math.max(1, hand.length));
  const suggested = currentHint();
  const hintCards = suggested ? actionCards(suggested) : [];
  hand.forEach((card, index) => {
    const node = cardNode(card, "button") as HTMLButtonElement;
    const code = cardCode(card);
    const hintAt = hintCards.indexOf(code);
    if (hintAt >= 0) {  // each suggested copy raises one card of the hand
      hintCards.splice(hintAt, 1);
      node.classList.add("hinted");
    }
    const action = playable.get(code);
    if (choice) {
      pickable(node, index, "choosable", choice.count);
      node.disabled = busy;
    } else if (mine && game.case === "guandan" && !busy) {
      // Guandan: cards are picked, then played as one of the plays they make.
      pickable(node, index, "pickable", Infinity);
    } else if (action && !busy) {
      node.classList.add("playable");
      node.addEventListener("click", () => void submit(action));
    } else if (playable.size > 0 && !busy && game.case !== "guandan") {
      // Not a legal play: sent anyway, so the engine says which rule forbids it.
      node.classList.add("unplayable");
      node.title = "not a legal play now: click to ask the engine why";
      node.addEventListener("click", () => void submit(fromJson(ActionSchema, {
        [game.case as string]: { playCard: { card: toJson(CardSchema, card) } },
      })));
    } else {
      node.disabled = true;
    }
    node.style.setProperty("--tilt", `${((index - (hand.length - 1) / 2) * spread).toFixed(2)}deg`);
    handBox.append(node);
  });

  const choiceBox = $("choice");
  choiceBox.replaceChildren();
  choiceBox.hidden = !choice;
  choiceBox.dataset.count = String(choice?.count ?? 0);
  if (choice) {
    choiceBox.append(el("span", {}, `${t("choose", { n: choice.count })} ${passTarget() ?? `(${describeAction(choice.action ?? create(ActionSchema)) || "pass"})`}: ${t("chosen", { n: chosen.size })} `));
    const go = el("button", { id: "choice-submit" }, t("send", { n: choice.count })) as HTMLButtonElement;
    go.disabled = busy || chosen.size !== choice.count;
    go.addEventListener("click", () => void submit(fillChoice(choice, [...chosen].map((i) => hand[i]))));
    choiceBox.append(go);
  }

  const legal = $("legal");
  legal.replaceChildren();
  if (mine) {
    const ask = el("button", { id: "hint", type: "button" }, t("hintButton")) as HTMLButtonElement;
    ask.disabled = busy;
    ask.addEventListener("click", () => void hint());
    legal.append(ask);
    if (suggested) legal.append(el("span", { id: "hint-text" }, t("hintIs", { move: describeAction(suggested) })));
  }
  if (mine && game.case === "guandan" && !choice) {
    guandanPlays(legal, hand);
  } else if (mine) {
    view.legalActions.forEach((action, index) => {
      const button = el("button", { class: "legal", "data-index": String(index) }, describeAction(action)) as HTMLButtonElement;
      if (suggested && equals(ActionSchema, suggested, action)) button.classList.add("hinted");
      const meaning = bidMeaning(action);
      if (meaning) button.append(el("span", { class: "meaning" }, meaning));
      button.disabled = busy;
      button.addEventListener("click", () => void submit(action));
      legal.append(button);
    });
    if (choice) legal.append(el("span", {}, t("pickAbove")));
  } else if (!frames.length) {
    legal.append(el("span", {}, t(view.status === GameStatus.FINISHED ? "gameOver"
      : seated() ? "notYourTurn" : "watchingHidden")));
  }
}

// Klaberjass bidding and the dix, with what each choice means (K-R5, K-R6, K-R11).
function bidMeaning(action: Action): string | null {
  if (action.game.case !== "klaberjass") return null;
  const move = action.game.value.action;
  switch (move.case) {
    case "takeTrump":
      return t("bidTake");
    case "passBid":
      return t("bidPass");
    case "dix":
      return t(move.value.swap ? "dixSwap" : "dixKeep");
    default:
      return null;
  }
}

// G-R13: the plays the picked cards make, each a button; a pass whenever passing is legal.
function guandanPlays(box: HTMLElement, hand: Card[]): void {
  if (!view) return;
  const picked = [...chosen].map((index) => cardCode(hand[index])).sort().join(",");
  let shown = 0;
  view.legalActions.forEach((action, index) => {
    const json = toJson(ActionSchema, action) as JsonObject;
    const inner = (json["guandan"] ?? {}) as JsonObject;
    const cards = ((inner["play"] as JsonObject | undefined)?.["cards"] ?? []) as JsonValue[];
    const codes = cards.map((card) => cardJson(card)?.[0] ?? "?").sort().join(",");
    const isPass = !("play" in inner);
    if (!isPass && (chosen.size === 0 || codes !== picked)) return;
    const button = el("button", { class: "legal", "data-index": String(index) },
      describeAction(action)) as HTMLButtonElement;
    button.disabled = busy;
    button.addEventListener("click", () => void submit(action));
    box.append(button);
    shown += 1;
  });
  const plays = view.legalActions.length - shown;
  box.append(el("span", { class: "hint" }, chosen.size === 0 ? t("pickPlays", { n: plays })
    : shown === 0 ? t("noPlay") : ""));
}

// H-R2: hand 1 passes left (one seat on), hand 2 right, hand 3 across; the seat it goes to.
const PASS_STEPS: Record<number, [Key, number]> = { 1: ["left", 1], 2: ["right", 3], 3: ["across", 2] };

function passTarget(): string | null {
  if (!view || !seat || view.game.case !== "hearts") return null;
  const step = PASS_STEPS[view.game.value.passDirection];
  return step ? t("passTo", { dir: t(step[0]), who: seatName((seat.seat + step[1]) % 4) }) : null;
}

function SUITS_NAME(suit: number): string {
  return ["SUIT_UNSPECIFIED", "SUIT_CLUBS", "SUIT_DIAMONDS", "SUIT_SPADES", "SUIT_HEARTS"][suit] ?? "";
}

function RANK_NAME(rank: number): JsonValue {
  const name = Object.keys(RANKS).find((_, i) => i + 2 === rank);
  return name ? { rank: name } : String(rank);
}

// ---- replay ----------------------------------------------------------------------------------

// A finished game, version by version as a spectator saw it: WatchGame from version 1 sends
// every later version with its events and the view at it, then GameEnded.
interface Frame { version: bigint; events: GameEvent[]; view: GameView }
let frames: Frame[] = [];
let frameAt = 0;

async function replay(gameId: string): Promise<void> {
  seat = { gameId, seat: SPECTATOR, token: "" };
  watchGeneration += 1;
  session?.close(); // the watch of what was shown ends with it
  window.location.hash = new URLSearchParams({ game: gameId, replay: "1" }).toString();
  const collected: Frame[] = [];
  try {
    for await (const reply of client.watchGame({ gameId, fromVersion: 1n })) {
      if (reply.message.case === "update" && reply.message.value.view) {
        const update = reply.message.value;
        collected.push({ version: update.version, events: update.events, view: update.view! });
      } else if (reply.message.case === "ended") {
        break;
      }
    }
  } catch (error) {
    showError(error);
    $("table").hidden = false;
    return;
  }
  frames = collected;
  $("lobby").hidden = true;
  $("table").hidden = false;
  $("replay").hidden = frames.length === 0;
  const range = $("replay-step") as HTMLInputElement;
  range.max = String(Math.max(0, frames.length - 1));
  showFrame(0);
}

function showFrame(index: number): void {
  if (!frames.length) return;
  frameAt = Math.max(0, Math.min(frames.length - 1, index));
  const frame = frames[frameAt];
  view = frame.view;
  ($("replay-step") as HTMLInputElement).value = String(frameAt);
  $("replay-where").textContent = t("moveOf", { i: frameAt + 1, n: frames.length, v: String(frame.version) });
  $("replay").dataset.step = String(frameAt);
  const log = $("events");
  log.replaceChildren(...frames.slice(0, frameAt + 1).flatMap((f) => f.events.map((event) =>
    el("li", { "data-version": String(f.version) }, `v${f.version}: ${describeEvent(event)}`))).reverse());
  render();
}

// ---- lobby -----------------------------------------------------------------------------------

const STATES: Record<number, Key> = { 1: "stateWaiting", 2: "stateRunning", 3: "stateOver" };

// The service's games, newest first: watch one being played, or replay one that is over.
async function listGames(): Promise<void> {
  const list = $("games");
  try {
    const reply = await client.listGames({ pageSize: 20 });
    list.replaceChildren(...reply.games.map((game) => {
      const created = game.createTime ? new Date(timestampMs(game.createTime)).toLocaleTimeString() : "";
      const item = el("li", { "data-game": game.gameId, "data-state": String(game.state) },
        `${game.gameType} \u00b7 ${game.state in STATES ? t(STATES[game.state]) : ""} \u00b7 ${t("seatsN", { n: game.seats.length })} \u00b7 ${created} `);
      const over = game.state === 3;
      const open = el("button", { type: "button", class: over ? "replay" : "watch" },
        t(over ? "replayButton" : "watch")) as HTMLButtonElement;
      open.addEventListener("click", () => void (over ? replay(game.gameId)
        : sit({ gameId: game.gameId, seat: SPECTATOR, token: "" })));
      item.append(open);
      return item;
    }));
    if (!reply.games.length) list.append(el("li", {}, t("noGames")));
  } catch (error) {
    list.replaceChildren(el("li", {}, error instanceof ConnectError && error.code === Code.Unauthenticated
      ? t("needsKey") : t("listFailed")));
  }
}

// ---- lobby (creating and joining) -----------------------------------------------------------

// Who plays a seat, in the page's words (the lobby's choices and the seats at the table).
const KIND_WORDS: Record<string, Key> = {
  HUMAN: "person", BOT_HEURISTIC: "heuristicBot", BOT_SEARCH: "searchBot", BOT_RANDOM: "randomBot",
};

function drawSeatTypes(): void {
  const game = ($("game-type") as HTMLSelectElement).value;
  const box = $("seat-types");
  box.replaceChildren();
  for (let index = 0; index < SEATS[game]; index += 1) {
    const label = el("label", {}, `${t("seatLabel")} ${index} `);
    const select = el("select", { class: "seat-type", "data-seat": String(index) }) as HTMLSelectElement;
    for (const [value, text] of Object.entries(KIND_WORDS)) {
      select.append(el("option", { value }, t(text)));
    }
    select.value = index === 0 ? "HUMAN" : "BOT_HEURISTIC";
    label.append(select);
    box.append(label);
  }
}

// The chosen game's options, as ListGameTypes lists them: a field each, at its default.
let gameTypes: GameType[] = [];

async function loadGameTypes(): Promise<void> {
  try {
    gameTypes = (await client.listGameTypes({})).gameTypes;
  } catch {
    gameTypes = [];
  }
  drawOptions();
}

function drawOptions(): void {
  const box = $("game-options");
  box.querySelectorAll("label").forEach((node) => node.remove());
  const type = gameTypes.find((t) => t.name === ($("game-type") as HTMLSelectElement).value);
  box.hidden = !type || type.options.length === 0;
  for (const option of type?.options ?? []) {
    const label = el("label", { title: `${option.ruleId}: ${option.description}` }, `${option.name.replace(/_/g, " ")} `);
    let input: HTMLInputElement | HTMLSelectElement;
    if (option.kind === OptionKind.CHOICE) {
      input = el("select") as HTMLSelectElement;
      option.choices.forEach((choice) => input.append(el("option", { value: choice }, words(choice))));
    } else {
      input = el("input", { type: option.kind === OptionKind.BOOL ? "checkbox" : "number" }) as HTMLInputElement;
      if (option.kind === OptionKind.BOOL) input.checked = option.defaultValue === "true";
    }
    if (option.kind !== OptionKind.BOOL) input.value = option.defaultValue;
    input.classList.add("game-option");
    input.dataset.name = option.name;
    input.dataset.default = option.defaultValue;
    label.append(input);
    box.append(label);
  }
}

// The options changed from their defaults, as the game's options message (the rest default).
function chosenOptions(gameType: string): ReturnType<typeof fromJson<typeof GameOptionsSchema>> | undefined {
  const gameField = GameOptionsSchema.fields.find((field) => field.name === gameType);
  if (!gameField || gameField.fieldKind !== "message") return undefined;
  const values: JsonObject = {};
  for (const input of document.querySelectorAll<HTMLInputElement>(".game-option")) {
    const value = input.type === "checkbox" ? String(input.checked) : input.value;
    if (value === input.dataset.default) continue;
    const field = gameField.message.fields.find((f) => f.name === input.dataset.name);
    if (!field) continue;
    if (field.fieldKind === "enum") {
      const chosen = field.enum.values.find((v) => v.name.endsWith(`_${value.toUpperCase()}`));
      if (chosen) values[field.jsonName] = chosen.name;
    } else if (field.fieldKind === "scalar") {
      values[field.jsonName] = input.type === "checkbox" ? input.checked : Number(value);
    }
  }
  return Object.keys(values).length ? fromJson(GameOptionsSchema, { [gameField.jsonName]: values }) : undefined;
}

async function createGame(event: Event): Promise<void> {
  event.preventDefault();
  const gameType = ($("game-type") as HTMLSelectElement).value;
  const seats = [...document.querySelectorAll<HTMLSelectElement>("select.seat-type")]
    .map((select) => PlayerType[select.value as keyof typeof PlayerType]);
  const perDecision = Number(($("clock-seconds") as HTMLInputElement).value || 0);
  const clock = perDecision > 0 ? create(ClockPolicySchema, {
    perDecision: durationFromMs(perDecision * 1000), onExpiry: ExpiryAction.BOT_HEURISTIC,
  }) : undefined;
  try {
    const reply = await client.createGame({ gameType, seats, clock, options: chosenOptions(gameType) });
    const tokens = reply.seatTokens;
    if (tokens.length === 0) { showError(new Error("no human seat to sit at")); return; }
    await sit({ gameId: reply.gameId, seat: tokens[0].seat, token: tokens[0].token });
    const info = $("seats-info");
    const list = el("ul", { id: "seat-tokens" });
    for (const token of tokens) {
      // The token is a secret: never shown as text, only carried by the seat's invite link.
      const link = `${window.location.origin}${window.location.pathname}#${new URLSearchParams({ game: reply.gameId, seat: String(token.seat), token: token.token })}`;
      const item = el("li", { "data-seat": String(token.seat), "data-link": link }, `${t("seat", { n: token.seat })}: `);
      const copy = el("button", { type: "button", class: "invite" }, t("copyInvite")) as HTMLButtonElement;
      copy.addEventListener("click", () => {
        void navigator.clipboard?.writeText(link).then(() => { copy.textContent = t("copied"); });
      });
      item.append(copy, " ", el("a", { href: link, target: "_blank" }, t("openTab")));
      list.append(item);
    }
    info.after(list);
  } catch (error) {
    showError(error);
    $("table").hidden = false;
  }
}

function joinGame(event: Event): void {
  event.preventDefault();
  void sit({
    gameId: ($("join-game") as HTMLInputElement).value.trim(),
    seat: Number(($("join-seat") as HTMLInputElement).value),
    token: ($("join-token") as HTMLInputElement).value.trim(),
  });
}

// The page's fixed words (data-i18n) in the chosen language; what is drawn follows on redraw.
function translateStatic(): void {
  document.querySelectorAll<HTMLElement>("[data-i18n]").forEach((node) => {
    node.textContent = t(node.dataset.i18n as Key);
  });
  document.querySelectorAll<HTMLInputElement>("[data-i18n-placeholder]").forEach((node) => {
    node.placeholder = t(node.dataset.i18nPlaceholder as Key);
  });
  document.title = t("title");
}

function chooseLanguage(next: Language): void {
  setLanguage(next);
  session?.close(); // the watch opens another, whose refusals are in the new language
  translateStatic();
  drawSeatTypes();
  void listGames();
  if (frames.length) showFrame(frameAt); else render();
}

const switcher = $("language") as HTMLSelectElement;
LANGUAGES.forEach((code) => switcher.append(el("option", { value: code }, LANGUAGE_NAMES[code])));
switcher.value = startingLanguage();
setLanguage(switcher.value as Language);
translateStatic();
switcher.addEventListener("change", () => chooseLanguage(switcher.value as Language));

$("game-type").addEventListener("change", () => { drawSeatTypes(); drawOptions(); });
void loadGameTypes();
$("create-form").addEventListener("submit", (event) => void createGame(event));
$("join-form").addEventListener("submit", joinGame);
$("leave").addEventListener("click", () => void leaveTable());
$("games-refresh").addEventListener("click", () => void listGames());
$("replay-first").addEventListener("click", () => showFrame(0));
$("replay-back").addEventListener("click", () => showFrame(frameAt - 1));
$("replay-forward").addEventListener("click", () => showFrame(frameAt + 1));
$("replay-last").addEventListener("click", () => showFrame(frames.length - 1));
$("replay-step").addEventListener("input", (event) =>
  showFrame(Number((event.target as HTMLInputElement).value)));
void listGames();
window.setInterval(renderClocks, 1000);
drawSeatTypes();
const hash = new URLSearchParams(window.location.hash.slice(1));
if (hash.get("game") && hash.get("replay")) {
  void replay(hash.get("game") ?? "");
} else if (hash.get("game") && hash.get("watch")) {
  void sit({ gameId: hash.get("game") ?? "", seat: SPECTATOR, token: "" });
} else if (hash.get("game") && hash.get("token")) {
  void sit({ gameId: hash.get("game") ?? "", seat: Number(hash.get("seat") ?? 0), token: hash.get("token") ?? "" });
}
document.body.dataset.ready = "true";
