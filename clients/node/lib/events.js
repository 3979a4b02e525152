'use strict';
// Events told in words in any of the service's five languages, from the shared catalogue
// (clients/text/events.json in the repository; docs/events.md describes it). The Python client
// fills in the same templates (cardengine_client.text.events), so an event reads the same in
// the terminal, in a Node program and on the browser table.
//
// No file or Node module is used here: the catalogue is passed in, so the browser table
// bundles this file as it is. lib/client.js's describeEvent passes the catalogue it reads.
//
// An event is given as plain objects with the .proto field names, as this client decodes
// messages (enum values by name, cards as { rank: 'RANK_QUEEN', suit: 'SUIT_SPADES' }), or as
// proto JSON written with the .proto field names.

// Partnership games seat two teams alternately (Guandan, G-R1).
const TEAMS = 2;
const PLACEHOLDER = /\{([a-z0-9_.]+)(?::([a-z_]+))?\}/g;

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

// The catalogue's language for an accept-language style value ('fr-CH,fr;q=0.9' is French);
// English otherwise.
function pickLanguage(catalogue, wanted) {
  const primary = String(wanted ?? '').split(',')[0].split(';')[0].trim().toLowerCase().split('-')[0];
  return catalogue.languages.includes(primary) ? primary : catalogue.languages[0];
}

function word(catalogue, name, language, values = {}) {
  const texts = catalogue.words[name];
  if (texts === undefined) return name; // an enum value newer than the catalogue, by its name
  return texts[language].replace(/\{(\w+)\}/g, (_, key) => String(values[key]));
}

// The value at a dotted path in the first scope that has it; undefined in none.
function lookup(scopes, path) {
  for (const scope of scopes) {
    let value = scope;
    for (const step of path.split('.')) {
      if (isObject(value) && step in value) value = value[step];
      else if (Array.isArray(value) && /^\d+$/.test(step) && Number(step) < value.length) value = value[Number(step)];
      else { value = undefined; break; }
    }
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

const isSet = (value) => value !== undefined && value !== null && value !== false && value !== ''
  && !(Array.isArray(value) && value.length === 0);

function applies(item, scopes) {
  if (!('if' in item)) return true;
  const value = lookup(scopes, item.if);
  return 'equals' in item ? value === item.equals : isSet(value);
}

// The event's 'game.kind' key, its kind's message and its game's message.
function kindOf(catalogue, event) {
  const games = Object.entries(event).filter(([, inner]) => isObject(inner));
  if (games.length === 0) return null;
  const [game, message] = games[0];
  const where = catalogue.kinds[game];
  const holder = where ? lookup([message], where) : message;
  const kinds = isObject(holder) ? Object.entries(holder).filter(([, inner]) => isObject(inner)) : [];
  const [kind, inner] = kinds[0] ?? ['?', {}];
  return { key: `${game}.${kind}`, inner, message };
}

// Where a card goes in a hand: by suit, then rank, in the catalogue's hand_order.
function handPlace(catalogue, card) {
  const { suits, ranks } = catalogue.hand_order;
  const at = (names, name) => (names.includes(name) ? names.indexOf(name) : names.length);
  return at(suits, card.suit ?? suits.at(-1)) * (ranks.length + 1) + at(ranks, card.rank ?? ranks[0]);
}

function filler(catalogue, { viewer, seats = 4, language, cardText }) {
  const seat = (value) => (typeof value === 'number' && value >= 0
    ? word(catalogue, value === viewer ? 'you' : 'seat', language, { n: value })
    : word(catalogue, 'table', language));
  const list = (value) => (Array.isArray(value) ? value : []);
  const formats = {
    seat,
    seats: (value) => list(value).map(seat).join(', ') || word(catalogue, 'nobody', language),
    // partners sit opposite: team t is the seats s with s % 2 === t
    team: (value) => Array.from({ length: seats }, (_, s) => s).filter((s) => s % TEAMS === value).map(seat).join(' & '),
    card: (value) => cardText(value),
    cards: (value) => list(value).map((card) => cardText(card)).join(' '),
    hand: (value) => [...list(value)].sort((a, b) => handPlace(catalogue, a) - handPlace(catalogue, b))
      .map((card) => cardText(card)).join(' '),
    word: (value) => word(catalogue, String(value), language),
    next: (value) => String(Number(value) + 1),
    per_seat: (value) => list(value).map((score, s) => `${seat(s)} ${score}`).join(', '),
  };
  return (value, how) => {
    if (how === undefined) return String(value);
    const format = formats[how];
    if (format === undefined) throw new Error(`the catalogue names an unknown format ${how}`);
    return format(value);
  };
}

// The event as a sentence for the seat `viewer` (named "you"), in `language`, or null for an
// event the catalogue has no template for (a server newer than this client). `seats` is the
// game's seat count; `cardText(card)` draws a card.
function eventText(catalogue, event, { viewer, seats = 4, language = 'en', cardText }) {
  const found = kindOf(catalogue, event);
  const items = found && catalogue.events[found.key];
  if (!items) return null;
  const scopes = [found.inner, found.message];
  const item = items.find((candidate) => applies(candidate, scopes));
  const chosen = pickLanguage(catalogue, language);
  const fill = filler(catalogue, { viewer, seats, language: chosen, cardText });
  return item.text[chosen].replace(PLACEHOLDER, (_, path, how) => fill(lookup(scopes, path), how));
}

module.exports = { eventText, pickLanguage };
