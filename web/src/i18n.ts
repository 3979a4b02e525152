// The page's own words in the five languages the service speaks (en, es, fr, de, nl). The
// browser's language is the default; the switch in the header changes it, and calls then ask
// the service for that language too (refusals and results come back in it).
export const LANGUAGES = ["en", "es", "fr", "de", "nl"] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: "English", es: "Español", fr: "Français", de: "Deutsch", nl: "Nederlands",
};

type Words = [en: string, es: string, fr: string, de: string, nl: string];

const WORDS = {
  title: ["cardengine table", "mesa de cardengine", "table cardengine", "cardengine-Tisch", "cardengine-tafel"],
  language: ["Language", "Idioma", "Langue", "Sprache", "Taal"],
  newGame: ["New game", "Partida nueva", "Nouvelle partie", "Neues Spiel", "Nieuw spel"],
  game: ["Game", "Juego", "Jeu", "Spiel", "Spel"],
  options: ["Options", "Opciones", "Options", "Optionen", "Opties"],
  secondsPerDecision: ["Seconds per decision", "Segundos por decisión", "Secondes par décision", "Sekunden je Entscheidung", "Seconden per beslissing"],
  noClock: ["no clock", "sin reloj", "sans pendule", "ohne Uhr", "geen klok"],
  clockHint: ["(when a person's time runs out, the heuristic bot moves for them)", "(si a una persona se le acaba el tiempo, el bot heurístico juega por ella)", "(quand le temps d'une personne est écoulé, le robot heuristique joue pour elle)", "(läuft die Zeit einer Person ab, zieht der heuristische Bot für sie)", "(als de tijd van een persoon om is, zet de heuristische bot voor hem)"],
  create: ["Create and sit at the first human seat", "Crear y sentarse en el primer asiento humano", "Créer et s'asseoir à la première place humaine", "Erstellen und am ersten Platz einer Person sitzen", "Maken en aan de eerste menselijke plaats gaan zitten"],
  gamesTitle: ["Games on this service", "Partidas en este servicio", "Parties sur ce service", "Spiele auf diesem Dienst", "Spellen op deze dienst"],
  refresh: ["Refresh the list", "Actualizar la lista", "Actualiser la liste", "Liste aktualisieren", "Lijst verversen"],
  joinTitle: ["Join a seat", "Ocupar un asiento", "Rejoindre une place", "Einen Platz einnehmen", "Een plaats innemen"],
  gameId: ["Game id", "Id de la partida", "Id de la partie", "Spiel-ID", "Spel-id"],
  seatLabel: ["Seat", "Asiento", "Place", "Platz", "Plaats"],
  seatToken: ["Seat token", "Ficha del asiento", "Jeton de la place", "Token des Platzes", "Token van de plaats"],
  join: ["Join", "Entrar", "Rejoindre", "Beitreten", "Meedoen"],
  yourHand: ["Your hand", "Tu mano", "Votre main", "Deine Hand", "Je hand"],
  scores: ["Scores", "Puntuación", "Scores", "Punkte", "Scores"],
  lastTrick: ["Last trick", "Última baza", "Dernier pli", "Letzter Stich", "Laatste slag"],
  handScores: ["Hand {n}: scores {scores}", "Mano {n}: puntos {scores}", "Donne {n} : points {scores}", "Spiel {n}: Punkte {scores}", "Ronde {n}: punten {scores}"],
  dealScores: ["Deal {n}: scores {scores}", "Mano {n}: puntos {scores}", "Donne {n} : points {scores}", "Spiel {n}: Punkte {scores}", "Ronde {n}: punten {scores}"],
  dealOrder: ["Deal {n}: order {order}", "Mano {n}: orden {order}", "Donne {n} : ordre {order}", "Spiel {n}: Reihenfolge {order}", "Ronde {n}: volgorde {order}"],
  hintButton: ["hint", "pista", "conseil", "Tipp", "hint"],
  hintIs: ["a good move here: {move}", "una buena jugada aquí: {move}", "un bon coup ici : {move}", "ein guter Zug hier: {move}", "een goede zet hier: {move}"],
  passed: ["pass", "paso", "passe", "passt", "past"],
  previousDeal: ["The deal that just ended", "La mano que acaba de terminar", "La donne qui vient de finir", "Das eben beendete Spiel", "De ronde die net eindigde"],
  moves: ["Moves as they happen", "Jugadas en directo", "Les coups en direct", "Züge, wie sie geschehen", "Zetten terwijl ze gebeuren"],
  leave: ["Leave table (a bot takes the seat)", "Dejar la mesa (un bot ocupa el asiento)", "Quitter la table (un robot prend la place)", "Tisch verlassen (ein Bot übernimmt den Platz)", "Tafel verlaten (een bot neemt de plaats over)"],
  first: ["first", "primera", "premier", "erster", "eerste"],
  last: ["last", "última", "dernier", "letzter", "laatste"],
  you: ["you ({n})", "tú ({n})", "vous ({n})", "du ({n})", "jij ({n})"],
  seat: ["seat {n}", "asiento {n}", "place {n}", "Platz {n}", "plaats {n}"],
  yourMove: ["your move", "te toca", "à vous de jouer", "du bist am Zug", "jij bent aan zet"],
  toAct: ["to act", "le toca", "doit jouer", "am Zug", "aan zet"],
  waitingFor: ["waiting for {who}", "esperando a {who}", "en attente de {who}", "wartet auf {who}", "wacht op {who}"],
  finished: ["finished: {summary}", "terminada: {summary}", "terminée : {summary}", "beendet: {summary}", "afgelopen: {summary}"],
  watching: ["watching", "mirando", "spectateur", "zuschauen", "toekijken"],
  replay: ["replay", "repetición", "rejouer", "Wiederholung", "herhaling"],
  youAreSeat: ["you are seat {n}", "eres el asiento {n}", "vous êtes la place {n}", "du bist Platz {n}", "jij bent plaats {n}"],
  gameWord: ["game", "partida", "partie", "Spiel", "spel"],
  version: ["version", "versión", "version", "Version", "versie"],
  endedEarly: ["ended early: {reason}", "terminó antes: {reason}", "fin anticipée : {reason}", "vorzeitig beendet: {reason}", "vroegtijdig beëindigd: {reason}"],
  partner: ["partner", "compañero", "partenaire", "Partner", "partner"],
  opponent: ["opponent", "rival", "adversaire", "Gegner", "tegenstander"],
  cards: ["{n} cards", "{n} cartas", "{n} cartes", "{n} Karten", "{n} kaarten"],
  hand: ["Hand {n}", "Mano {n}", "Donne {n}", "Spiel {n}", "Ronde {n}"],
  trump: ["Trump {suit}", "Triunfo {suit}", "Atout {suit}", "Trumpf {suit}", "Troef {suit}"],
  notChosen: ["not chosen yet", "aún sin elegir", "pas encore choisi", "noch nicht gewählt", "nog niet gekozen"],
  dealer: ["dealer {who}", "reparte {who}", "donneur {who}", "Geber {who}", "gever {who}"],
  maker: ["maker {who}", "eligió {who}", "preneur {who}", "Spieler {who}", "speler {who}"],
  turnUp: ["turn-up", "carta vuelta", "retourne", "aufgedeckt", "omgedraaid"],
  swappedDix: ["{who} swapped the dix for", "{who} cambió el siete por", "{who} a échangé le sept contre", "{who} tauschte die Sieben gegen", "{who} ruilde de zeven voor"],
  level: ["Level {level}", "Nivel {level}", "Niveau {level}", "Stufe {level}", "Niveau {level}"],
  out: ["out: {who}", "fuera: {who}", "sortis : {who}", "draußen: {who}", "uit: {who}"],
  nobodyYet: ["nobody yet", "nadie aún", "personne encore", "noch niemand", "nog niemand"],
  wonBy: ["won by {who}", "gana {who}", "gagné par {who}", "gewonnen von {who}", "gewonnen door {who}"],
  choose: ["Choose {n} cards", "Elige {n} cartas", "Choisissez {n} cartes", "Wähle {n} Karten", "Kies {n} kaarten"],
  passTo: ["to pass {dir}, to {who}", "para pasar a la {dir}, a {who}", "à passer à {dir}, à {who}", "zum Weitergeben nach {dir}, an {who}", "om door te geven naar {dir}, aan {who}"],
  left: ["left", "izquierda", "gauche", "links", "links"],
  right: ["right", "derecha", "droite", "rechts", "rechts"],
  across: ["across", "de enfrente", "en face", "gegenüber", "de overkant"],
  chosen: ["{n} chosen", "{n} elegidas", "{n} choisies", "{n} gewählt", "{n} gekozen"],
  send: ["Send the {n} cards", "Enviar las {n} cartas", "Envoyer les {n} cartes", "Die {n} Karten senden", "De {n} kaarten sturen"],
  pickAbove: ["Pick the cards in your hand above.", "Elige las cartas de tu mano, arriba.", "Choisissez les cartes de votre main, ci-dessus.", "Wähle die Karten oben in deiner Hand.", "Kies de kaarten in je hand hierboven."],
  gameOver: ["The game is over.", "La partida ha terminado.", "La partie est terminée.", "Das Spiel ist vorbei.", "Het spel is afgelopen."],
  notYourTurn: ["Not your turn.", "No es tu turno.", "Ce n'est pas votre tour.", "Du bist nicht am Zug.", "Je bent niet aan de beurt."],
  watchingHidden: ["Watching: the hands stay hidden.", "Mirando: las manos siguen ocultas.", "Spectateur : les mains restent cachées.", "Zuschauen: Die Hände bleiben verdeckt.", "Toekijken: de handen blijven verborgen."],
  pickPlays: ["Pick cards in your hand to see the plays they make ({n} possible now).", "Elige cartas de tu mano para ver las jugadas que forman ({n} posibles ahora).", "Choisissez des cartes de votre main pour voir les coups qu'elles forment ({n} possibles).", "Wähle Karten deiner Hand, um ihre Spielzüge zu sehen (jetzt {n} möglich).", "Kies kaarten uit je hand om te zien welke zetten ze vormen (nu {n} mogelijk)."],
  noPlay: ["These cards make no play that may be made now.", "Estas cartas no forman ninguna jugada posible ahora.", "Ces cartes ne forment aucun coup jouable maintenant.", "Diese Karten ergeben jetzt keinen erlaubten Zug.", "Deze kaarten vormen nu geen toegestane zet."],
  bidTake: ["this suit is trump and you are the maker: score more than the other player, or your points go to them", "este palo es triunfo y tú eliges: haz más puntos que el otro jugador o tus puntos serán suyos", "cette couleur est l'atout et vous prenez : marquez plus que l'autre joueur, sinon vos points sont pour lui", "diese Farbe ist Trumpf und du spielst: mach mehr Punkte als der andere, sonst gehen deine Punkte an ihn", "deze kleur is troef en jij speelt: haal meer punten dan de ander, anders gaan jouw punten naar hem"],
  bidPass: ["leave the choice of trump to the other player (after two rounds of passes the deal is thrown in)", "deja la elección del triunfo al otro jugador (tras dos rondas de pases se reparte de nuevo)", "laissez le choix de l'atout à l'autre joueur (après deux tours de passe, on redonne)", "überlasse die Trumpfwahl dem anderen (nach zwei Runden ohne Wahl wird neu gegeben)", "laat de keuze van troef aan de ander (na twee rondes passen wordt opnieuw gedeeld)"],
  dixSwap: ["swap your seven of trumps for the turned-up card", "cambia tu siete de triunfo por la carta vuelta", "échangez votre sept d'atout contre la carte retournée", "tausche deine Trumpfsieben gegen die aufgedeckte Karte", "ruil je troefzeven voor de omgedraaide kaart"],
  dixKeep: ["keep your hand as it is", "quédate la mano como está", "gardez votre main telle quelle", "behalte deine Hand, wie sie ist", "houd je hand zoals hij is"],
  clock: ["{who}: {left} left for this decision · bank {bank}", "{who}: quedan {left} para esta decisión · reserva {bank}", "{who} : {left} pour cette décision · réserve {bank}", "{who}: noch {left} für diese Entscheidung · Konto {bank}", "{who}: nog {left} voor deze beslissing · tijdbank {bank}"],
  stateWaiting: ["waiting for a person", "espera a una persona", "attend une personne", "wartet auf eine Person", "wacht op een persoon"],
  stateRunning: ["bots playing", "juegan los bots", "les robots jouent", "Bots spielen", "bots spelen"],
  stateOver: ["over", "terminada", "terminée", "vorbei", "afgelopen"],
  seatsN: ["{n} seats", "{n} asientos", "{n} places", "{n} Plätze", "{n} plaatsen"],
  watch: ["watch", "mirar", "regarder", "zuschauen", "kijken"],
  replayButton: ["replay", "repetir", "rejouer", "nachspielen", "herhalen"],
  noGames: ["No games yet.", "Aún no hay partidas.", "Pas encore de parties.", "Noch keine Spiele.", "Nog geen spellen."],
  needsKey: ["Listing games needs a service key on this service.", "Listar partidas necesita una clave de servicio aquí.", "Lister les parties demande une clé de service ici.", "Spiele aufzulisten braucht hier einen Dienstschlüssel.", "Spellen tonen vraagt hier een dienstsleutel."],
  listFailed: ["The games could not be listed.", "No se pudieron listar las partidas.", "Les parties n'ont pas pu être listées.", "Die Spiele konnten nicht aufgelistet werden.", "De spellen konden niet getoond worden."],
  person: ["person", "persona", "personne", "Person", "persoon"],
  heuristicBot: ["heuristic bot", "bot heurístico", "robot heuristique", "heuristischer Bot", "heuristische bot"],
  searchBot: ["search bot", "bot de búsqueda", "robot de recherche", "Such-Bot", "zoekbot"],
  randomBot: ["random bot", "bot aleatorio", "robot aléatoire", "Zufallsbot", "willekeurige bot"],
  copyInvite: ["copy invite link", "copiar enlace de invitación", "copier le lien d'invitation", "Einladungslink kopieren", "uitnodigingslink kopiëren"],
  copied: ["copied", "copiado", "copié", "kopiert", "gekopieerd"],
  openTab: ["open in a new tab", "abrir en otra pestaña", "ouvrir dans un nouvel onglet", "in neuem Tab öffnen", "in een nieuw tabblad openen"],
  moveOf: ["move {i} of {n} (version {v})", "jugada {i} de {n} (versión {v})", "coup {i} sur {n} (version {v})", "Zug {i} von {n} (Version {v})", "zet {i} van {n} (versie {v})"],
  total: ["total", "total", "total", "gesamt", "totaal"],
  thisHand: ["this hand", "esta mano", "cette donne", "dieses Spiel", "deze ronde"],
  tricks: ["tricks", "bazas", "plis", "Stiche", "slagen"],
  cardPoints: ["card points", "puntos de cartas", "points de cartes", "Kartenpunkte", "kaartpunten"],
  levelRow: ["level", "nivel", "niveau", "Stufe", "niveau"],
  cardsLeft: ["cards left", "cartas restantes", "cartes restantes", "Karten übrig", "kaarten over"],
  wild: ["wild card", "comodín", "carte joker", "Joker-Karte", "wildcard"],
} satisfies Record<string, Words>;

export type Key = keyof typeof WORDS;

let current: Language = "en";

/** The language to start in: the one saved, else the browser's if the service speaks it. */
export function startingLanguage(): Language {
  const saved = window.localStorage.getItem("language");
  const wanted = [saved, ...navigator.languages.map((tag) => tag.slice(0, 2).toLowerCase())];
  return (wanted.find((tag) => (LANGUAGES as readonly string[]).includes(tag ?? "")) ?? "en") as Language;
}

export function setLanguage(language: Language): void {
  current = language;
  window.localStorage.setItem("language", language);
  document.documentElement.lang = language;
}

export const language = (): Language => current;

/** ``key``'s words in the current language, each ``{name}`` filled from ``values``. */
export function t(key: Key, values: Record<string, string | number> = {}): string {
  const words = WORDS[key][LANGUAGES.indexOf(current)];
  return words.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? `{${name}}`));
}
