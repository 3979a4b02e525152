"""A short name for every rule ID of the specs in ``seeds/``, in every language.

A refusal cites the rule it enforces (``ruleId`` in its ``ErrorInfo`` metadata); these names
say in a few words what that rule is about, so "H-R4" can be shown as "play in turn and
follow suit". They are our own summaries, not the specs' wording. Each value lists the texts
in the order en, es, fr, de, nl.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from engine_service.i18n.languages import ENGLISH, SUPPORTED

_NAMES: Final[Mapping[str, tuple[str, str, str, str, str]]] = MappingProxyType(
    {
        # Hearts (seeds/hearts.md)
        "H-R1": (
            "four players, 52 cards, only cards held may be used",
            "cuatro jugadores, 52 cartas, solo se usan cartas de la mano",
            "quatre joueurs, 52 cartes, seules les cartes en main comptent",
            "vier Spieler, 52 Karten, nur Karten aus dem eigenen Blatt",
            "vier spelers, 52 kaarten, alleen kaarten uit de eigen hand",
        ),
        "H-R2": (
            "passing three cards before each hand",
            "pasar tres cartas antes de cada mano",
            "passer trois cartes avant chaque manche",
            "drei Karten vor jeder Runde weitergeben",
            "drie kaarten doorgeven voor elke ronde",
        ),
        "H-R3": (
            "the two of clubs leads the first trick",
            "el dos de tréboles abre la primera baza",
            "le deux de trèfle entame le premier pli",
            "die Kreuz-Zwei eröffnet den ersten Stich",
            "klaverentwee opent de eerste slag",
        ),
        "H-R4": (
            "play in turn and follow suit",
            "jugar por turno y seguir el palo",
            "jouer à son tour et fournir la couleur",
            "der Reihe nach spielen und Farbe bedienen",
            "op je beurt spelen en kleur bekennen",
        ),
        "H-R5": (
            "no queen of spades on the first trick",
            "nada de dama de picas en la primera baza",
            "pas de dame de pique au premier pli",
            "keine Pik-Dame im ersten Stich",
            "geen schoppenvrouw in de eerste slag",
        ),
        "H-R5a": (
            "option: no hearts on the first trick either",
            "opción: tampoco corazones en la primera baza",
            "option : pas de cœur non plus au premier pli",
            "Option: auch kein Herz im ersten Stich",
            "optie: ook geen harten in de eerste slag",
        ),
        "H-R5b": (
            "the ban lifts when every playable card is banned",
            "la prohibición se levanta si todas las cartas jugables están prohibidas",
            "l'interdiction tombe si toutes les cartes jouables sont interdites",
            "das Verbot entfällt, wenn jede spielbare Karte verboten ist",
            "het verbod vervalt als elke speelbare kaart verboden is",
        ),
        "H-R6": (
            "the highest card of the suit led wins the trick",
            "gana la baza la carta más alta del palo de salida",
            "la plus forte carte de la couleur demandée remporte le pli",
            "die höchste Karte der ausgespielten Farbe gewinnt den Stich",
            "de hoogste kaart van de gevraagde kleur wint de slag",
        ),
        "H-R7": (
            "hearts are led only once broken",
            "solo se sale con corazones cuando ya se han roto",
            "on n'entame à cœur qu'une fois les cœurs ouverts",
            "Herz wird erst ausgespielt, wenn Herz gebrochen ist",
            "pas met harten uitkomen als harten gebroken is",
        ),
        "H-R8": (
            "a leader holding nothing but hearts",
            "quien sale teniendo solo corazones",
            "l'entameur qui n'a que des cœurs",
            "ein Ausspieler, der nur Herz hat",
            "een uitkomer met alleen harten",
        ),
        "H-R9": (
            "the queen of spades is a spade",
            "la dama de picas es una pica",
            "la dame de pique est un pique",
            "die Pik-Dame ist ein Pik",
            "schoppenvrouw is een schoppen",
        ),
        "H-R10": (
            "one point per heart, thirteen for the queen of spades",
            "un punto por corazón, trece por la dama de picas",
            "un point par cœur, treize pour la dame de pique",
            "ein Punkt pro Herz, dreizehn für die Pik-Dame",
            "één punt per harten, dertien voor schoppenvrouw",
        ),
        "H-R11": (
            "shooting the moon",
            "tirar a la luna",
            "tirer la lune",
            "den Mond schießen",
            "de maan schieten",
        ),
        "H-R12": (
            "the game ends at the target; the lowest total wins",
            "la partida acaba al alcanzar el objetivo; gana el total más bajo",
            "la partie s'arrête à l'objectif ; le plus petit total gagne",
            "das Spiel endet am Zielwert; die niedrigste Summe gewinnt",
            "het spel eindigt bij het doel; het laagste totaal wint",
        ),
        "H-R13": (
            "classic variant: tied players share the win",
            "variante clásica: los empatados comparten la victoria",
            "variante classique : les ex æquo partagent la victoire",
            "klassische Variante: Gleichstand teilt den Sieg",
            "klassieke variant: gelijke spelers delen de winst",
        ),
        "H-R14": (
            "everyone keeps a chance to win",
            "todos conservan una opción de ganar",
            "chacun garde une chance de gagner",
            "jeder behält eine Chance auf den Sieg",
            "iedereen houdt een kans om te winnen",
        ),
        "H-R15": (
            "a perfect hand brings another hand",
            "una mano perfecta obliga a jugar otra mano",
            "une manche parfaite entraîne une autre manche",
            "eine perfekte Runde erzwingt eine weitere Runde",
            "een perfecte ronde levert nog een ronde op",
        ),
        "H-R15a": (
            "who counts as the leader",
            "quién cuenta como líder",
            "qui compte comme meneur",
            "wer als Führender zählt",
            "wie als leider telt",
        ),
        "H-R15b": (
            "option: the leader is who opened the hand",
            "opción: el líder es quien abrió la mano",
            "option : le meneur est celui qui a ouvert la manche",
            "Option: Führender ist, wer die Runde eröffnet hat",
            "optie: de leider is wie de ronde opende",
        ),
        "H-R15c": (
            "shooting the moon counts as a perfect hand",
            "tirar a la luna cuenta como mano perfecta",
            "tirer la lune compte comme une manche parfaite",
            "der Mondschuss zählt als perfekte Runde",
            "de maan schieten telt als perfecte ronde",
        ),
        "H-R16": (
            "a shared lowest total brings another hand",
            "un empate en el total más bajo obliga a jugar otra mano",
            "un plus petit total partagé entraîne une autre manche",
            "eine geteilte niedrigste Summe erzwingt eine weitere Runde",
            "een gedeeld laagste totaal levert nog een ronde op",
        ),
        "H-R17": (
            "the end of each hand and of the game",
            "el final de cada mano y de la partida",
            "la fin de chaque manche et de la partie",
            "das Ende jeder Runde und des Spiels",
            "het einde van elke ronde en van het spel",
        ),
        # Guandan (seeds/guandan.md)
        "G-R1": (
            "four players in two teams, two decks, only cards held may be used",
            "cuatro jugadores en dos equipos, dos barajas, solo se usan cartas de la mano",
            "quatre joueurs en deux équipes, deux jeux, seules les cartes en main comptent",
            "vier Spieler in zwei Teams, zwei Decks, nur Karten aus dem eigenen Blatt",
            "vier spelers in twee teams, twee kaartspellen, alleen kaarten uit de eigen hand",
        ),
        "G-R2": (
            "the turn passes to the next seat",
            "el turno pasa al asiento siguiente",
            "le tour passe à la place suivante",
            "der Zug geht an den nächsten Platz",
            "de beurt gaat naar de volgende plaats",
        ),
        "G-R3": (
            "the order of the ranks",
            "el orden de los rangos",
            "l'ordre des rangs",
            "die Reihenfolge der Ränge",
            "de volgorde van de rangen",
        ),
        "G-R4": (
            "team levels and the declaring team",
            "los niveles de los equipos y el equipo declarante",
            "les niveaux des équipes et l'équipe déclarante",
            "die Stufen der Teams und das ansagende Team",
            "de niveaus van de teams en het spelende team",
        ),
        "G-R5": (
            "the hearts of the level rank are wild",
            "los corazones del rango del nivel son cartas libres",
            "les cœurs du rang du niveau sont des cartes libres",
            "die Herzkarten des Stufenrangs sind Wildkarten",
            "de harten van de niveaurang zijn wilde kaarten",
        ),
        "G-R6": (
            "wild cards played alone or as a pair",
            "cartas libres jugadas solas o en pareja",
            "cartes libres jouées seules ou en paire",
            "Wildkarten allein oder als Paar gespielt",
            "wilde kaarten alleen of als paar gespeeld",
        ),
        "G-R7": (
            "sequences use natural ranks and never wrap around",
            "las secuencias usan rangos naturales y no dan la vuelta",
            "les suites utilisent les rangs naturels et ne bouclent jamais",
            "Folgen nutzen natürliche Ränge und laufen nie herum",
            "reeksen gebruiken natuurlijke rangen en lopen nooit rond",
        ),
        "G-R8": (
            "the legal combinations",
            "las combinaciones válidas",
            "les combinaisons permises",
            "die erlaubten Kombinationen",
            "de geldige combinaties",
        ),
        "G-R9": (
            "combinations that are never legal",
            "combinaciones que nunca son válidas",
            "les combinaisons jamais permises",
            "Kombinationen, die nie erlaubt sind",
            "combinaties die nooit geldig zijn",
        ),
        "G-R10": (
            "joker pairs",
            "parejas de comodines",
            "les paires de jokers",
            "Jokerpaare",
            "jokerparen",
        ),
        "G-R11": (
            "full houses",
            "el full",
            "le full",
            "das Full House",
            "de full house",
        ),
        "G-R12": (
            "how plays are compared",
            "cómo se comparan las jugadas",
            "comment les coups se comparent",
            "wie Kombinationen verglichen werden",
            "hoe zetten worden vergeleken",
        ),
        "G-R13": (
            "declaring what the cards count as",
            "declarar qué valen las cartas",
            "annoncer ce que valent les cartes",
            "ansagen, als was die Karten zählen",
            "opgeven waarvoor de kaarten tellen",
        ),
        "G-R13a": (
            "plays that count as the same play",
            "jugadas que cuentan como la misma",
            "les coups qui comptent comme le même coup",
            "Kombinationen, die als dieselbe gelten",
            "zetten die als dezelfde zet gelden",
        ),
        "G-R14": (
            "bombs",
            "las bombas",
            "les bombes",
            "Bomben",
            "bommen",
        ),
        "G-R15": (
            "straight flushes and the four jokers",
            "las escaleras de color y los cuatro comodines",
            "les quintes flush et les quatre jokers",
            "Straight Flushes und die vier Joker",
            "kleurstraten en de vier jokers",
        ),
        "G-R16": (
            "what beats the play on the table",
            "qué supera la jugada de la mesa",
            "ce qui bat le coup sur la table",
            "was die Kombination auf dem Tisch schlägt",
            "wat de zet op tafel verslaat",
        ),
        "G-R17": (
            "the leader plays; the others may pass",
            "quien abre juega; los demás pueden pasar",
            "l'entameur joue ; les autres peuvent passer",
            "wer eröffnet, spielt; die anderen dürfen passen",
            "de uitkomer speelt; de anderen mogen passen",
        ),
        "G-R18": (
            "finished players are skipped; who wins a trick",
            "se salta a quien ya ha terminado; quién gana la baza",
            "les joueurs sortis sont sautés ; qui remporte le pli",
            "fertige Spieler werden übersprungen; wer den Stich gewinnt",
            "uitgespeelde spelers worden overgeslagen; wie de slag wint",
        ),
        "G-R19": (
            "jiefeng: the partner takes over the lead",
            "jiefeng: el compañero toma la salida",
            "jiefeng : le partenaire prend la main",
            "Jiefeng: der Partner übernimmt das Ausspiel",
            "jiefeng: de partner neemt het uitkomen over",
        ),
        "G-R20": (
            "one's last cards must form one legal play",
            "las últimas cartas deben formar una jugada válida",
            "les dernières cartes doivent former un seul coup permis",
            "die letzten Karten müssen eine erlaubte Kombination bilden",
            "de laatste kaarten moeten één geldige zet vormen",
        ),
        "G-R21": (
            "partners first and second end the deal at once",
            "si los compañeros acaban primero y segundo, la mano termina",
            "des partenaires premier et deuxième terminent la donne",
            "Partner auf Platz eins und zwei beenden das Spiel sofort",
            "partners als eerste en tweede beëindigen de ronde meteen",
        ),
        "G-R22": (
            "otherwise the deal ends when a third player finishes",
            "si no, la mano termina cuando acaba un tercer jugador",
            "sinon la donne s'arrête quand un troisième joueur sort",
            "sonst endet das Spiel, wenn ein dritter Spieler fertig ist",
            "anders eindigt de ronde als een derde speler uit is",
        ),
        "G-R23": (
            "who sees how many cards each seat holds",
            "quién ve cuántas cartas tiene cada asiento",
            "qui voit combien de cartes chaque place détient",
            "wer sieht, wie viele Karten jeder Platz hat",
            "wie ziet hoeveel kaarten elke plaats heeft",
        ),
        "G-R24": (
            "how far the winning team goes up",
            "cuánto sube el equipo ganador",
            "de combien l'équipe gagnante monte",
            "wie weit das siegreiche Team aufsteigt",
            "hoeveel het winnende team stijgt",
        ),
        "G-R25": (
            "levels stop at the ace",
            "los niveles se detienen en el as",
            "les niveaux s'arrêtent à l'as",
            "die Stufen enden beim Ass",
            "de niveaus stoppen bij de aas",
        ),
        "G-R26": (
            "winning the match at the ace",
            "ganar la partida en el as",
            "gagner le match à l'as",
            "das Match beim Ass gewinnen",
            "de wedstrijd winnen bij de aas",
        ),
        "G-R27": (
            "failing at the ace",
            "fallar en el as",
            "échouer à l'as",
            "Scheitern beim Ass",
            "falen bij de aas",
        ),
        "G-R28": (
            "no bonus for bombs; a new match starts at two",
            "sin premio por bombas; una partida nueva empieza en el dos",
            "pas de prime pour les bombes ; un nouveau match commence à deux",
            "kein Bonus für Bomben; ein neues Match beginnt bei Zwei",
            "geen bonus voor bommen; een nieuwe wedstrijd begint bij twee",
        ),
        "G-R29": (
            "no tribute in the first deal",
            "sin tributo en la primera mano",
            "pas de tribut à la première donne",
            "kein Tribut im ersten Spiel",
            "geen tribuut in de eerste ronde",
        ),
        "G-R30": (
            "tribute from the second deal on",
            "tributo desde la segunda mano",
            "le tribut à partir de la deuxième donne",
            "Tribut ab dem zweiten Spiel",
            "tribuut vanaf de tweede ronde",
        ),
        "G-R31": (
            "single tribute",
            "tributo simple",
            "le tribut simple",
            "einfacher Tribut",
            "enkel tribuut",
        ),
        "G-R32": (
            "double tribute",
            "tributo doble",
            "le tribut double",
            "doppelter Tribut",
            "dubbel tribuut",
        ),
        "G-R33": (
            "anti-tribute with the red jokers",
            "antitributo con los comodines rojos",
            "l'anti-tribut avec les jokers rouges",
            "Anti-Tribut mit den roten Jokern",
            "antitribuut met de rode jokers",
        ),
        "G-R34": (
            "the tribute card is forced",
            "la carta del tributo es obligada",
            "la carte de tribut est imposée",
            "die Tributkarte ist vorgegeben",
            "de tribuutkaart ligt vast",
        ),
        "G-R35": (
            "returning a card after tribute",
            "devolver una carta tras el tributo",
            "rendre une carte après le tribut",
            "nach dem Tribut eine Karte zurückgeben",
            "een kaart teruggeven na het tribuut",
        ),
        "G-R35a": (
            "option: no card of the level rank may be returned",
            "opción: no se devuelven cartas del rango del nivel",
            "option : aucune carte du rang du niveau ne se rend",
            "Option: keine Karte des Stufenrangs zurückgeben",
            "optie: geen kaart van de niveaurang teruggeven",
        ),
        "G-R35b": (
            "option: the tribute card itself may go back",
            "opción: se puede devolver la misma carta del tributo",
            "option : la carte de tribut elle-même peut être rendue",
            "Option: die Tributkarte selbst darf zurück",
            "optie: de tribuutkaart zelf mag terug",
        ),
        "G-R35c": (
            "play waits for every return",
            "el juego espera todas las devoluciones",
            "le jeu attend tous les retours",
            "das Spiel wartet auf alle Rückgaben",
            "het spel wacht op alle teruggaven",
        ),
        "G-R36": (
            "who leads after tribute",
            "quién abre tras el tributo",
            "qui entame après le tribut",
            "wer nach dem Tribut ausspielt",
            "wie na het tribuut uitkomt",
        ),
        "G-R37": (
            "tribute and returned cards are public",
            "el tributo y las cartas devueltas son públicos",
            "le tribut et les cartes rendues sont publics",
            "Tribut und zurückgegebene Karten sind öffentlich",
            "tribuut en teruggegeven kaarten zijn openbaar",
        ),
        # Klaberjass (seeds/klaberjass.md)
        "K-R1": (
            "two players, 32 cards, only cards held may be used",
            "dos jugadores, 32 cartas, solo se usan cartas de la mano",
            "deux joueurs, 32 cartes, seules les cartes en main comptent",
            "zwei Spieler, 32 Karten, nur Karten aus dem eigenen Blatt",
            "twee spelers, 32 kaarten, alleen kaarten uit de eigen hand",
        ),
        "K-R2": (
            "the order of the cards",
            "el orden de las cartas",
            "l'ordre des cartes",
            "die Rangfolge der Karten",
            "de volgorde van de kaarten",
        ),
        "K-R3": (
            "card points",
            "los puntos de las cartas",
            "les points des cartes",
            "die Kartenpunkte",
            "de kaartpunten",
        ),
        "K-R4": (
            "the deal and the turned-up card",
            "el reparto y la carta vuelta",
            "la donne et la carte retournée",
            "das Geben und die aufgedeckte Karte",
            "het delen en de omgedraaide kaart",
        ),
        "K-R5": (
            "first round of bidding: only the turned suit",
            "primera ronda de subasta: solo el palo vuelto",
            "premier tour d'enchères : seulement la couleur retournée",
            "erste Reizrunde: nur die aufgedeckte Farbe",
            "eerste biedronde: alleen de omgedraaide kleur",
        ),
        "K-R6": (
            "second round of bidding: any other suit",
            "segunda ronda de subasta: cualquier otro palo",
            "second tour d'enchères : toute autre couleur",
            "zweite Reizrunde: jede andere Farbe",
            "tweede biedronde: elke andere kleur",
        ),
        "K-R7": (
            "both pass twice: the hand is thrown in",
            "ambos pasan dos veces: la mano se anula",
            "les deux passent deux fois : la donne est annulée",
            "beide passen zweimal: das Spiel wird eingeworfen",
            "beiden passen twee keer: de ronde vervalt",
        ),
        "K-R8": (
            "no schmeiss",
            "sin schmeiss",
            "pas de schmeiss",
            "kein Schmeiss",
            "geen schmeiss",
        ),
        "K-R9": (
            "the maker must outscore the opponent",
            "quien elige el triunfo debe superar al rival",
            "le preneur doit marquer plus que l'adversaire",
            "der Trumpfwähler muss mehr erzielen als der Gegner",
            "de troefkiezer moet meer scoren dan de tegenstander",
        ),
        "K-R10": (
            "three more cards each once trump is chosen",
            "tres cartas más para cada uno tras elegir el triunfo",
            "trois cartes de plus chacun une fois l'atout choisi",
            "nach der Trumpfwahl drei weitere Karten für jeden",
            "na de troefkeuze elk drie kaarten extra",
        ),
        "K-R11": (
            "the dix: swapping the trump seven",
            "el dix: cambiar el siete de triunfo",
            "le dix : échanger le sept d'atout",
            "der Dix: die Trumpf-Sieben tauschen",
            "de dix: de troefzeven ruilen",
        ),
        "K-R12": (
            "sequences and their points",
            "las secuencias y sus puntos",
            "les séquences et leurs points",
            "Sequenzen und ihre Punkte",
            "reeksen en hun punten",
        ),
        "K-R13": (
            "comparing sequences",
            "comparar secuencias",
            "comparer les séquences",
            "Sequenzen vergleichen",
            "reeksen vergelijken",
        ),
        "K-R14": (
            "declaring or concealing sequences",
            "declarar u ocultar secuencias",
            "annoncer ou cacher ses séquences",
            "Sequenzen ansagen oder verschweigen",
            "reeksen melden of verzwijgen",
        ),
        "K-R15": (
            "bella: the trump king and queen",
            "bella: el rey y la dama de triunfo",
            "belote : le roi et la dame d'atout",
            "Bella: Trumpf-König und Trumpf-Dame",
            "bella: troefheer en troefvrouw",
        ),
        "K-R16": (
            "play: nine tricks, the non-dealer leads",
            "el juego: nueve bazas, sale quien no reparte",
            "le jeu : neuf plis, le non-donneur entame",
            "das Spiel: neun Stiche, der Nichtgeber spielt aus",
            "het spel: negen slagen, de niet-gever komt uit",
        ),
        "K-R17": (
            "follow suit, otherwise trump",
            "seguir el palo o, si no, triunfar",
            "fournir la couleur, sinon couper",
            "Farbe bedienen, sonst trumpfen",
            "kleur bekennen, anders troeven",
        ),
        "K-R18": (
            "beat a trump lead when able",
            "superar un triunfo de salida cuando se pueda",
            "monter sur un atout entamé si possible",
            "einen ausgespielten Trumpf wenn möglich übertrumpfen",
            "een uitgekomen troef zo mogelijk overtroeven",
        ),
        "K-R19": (
            "who wins a trick; ten for the last one",
            "quién gana una baza; diez por la última",
            "qui remporte un pli ; dix de der",
            "wer einen Stich gewinnt; zehn für den letzten",
            "wie een slag wint; tien voor de laatste",
        ),
        "K-R20": (
            "scoring a deal",
            "la puntuación de una mano",
            "le décompte d'une donne",
            "die Abrechnung eines Spiels",
            "de telling van een ronde",
        ),
        "K-R21": (
            "the end of the game at the target",
            "el final de la partida al alcanzar el objetivo",
            "la fin de la partie à l'objectif",
            "das Spielende am Zielwert",
            "het einde van het spel bij het doel",
        ),
    }
)

RULE_NAMES: Final[Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        rule_id: MappingProxyType(dict(zip(SUPPORTED, texts, strict=True)))
        for rule_id, texts in _NAMES.items()
    }
)
"""Every rule ID of ``seeds/*.md``: its short name by language."""


def rule_name(rule_id: str, language: str) -> str | None:
    """The short name of a rule in ``language`` (English if unsupported); ``None`` if unknown.

    >>> rule_name("H-R4", "fr"), rule_name("X-R9", "fr")
    ('jouer à son tour et fournir la couleur', None)
    """
    names = RULE_NAMES.get(rule_id)
    if names is None:
        return None
    return names.get(language, names[ENGLISH])
