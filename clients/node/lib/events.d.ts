// Types of lib/events.js: events told in words from the shared catalogue
// (clients/text/events.json). The browser table imports them; Node programs use
// describeEvent from the package (types/index.d.ts), which passes the catalogue itself.

/** A card as events carry it: enum value names. */
export interface CatalogueCard { rank?: string; suit?: string }

/** One template of an event kind, applying when its `if` field is set (or `equals` a value). */
export interface CatalogueCase { if?: string; equals?: string | number; text: Record<string, string> }

/** clients/text/events.json. */
export interface Catalogue {
  languages: string[];
  kinds: Record<string, string>;
  hand_order: { suits: string[]; ranks: string[] };
  words: Record<string, Record<string, string>>;
  events: Record<string, CatalogueCase[]>;
}

export interface EventTextOptions {
  /** The seat called "you". */
  viewer?: number;
  /** The game's seat count (4 by default); partnership teams are named from it. */
  seats?: number;
  /** 'en' by default; 'fr-CH' counts as 'fr'. */
  language?: string;
  /** Draws a card. */
  cardText: (card: CatalogueCard) => string;
}

/** The event as a sentence, or null for an event the catalogue has no template for. */
export declare function eventText(catalogue: Catalogue, event: object, options: EventTextOptions): string | null;

/** The catalogue's language for an accept-language style value; English otherwise. */
export declare function pickLanguage(catalogue: Catalogue, wanted: string | null | undefined): string;
