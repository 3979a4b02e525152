"""A message for every error reason in every language, with the refusal's particulars.

Each reason has one or more *variants*, tried in order: a variant is used when the metadata
holds every particular it names (``{led_suit}``, ``{card}``...), and the last variant of each
reason names none, so there is always a message. The particulars come from the violation's
metadata exactly as the rules put it there (``led_suit="C"``, ``card="QS"``,
``reading="pair:8:2"``) and are put into words by :func:`particular`.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final

from engine_service.i18n.cards import card_list, card_name, reading_list, reading_name, suit_name
from engine_service.i18n.languages import ENGLISH, SUPPORTED

Texts = Mapping[str, str]
"""One text per language code."""


def _t(en: str, es: str, fr: str, de: str, nl: str) -> Texts:
    return MappingProxyType({"en": en, "es": es, "fr": fr, "de": de, "nl": nl})


_WORDS: Final[Mapping[str, Callable[[str, str], str]]] = MappingProxyType(
    {
        "card": card_name,
        "led_card": card_name,
        "cards": card_list,
        "led_suit": suit_name,
        "turned_suit": suit_name,
        "trump": suit_name,
        "reading": reading_name,
        "top": reading_name,
        "allowed": reading_list,
    }
)
"""How each metadata key is put into words; other keys (seats, versions, fields) stay as sent."""

REASONS: Final[Mapping[str, tuple[Texts, ...]]] = MappingProxyType(
    {
        "UNSPECIFIED": (
            _t(
                "The request was refused.",
                "La solicitud fue rechazada.",
                "La demande a été refusée.",
                "Die Anfrage wurde abgelehnt.",
                "Het verzoek is geweigerd.",
            ),
        ),
        "INVALID_FIELD": (
            _t(
                "The request field {field} is missing or not understood.",
                "El campo {field} de la solicitud falta o no se entiende.",
                "Le champ {field} de la demande manque ou n'est pas compris.",
                "Das Feld {field} der Anfrage fehlt oder ist unverständlich.",
                "Het veld {field} van het verzoek ontbreekt of is onbegrijpelijk.",
            ),
            _t(
                "A field of the request is missing or not understood.",
                "Falta un campo de la solicitud o no se entiende.",
                "Un champ de la demande manque ou n'est pas compris.",
                "Ein Feld der Anfrage fehlt oder ist unverständlich.",
                "Een veld van het verzoek ontbreekt of is onbegrijpelijk.",
            ),
        ),
        "GAME_NOT_FOUND": (
            _t(
                "There is no such game, or it has expired.",
                "Esa partida no existe o ha caducado.",
                "Cette partie n'existe pas ou a expiré.",
                "Dieses Spiel gibt es nicht, oder es ist abgelaufen.",
                "Dit spel bestaat niet of is verlopen.",
            ),
        ),
        "TOKEN_MISSING": (
            _t(
                "Send the seat's token (metadata x-seat-token) to look at or act for a seat.",
                "Envía el token del asiento (metadato x-seat-token) para verlo o jugar por él.",
                "Envoyez le jeton de la place (métadonnée x-seat-token) pour la voir ou y jouer.",
                "Sende das Token des Platzes (Metadatum x-seat-token), um ihn zu sehen oder "
                "für ihn zu spielen.",
                "Stuur het token van de plaats mee (metadata x-seat-token) om die te bekijken "
                "of ervoor te spelen.",
            ),
        ),
        "TOKEN_INVALID": (
            _t(
                "This token belongs to no seat of this game.",
                "Este token no pertenece a ningún asiento de esta partida.",
                "Ce jeton ne correspond à aucune place de cette partie.",
                "Dieses Token gehört zu keinem Platz dieses Spiels.",
                "Dit token hoort bij geen enkele plaats van dit spel.",
            ),
        ),
        "SEAT_NOT_YOURS": (
            _t(
                "This seat is not yours: the token is another seat's, or a bot plays it.",
                "Este asiento no es tuyo: el token es de otro asiento o lo juega un bot.",
                "Cette place n'est pas la vôtre : le jeton est celui d'une autre place, "
                "ou un bot la joue.",
                "Dieser Platz gehört dir nicht: Das Token ist das eines anderen Platzes, "
                "oder ein Bot spielt ihn.",
                "Deze plaats is niet van jou: het token hoort bij een andere plaats, "
                "of een bot speelt haar.",
            ),
        ),
        "VERSION_MISMATCH": (
            _t(
                "The game has moved on: you acted on version {expectedVersion} and it is now "
                "at version {currentVersion}. Reload and decide again.",
                "La partida ha avanzado: actuaste sobre la versión {expectedVersion} y ya va "
                "por la versión {currentVersion}. Vuelve a cargarla y decide de nuevo.",
                "La partie a avancé : vous avez agi sur la version {expectedVersion} et elle "
                "en est à la version {currentVersion}. Rechargez-la et décidez à nouveau.",
                "Das Spiel ist weitergegangen: Du hast auf Version {expectedVersion} gehandelt, "
                "jetzt steht es bei Version {currentVersion}. Lade neu und entscheide noch einmal.",
                "Het spel is verder gegaan: je handelde op versie {expectedVersion} en het staat "
                "nu op versie {currentVersion}. Laad opnieuw en beslis nog eens.",
            ),
            _t(
                "The game has moved on since the version you acted on. Reload and decide again.",
                "La partida ha avanzado desde la versión sobre la que actuaste. Vuelve a "
                "cargarla y decide de nuevo.",
                "La partie a avancé depuis la version sur laquelle vous avez agi. Rechargez-la "
                "et décidez à nouveau.",
                "Das Spiel ist seit der Version, auf die du gehandelt hast, weitergegangen. "
                "Lade neu und entscheide noch einmal.",
                "Het spel is verder gegaan sinds de versie waarop je handelde. Laad opnieuw en "
                "beslis nog eens.",
            ),
        ),
        "VERSION_EXPIRED": (
            _t(
                "The versions asked for are no longer kept; reload the view and watch again "
                "from its version.",
                "Las versiones pedidas ya no se guardan; vuelve a cargar la vista y observa de "
                "nuevo desde su versión.",
                "Les versions demandées ne sont plus conservées ; rechargez la vue et suivez "
                "de nouveau à partir de sa version.",
                "Die verlangten Versionen werden nicht mehr aufbewahrt; lade die Ansicht neu "
                "und beobachte ab ihrer Version weiter.",
                "De gevraagde versies worden niet meer bewaard; laad de weergave opnieuw en "
                "volg verder vanaf haar versie.",
            ),
        ),
        "WATCHER_TOO_SLOW": (
            _t(
                "The updates were read too slowly; watch again from the last version received.",
                "Las actualizaciones se leyeron demasiado despacio; vuelve a observar desde la "
                "última versión recibida.",
                "Les mises à jour ont été lues trop lentement ; suivez de nouveau à partir de "
                "la dernière version reçue.",
                "Die Aktualisierungen wurden zu langsam gelesen; beobachte ab der zuletzt "
                "erhaltenen Version weiter.",
                "De updates werden te traag gelezen; volg opnieuw vanaf de laatst ontvangen "
                "versie.",
            ),
        ),
        "SHUTTING_DOWN": (
            _t(
                "The server is shutting down and did not carry out this request; it may be sent "
                "again (to another server).",
                "El servidor se está apagando y no ha llevado a cabo esta solicitud; puede "
                "enviarse de nuevo (a otro servidor).",
                "Le serveur s'arrête et n'a pas exécuté cette requête ; elle peut être envoyée "
                "de nouveau (à un autre serveur).",
                "Der Server fährt herunter und hat diese Anfrage nicht ausgeführt; sie kann "
                "erneut gesendet werden (an einen anderen Server).",
                "De server wordt afgesloten en heeft dit verzoek niet uitgevoerd; het kan "
                "opnieuw worden verstuurd (naar een andere server).",
            ),
        ),
        "STORAGE_UNAVAILABLE": (
            _t(
                "The game storage cannot be reached right now; nothing was changed, try again.",
                "No se puede acceder al almacén de partidas en este momento; no se cambió "
                "nada, inténtalo de nuevo.",
                "Le stockage des parties est injoignable pour le moment ; rien n'a changé, "
                "réessayez.",
                "Der Spielspeicher ist gerade nicht erreichbar; nichts wurde geändert, "
                "versuche es erneut.",
                "De spelopslag is nu niet bereikbaar; er is niets veranderd, probeer het opnieuw.",
            ),
        ),
        "NO_SEARCH_BOT": (
            _t(
                "This service offers no search bot for this game, so it suggests no moves.",
                "Este servicio no ofrece bot de búsqueda para este juego, así que no sugiere "
                "jugadas.",
                "Ce service n'offre pas de bot de recherche pour ce jeu ; il ne suggère donc "
                "aucun coup.",
                "Dieser Dienst bietet für dieses Spiel keinen Suchbot an und schlägt daher "
                "keine Züge vor.",
                "Deze dienst biedt voor dit spel geen zoekbot aan en stelt dus geen zetten voor.",
            ),
        ),
        "STORAGE_FULL": (
            _t(
                "The game storage is full; nothing was changed. Retrying will not help until "
                "the service's operator makes room.",
                "El almacén de partidas está lleno; no se cambió nada. Reintentar no servirá "
                "hasta que el operador del servicio libere espacio.",
                "Le stockage des parties est plein ; rien n'a changé. Réessayer ne servira à "
                "rien tant que l'exploitant du service n'aura pas libéré de la place.",
                "Der Spielspeicher ist voll; nichts wurde geändert. Ein neuer Versuch hilft "
                "erst, wenn der Betreiber des Dienstes Platz schafft.",
                "De spelopslag is vol; er is niets veranderd. Opnieuw proberen helpt pas als "
                "de beheerder van de dienst ruimte maakt.",
            ),
        ),
        "INTERNAL": (
            _t(
                "An internal error occurred in the service.",
                "Se produjo un error interno en el servicio.",
                "Une erreur interne s'est produite dans le service.",
                "Im Dienst ist ein interner Fehler aufgetreten.",
                "Er is een interne fout opgetreden in de dienst.",
            ),
        ),
        "ADMIN_TOKEN_INVALID": (
            _t(
                "This needs the game's admin token or a service key.",
                "Hace falta el token de administración de la partida o una clave de servicio.",
                "Il faut le jeton d'administration de la partie ou une clé de service.",
                "Dafür braucht es das Admin-Token des Spiels oder einen Dienstschlüssel.",
                "Hiervoor is het beheertoken van het spel of een dienstsleutel nodig.",
            ),
        ),
        "SERVICE_KEY_INVALID": (
            _t(
                "This needs one of the service's keys.",
                "Hace falta una de las claves del servicio.",
                "Il faut une des clés du service.",
                "Dafür braucht es einen der Schlüssel des Dienstes.",
                "Hiervoor is een van de sleutels van de dienst nodig.",
            ),
        ),
        "SEAT_PLAYED_BY_BOT": (
            _t(
                "A bot plays this seat now.",
                "Ahora un bot juega este asiento.",
                "Un bot joue cette place maintenant.",
                "Diesen Platz spielt jetzt ein Bot.",
                "Deze plaats wordt nu door een bot gespeeld.",
            ),
        ),
        "NOTHING_TO_CHANGE": (
            _t(
                "Nothing would change: the seat is already played that way.",
                "No cambiaría nada: el asiento ya se juega así.",
                "Rien ne changerait : la place est déjà jouée ainsi.",
                "Es würde sich nichts ändern: Der Platz wird schon so gespielt.",
                "Er zou niets veranderen: de plaats wordt al zo gespeeld.",
            ),
        ),
        "GAME_NOT_OVER": (
            _t(
                "Only a finished game can be rematched.",
                "Solo se puede repetir una partida terminada.",
                "Seule une partie terminée peut être rejouée.",
                "Nur ein beendetes Spiel kann neu aufgelegt werden.",
                "Alleen een afgelopen spel kan opnieuw worden gespeeld.",
            ),
        ),
        "ALREADY_REMATCHED": (
            _t(
                "This game already has a rematch: {rematchId}.",
                "Esta partida ya tiene revancha: {rematchId}.",
                "Cette partie a déjà une revanche : {rematchId}.",
                "Dieses Spiel hat schon eine Revanche: {rematchId}.",
                "Dit spel heeft al een revanche: {rematchId}.",
            ),
            _t(
                "This game already has a rematch.",
                "Esta partida ya tiene revancha.",
                "Cette partie a déjà une revanche.",
                "Dieses Spiel hat schon eine Revanche.",
                "Dit spel heeft al een revanche.",
            ),
        ),
        "NO_FORFEIT_IN_GAME": (
            _t(
                "This game has no forfeit, so a clock cannot forfeit.",
                "Este juego no tiene abandono por derrota, así que el reloj no puede darla.",
                "Ce jeu n'a pas de forfait, une pendule ne peut donc pas le déclarer.",
                "Dieses Spiel kennt keine Aufgabe, also kann eine Uhr keine auslösen.",
                "Dit spel kent geen opgave, dus een klok kan er geen geven.",
            ),
        ),
        "REQUEST_UNDECODABLE": (
            _t(
                "The request could not be read: its bytes are not the message this call takes.",
                "No se pudo leer la solicitud: sus bytes no son el mensaje de esta llamada.",
                "La demande est illisible : ses octets ne sont pas le message qu'attend cet appel.",
                "Die Anfrage ist unlesbar: Ihre Bytes sind nicht die Nachricht dieses Aufrufs.",
                "Het verzoek is onleesbaar: de bytes zijn niet het bericht van deze aanroep.",
            ),
        ),
        "REQUEST_TOO_LARGE": (
            _t(
                "The request is larger than the service accepts.",
                "La solicitud es más grande de lo que el servicio acepta.",
                "La demande est plus grande que ce que le service accepte.",
                "Die Anfrage ist größer, als der Dienst annimmt.",
                "Het verzoek is groter dan de dienst aanneemt.",
            ),
        ),
        "SERVICE_KEY_SCOPE": (
            _t(
                "This service key lacks the scope {scope}, which this call needs.",
                "A esta clave del servicio le falta el permiso {scope}, que necesita esta llamada.",
                "Cette clé du service n'a pas la portée {scope}, qu'il faut pour cet appel.",
                "Diesem Schlüssel des Dienstes fehlt die Berechtigung {scope} für diesen Aufruf.",
                "Deze sleutel van de dienst mist de bevoegdheid {scope} voor deze aanroep.",
            ),
            _t(
                "This service key lacks the scope this call needs.",
                "A esta clave del servicio le falta el permiso que necesita esta llamada.",
                "Cette clé du service n'a pas la portée qu'il faut pour cet appel.",
                "Diesem Schlüssel des Dienstes fehlt die Berechtigung für diesen Aufruf.",
                "Deze sleutel van de dienst mist de bevoegdheid die deze aanroep nodig heeft.",
            ),
        ),
        "RATE_LIMITED": (
            _t(
                "Too many calls with this service key; try again in {retrySeconds} s.",
                "Demasiadas llamadas con esta clave del servicio; vuelve a intentarlo en "
                "{retrySeconds} s.",
                "Trop d'appels avec cette clé du service ; réessayez dans {retrySeconds} s.",
                "Zu viele Aufrufe mit diesem Schlüssel des Dienstes; versuche es in "
                "{retrySeconds} s wieder.",
                "Te veel aanroepen met deze sleutel van de dienst; probeer het over "
                "{retrySeconds} s opnieuw.",
            ),
            _t(
                "Too many calls with this service key; try again later.",
                "Demasiadas llamadas con esta clave del servicio; vuelve a intentarlo más tarde.",
                "Trop d'appels avec cette clé du service ; réessayez plus tard.",
                "Zu viele Aufrufe mit diesem Schlüssel des Dienstes; versuche es später wieder.",
                "Te veel aanroepen met deze sleutel van de dienst; probeer het later opnieuw.",
            ),
        ),
        "GAME_QUOTA_EXCEEDED": (
            _t(
                "This service key created the {limit} games it may for now; try again in "
                "{retrySeconds} s.",
                "Esta clave del servicio ya creó las {limit} partidas que puede por ahora; "
                "vuelve a intentarlo en {retrySeconds} s.",
                "Cette clé du service a créé les {limit} parties qu'elle peut pour l'instant ; "
                "réessayez dans {retrySeconds} s.",
                "Dieser Schlüssel des Dienstes hat die {limit} Spiele angelegt, die er vorerst "
                "darf; versuche es in {retrySeconds} s wieder.",
                "Deze sleutel van de dienst heeft de {limit} spellen gemaakt die hij voorlopig "
                "mag; probeer het over {retrySeconds} s opnieuw.",
            ),
            _t(
                "This service key created as many games as it may for now.",
                "Esta clave del servicio ya creó todas las partidas que puede por ahora.",
                "Cette clé du service a créé autant de parties qu'elle peut pour l'instant.",
                "Dieser Schlüssel des Dienstes hat so viele Spiele angelegt, wie er vorerst darf.",
                "Deze sleutel van de dienst heeft zoveel spellen gemaakt als hij voorlopig mag.",
            ),
        ),
        "REQUEST_ID_REUSED": (
            _t(
                "This request id was already used for a different request; use a new id.",
                "Este id de solicitud ya se usó para otra solicitud; use un id nuevo.",
                "Cet identifiant a déjà servi à une autre demande ; prenez-en un nouveau.",
                "Diese Anfrage-ID gehört schon zu einer anderen Anfrage; nehmen Sie eine neue.",
                "Dit verzoek-id is al voor een ander verzoek gebruikt; neem een nieuw id.",
            ),
        ),
        "GAME_OVER": (
            _t(
                "The game is over; no more moves are accepted.",
                "La partida ha terminado; ya no se aceptan jugadas.",
                "La partie est terminée ; plus aucun coup n'est accepté.",
                "Das Spiel ist vorbei; es werden keine Züge mehr angenommen.",
                "Het spel is afgelopen; er worden geen zetten meer aangenomen.",
            ),
        ),
        "CARD_NOT_IN_HAND": (
            _t(
                "Not in this hand: {card}.",
                "No está en esta mano: {card}.",
                "Pas dans cette main : {card}.",
                "Nicht in diesem Blatt: {card}.",
                "Niet in deze hand: {card}.",
            ),
            _t(
                "Not all in this hand: {cards}.",
                "No están todas en esta mano: {cards}.",
                "Pas toutes dans cette main : {cards}.",
                "Nicht alle in diesem Blatt: {cards}.",
                "Niet allemaal in deze hand: {cards}.",
            ),
            _t(
                "A card named is not in this hand.",
                "Una de las cartas indicadas no está en esta mano.",
                "Une carte indiquée n'est pas dans cette main.",
                "Eine genannte Karte ist nicht in diesem Blatt.",
                "Een genoemde kaart zit niet in deze hand.",
            ),
        ),
        "NOT_PASSING_NOW": (
            _t(
                "Cards are passed only before play starts.",
                "Las cartas se pasan solo antes de empezar a jugar.",
                "Les cartes se passent seulement avant le début du jeu.",
                "Karten werden nur vor Beginn des Spiels weitergegeben.",
                "Kaarten worden alleen doorgegeven voordat het spelen begint.",
            ),
        ),
        "ALREADY_PASSED": (
            _t(
                "This seat has already passed its cards.",
                "Este asiento ya ha pasado sus cartas.",
                "Cette place a déjà passé ses cartes.",
                "Dieser Platz hat seine Karten schon weitergegeben.",
                "Deze plaats heeft haar kaarten al doorgegeven.",
            ),
        ),
        "WRONG_PASS_SIZE": (
            _t(
                "Pass exactly three different cards.",
                "Pasa exactamente tres cartas distintas.",
                "Passez exactement trois cartes différentes.",
                "Gib genau drei verschiedene Karten weiter.",
                "Geef precies drie verschillende kaarten door.",
            ),
        ),
        "PASSING_NOT_FINISHED": (
            _t(
                "Play starts once all four seats have passed.",
                "El juego empieza cuando los cuatro asientos han pasado sus cartas.",
                "Le jeu commence quand les quatre places ont passé leurs cartes.",
                "Gespielt wird erst, wenn alle vier Plätze ihre Karten weitergegeben haben.",
                "Het spelen begint pas als alle vier plaatsen hebben doorgegeven.",
            ),
        ),
        "NOT_YOUR_TURN": (
            _t(
                "Not your turn: seat {turn} is to act.",
                "No es tu turno: le toca al asiento {turn}.",
                "Ce n'est pas votre tour : c'est à la place {turn} d'agir.",
                "Du bist nicht an der Reihe: Platz {turn} ist dran.",
                "Je bent niet aan de beurt: plaats {turn} is aan zet.",
            ),
            _t(
                "This seat may not act now.",
                "Este asiento no puede actuar ahora.",
                "Cette place ne peut pas agir maintenant.",
                "Dieser Platz darf jetzt nicht handeln.",
                "Deze plaats mag nu niet handelen.",
            ),
        ),
        "MUST_LEAD_TWO_OF_CLUBS": (
            _t(
                "The first trick must be led with the two of clubs.",
                "La primera baza se abre con el dos de tréboles.",
                "Le premier pli doit être entamé avec le deux de trèfle.",
                "Der erste Stich wird mit der Kreuz-Zwei eröffnet.",
                "De eerste slag wordt geopend met klaverentwee.",
            ),
        ),
        "MUST_FOLLOW_SUIT": (
            _t(
                "Follow the suit led: {led_suit} (card refused: {card}).",
                "Sigue el palo de salida: {led_suit} (carta rechazada: {card}).",
                "Fournissez la couleur demandée : {led_suit} (carte refusée : {card}).",
                "Bediene die ausgespielte Farbe: {led_suit} (abgelehnte Karte: {card}).",
                "Volg de gevraagde kleur: {led_suit} (geweigerde kaart: {card}).",
            ),
            _t(
                "Follow the suit led: {led_suit}.",
                "Sigue el palo de salida: {led_suit}.",
                "Fournissez la couleur demandée : {led_suit}.",
                "Bediene die ausgespielte Farbe: {led_suit}.",
                "Volg de gevraagde kleur: {led_suit}.",
            ),
            _t(
                "Follow the suit led.",
                "Sigue el palo de salida.",
                "Fournissez la couleur demandée.",
                "Bediene die ausgespielte Farbe.",
                "Volg de gevraagde kleur.",
            ),
        ),
        "QUEEN_OF_SPADES_ON_FIRST_TRICK": (
            _t(
                "The queen of spades may not be played to the first trick.",
                "La dama de picas no puede jugarse en la primera baza.",
                "La dame de pique ne peut pas être jouée au premier pli.",
                "Die Pik-Dame darf nicht in den ersten Stich gespielt werden.",
                "Schoppenvrouw mag niet in de eerste slag worden gespeeld.",
            ),
        ),
        "HEARTS_ON_FIRST_TRICK": (
            _t(
                "No heart may be played to the first trick (card refused: {card}).",
                "No se pueden jugar corazones en la primera baza (carta rechazada: {card}).",
                "Aucun cœur ne peut être joué au premier pli (carte refusée : {card}).",
                "In den ersten Stich darf kein Herz gespielt werden (abgelehnte Karte: {card}).",
                "In de eerste slag mag geen harten worden gespeeld (geweigerde kaart: {card}).",
            ),
            _t(
                "No heart may be played to the first trick.",
                "No se pueden jugar corazones en la primera baza.",
                "Aucun cœur ne peut être joué au premier pli.",
                "In den ersten Stich darf kein Herz gespielt werden.",
                "In de eerste slag mag geen harten worden gespeeld.",
            ),
        ),
        "HEARTS_NOT_BROKEN": (
            _t(
                "Hearts may not be led until a heart has been played (card refused: {card}).",
                "No se puede salir con corazones hasta que se haya jugado uno "
                "(carta rechazada: {card}).",
                "On ne peut pas entamer à cœur tant qu'aucun cœur n'a été joué "
                "(carte refusée : {card}).",
                "Herz darf erst ausgespielt werden, wenn schon ein Herz gefallen ist "
                "(abgelehnte Karte: {card}).",
                "Je mag pas met harten uitkomen als er al een harten is gespeeld "
                "(geweigerde kaart: {card}).",
            ),
            _t(
                "Hearts may not be led until a heart has been played.",
                "No se puede salir con corazones hasta que se haya jugado uno.",
                "On ne peut pas entamer à cœur tant qu'aucun cœur n'a été joué.",
                "Herz darf erst ausgespielt werden, wenn schon ein Herz gefallen ist.",
                "Je mag pas met harten uitkomen als er al een harten is gespeeld.",
            ),
        ),
        "LEADER_MUST_PLAY": (
            _t(
                "The leader of a trick must play, not pass.",
                "Quien abre la baza debe jugar, no pasar.",
                "Celui qui entame le pli doit jouer, pas passer.",
                "Wer den Stich eröffnet, muss spielen und darf nicht passen.",
                "Wie de slag opent, moet spelen en mag niet passen.",
            ),
        ),
        "NOT_A_COMBINATION": (
            _t(
                "These cards cannot count as {reading}; they can count as: {allowed}.",
                "Estas cartas no pueden valer como {reading}; pueden valer como: {allowed}.",
                "Ces cartes ne peuvent pas compter comme {reading} ; elles peuvent compter "
                "comme : {allowed}.",
                "Diese Karten zählen nicht als {reading}; sie können zählen als: {allowed}.",
                "Deze kaarten tellen niet als {reading}; ze kunnen tellen als: {allowed}.",
            ),
            _t(
                "These cards form no legal combination: {cards}.",
                "Estas cartas no forman ninguna combinación válida: {cards}.",
                "Ces cartes ne forment aucune combinaison permise : {cards}.",
                "Diese Karten bilden keine erlaubte Kombination: {cards}.",
                "Deze kaarten vormen geen geldige combinatie: {cards}.",
            ),
            _t(
                "These cards form no legal combination, or not the one declared.",
                "Estas cartas no forman ninguna combinación válida, o no la declarada.",
                "Ces cartes ne forment aucune combinaison permise, ou pas celle annoncée.",
                "Diese Karten bilden keine erlaubte Kombination oder nicht die angesagte.",
                "Deze kaarten vormen geen geldige combinatie, of niet de opgegeven.",
            ),
        ),
        "DOES_NOT_BEAT": (
            _t(
                "This play does not beat the one on the table: {top}.",
                "Esta jugada no supera la que está en la mesa: {top}.",
                "Ce coup ne bat pas celui qui est sur la table : {top}.",
                "Das schlägt die Kombination auf dem Tisch nicht: {top}.",
                "Deze zet verslaat niet wat er op tafel ligt: {top}.",
            ),
            _t(
                "This play does not beat the one on the table.",
                "Esta jugada no supera la que está en la mesa.",
                "Ce coup ne bat pas celui qui est sur la table.",
                "Das schlägt die Kombination auf dem Tisch nicht.",
                "Deze zet verslaat niet wat er op tafel ligt.",
            ),
        ),
        "NOT_RETURNING_NOW": (
            _t(
                "Cards are returned only right after tribute.",
                "Las cartas se devuelven solo justo después del tributo.",
                "Les cartes se rendent seulement juste après le tribut.",
                "Karten werden nur direkt nach dem Tribut zurückgegeben.",
                "Kaarten worden alleen direct na het tribuut teruggegeven.",
            ),
        ),
        "RETURN_NOT_ALLOWED": (
            _t(
                "This card may not be returned: {card}. Return a card from 2 to 10 that is "
                "neither a joker nor a wild (without one, a card of the lowest strength).",
                "No se puede devolver esta carta: {card}. Devuelve una carta del 2 al 10 que "
                "no sea comodín ni carta libre (si no tienes ninguna, una de la menor fuerza).",
                "Cette carte ne peut pas être rendue : {card}. Rendez une carte de 2 à 10 qui "
                "ne soit ni un joker ni une carte libre (à défaut, une carte de la plus faible "
                "force).",
                "Diese Karte darf nicht zurückgegeben werden: {card}. Gib eine Karte von 2 bis "
                "10 zurück, die weder Joker noch Wildkarte ist (ohne eine solche eine Karte der "
                "niedrigsten Stärke).",
                "Deze kaart mag niet terug: {card}. Geef een kaart van 2 tot 10 terug die geen "
                "joker en geen wilde kaart is (zonder zo'n kaart een kaart van de laagste "
                "sterkte).",
            ),
            _t(
                "This card may not be returned.",
                "No se puede devolver esta carta.",
                "Cette carte ne peut pas être rendue.",
                "Diese Karte darf nicht zurückgegeben werden.",
                "Deze kaart mag niet terug.",
            ),
        ),
        "ALREADY_RETURNED": (
            _t(
                "This seat has already returned its card.",
                "Este asiento ya ha devuelto su carta.",
                "Cette place a déjà rendu sa carte.",
                "Dieser Platz hat seine Karte schon zurückgegeben.",
                "Deze plaats heeft haar kaart al teruggegeven.",
            ),
        ),
        "RETURNS_NOT_FINISHED": (
            _t(
                "Play starts once every tribute card has been returned.",
                "El juego empieza cuando se han devuelto todas las cartas del tributo.",
                "Le jeu commence quand toutes les cartes de tribut ont été rendues.",
                "Gespielt wird erst, wenn alle Tributkarten zurückgegeben sind.",
                "Het spelen begint pas als alle tribuutkaarten zijn teruggegeven.",
            ),
        ),
        "NOT_BIDDING_NOW": (
            _t(
                "Trump is chosen or passed only while bidding.",
                "El triunfo se elige o se pasa solo durante la subasta.",
                "L'atout se prend ou se passe seulement pendant les enchères.",
                "Trumpf wird nur während des Reizens gewählt oder abgelehnt.",
                "Troef wordt alleen tijdens het bieden gekozen of gepast.",
            ),
        ),
        "MUST_TAKE_TURNED_SUIT": (
            _t(
                "In the first round of bidding only the turned suit may be taken: {turned_suit}.",
                "En la primera ronda de la subasta solo se puede elegir el palo de la carta "
                "vuelta: {turned_suit}.",
                "Au premier tour d'enchères, seule la couleur retournée peut être prise : "
                "{turned_suit}.",
                "In der ersten Reizrunde darf nur die aufgedeckte Farbe genommen werden: "
                "{turned_suit}.",
                "In de eerste biedronde mag alleen de omgedraaide kleur worden genomen: "
                "{turned_suit}.",
            ),
            _t(
                "In the first round of bidding only the turned suit may be taken.",
                "En la primera ronda de la subasta solo se puede elegir el palo de la carta "
                "vuelta.",
                "Au premier tour d'enchères, seule la couleur retournée peut être prise.",
                "In der ersten Reizrunde darf nur die aufgedeckte Farbe genommen werden.",
                "In de eerste biedronde mag alleen de omgedraaide kleur worden genomen.",
            ),
        ),
        "TURNED_SUIT_REFUSED": (
            _t(
                "In the second round of bidding the turned suit may not be named: {turned_suit}.",
                "En la segunda ronda de la subasta no se puede nombrar el palo de la carta "
                "vuelta: {turned_suit}.",
                "Au second tour d'enchères, la couleur retournée ne peut pas être nommée : "
                "{turned_suit}.",
                "In der zweiten Reizrunde darf die aufgedeckte Farbe nicht genannt werden: "
                "{turned_suit}.",
                "In de tweede biedronde mag de omgedraaide kleur niet worden genoemd: "
                "{turned_suit}.",
            ),
            _t(
                "In the second round of bidding the turned suit may not be named.",
                "En la segunda ronda de la subasta no se puede nombrar el palo de la carta vuelta.",
                "Au second tour d'enchères, la couleur retournée ne peut pas être nommée.",
                "In der zweiten Reizrunde darf die aufgedeckte Farbe nicht genannt werden.",
                "In de tweede biedronde mag de omgedraaide kleur niet worden genoemd.",
            ),
        ),
        "NOT_DIX_NOW": (
            _t(
                "The dix is decided after the deal and before the first card.",
                "El dix se decide tras el reparto y antes de la primera carta.",
                "Le dix se décide après la donne et avant la première carte.",
                "Über den Dix wird nach dem Geben und vor der ersten Karte entschieden.",
                "Over de dix wordt beslist na het delen en vóór de eerste kaart.",
            ),
        ),
        "NO_TRUMP_SEVEN": (
            _t(
                "Only the holder of the trump seven may swap it: {card}.",
                "Solo quien tiene el siete de triunfo puede cambiarlo: {card}.",
                "Seul le détenteur du sept d'atout peut l'échanger : {card}.",
                "Nur wer die Trumpf-Sieben hat, darf sie tauschen: {card}.",
                "Alleen wie de troefzeven heeft, mag hem ruilen: {card}.",
            ),
            _t(
                "Only the holder of the trump seven may swap it.",
                "Solo quien tiene el siete de triunfo puede cambiarlo.",
                "Seul le détenteur du sept d'atout peut l'échanger.",
                "Nur wer die Trumpf-Sieben hat, darf sie tauschen.",
                "Alleen wie de troefzeven heeft, mag hem ruilen.",
            ),
        ),
        "NOT_PLAYING_NOW": (
            _t(
                "Cards are played once bidding and the dix are over.",
                "Las cartas se juegan cuando han terminado la subasta y el dix.",
                "Les cartes se jouent une fois les enchères et le dix terminés.",
                "Karten werden erst gespielt, wenn Reizen und Dix vorbei sind.",
                "Kaarten worden pas gespeeld als het bieden en de dix voorbij zijn.",
            ),
        ),
        "MUST_TRUMP": (
            _t(
                "Without the suit led, play a trump: {trump} (card refused: {card}).",
                "Sin el palo de salida, juega triunfo: {trump} (carta rechazada: {card}).",
                "Sans la couleur demandée, jouez atout : {trump} (carte refusée : {card}).",
                "Ohne die ausgespielte Farbe musst du Trumpf spielen: {trump} "
                "(abgelehnte Karte: {card}).",
                "Zonder de gevraagde kleur moet je troef spelen: {trump} "
                "(geweigerde kaart: {card}).",
            ),
            _t(
                "Without the suit led, play a trump.",
                "Sin el palo de salida, juega triunfo.",
                "Sans la couleur demandée, jouez atout.",
                "Ohne die ausgespielte Farbe musst du Trumpf spielen.",
                "Zonder de gevraagde kleur moet je troef spelen.",
            ),
        ),
        "MUST_OVERTRUMP": (
            _t(
                "Beat the trump led ({led_card}) with a higher trump when you can "
                "(card refused: {card}).",
                "Supera el triunfo de salida ({led_card}) con uno más alto si puedes "
                "(carta rechazada: {card}).",
                "Montez sur l'atout entamé ({led_card}) avec un atout plus fort si vous le "
                "pouvez (carte refusée : {card}).",
                "Übertrumpfe den ausgespielten Trumpf ({led_card}), wenn du kannst "
                "(abgelehnte Karte: {card}).",
                "Overtroef de uitgekomen troef ({led_card}) als je kunt "
                "(geweigerde kaart: {card}).",
            ),
            _t(
                "Beat the trump led with a higher trump when you can.",
                "Supera el triunfo de salida con uno más alto si puedes.",
                "Montez sur l'atout entamé avec un atout plus fort si vous le pouvez.",
                "Übertrumpfe den ausgespielten Trumpf, wenn du kannst.",
                "Overtroef de uitgekomen troef als je kunt.",
            ),
        ),
        "NO_BELLA_TO_DECLINE": (
            _t(
                "Bella can be left unannounced only on the second of the trump king and queen "
                "(card refused: {card}).",
                "La bella solo puede quedar sin anunciar con la segunda carta del rey y la dama "
                "de triunfo (carta rechazada: {card}).",
                "La belote ne peut rester non annoncée que sur la seconde carte du roi et de la "
                "dame d'atout (carte refusée : {card}).",
                "Bella darf nur bei der zweiten Karte von Trumpf-König und Trumpf-Dame "
                "unangesagt bleiben (abgelehnte Karte: {card}).",
                "Bella mag alleen onaangekondigd blijven bij de tweede van troefheer en "
                "troefvrouw (geweigerde kaart: {card}).",
            ),
            _t(
                "Bella can be left unannounced only on the second of the trump king and queen.",
                "La bella solo puede quedar sin anunciar con la segunda carta del rey y la dama "
                "de triunfo.",
                "La belote ne peut rester non annoncée que sur la seconde carte du roi et de la "
                "dame d'atout.",
                "Bella darf nur bei der zweiten Karte von Trumpf-König und Trumpf-Dame "
                "unangesagt bleiben.",
                "Bella mag alleen onaangekondigd blijven bij de tweede van troefheer en "
                "troefvrouw.",
            ),
        ),
        "NO_SEQUENCE_CHOICE_NOW": (
            _t(
                "Sequences may be concealed only with your first card, and only when they are "
                "not declared automatically.",
                "Las secuencias solo pueden ocultarse con tu primera carta, y solo si no se "
                "declaran automáticamente.",
                "Les séquences ne peuvent être cachées qu'avec votre première carte, et "
                "seulement si elles ne sont pas annoncées automatiquement.",
                "Sequenzen dürfen nur mit deiner ersten Karte verschwiegen werden, und nur, "
                "wenn sie nicht automatisch angesagt werden.",
                "Reeksen mogen alleen met je eerste kaart worden verzwegen, en alleen als ze "
                "niet automatisch worden gemeld.",
            ),
        ),
    }
)
"""Every reason of ``errors.proto`` (without the ``ERROR_REASON_`` prefix): its variants."""

RULE_CITATIONS: Final[Texts] = _t(
    "{message} Rule {rule_id}: {rule}.",
    "{message} Regla {rule_id}: {rule}.",
    "{message} Règle {rule_id} : {rule}.",
    "{message} Regel {rule_id}: {rule}.",
    "{message} Regel {rule_id}: {rule}.",
)
"""A refusal's message followed by the rule it cites."""

RULE_ONLY: Final[Texts] = _t(
    "{message} Rule {rule_id}.",
    "{message} Regla {rule_id}.",
    "{message} Règle {rule_id}.",
    "{message} Regel {rule_id}.",
    "{message} Regel {rule_id}.",
)
"""The same for a rule ID with no name here."""


def fields_of(text: str) -> frozenset[str]:
    """The particulars a text names (``{card}`` -> ``card``)."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name)


def particular(key: str, value: str, language: str) -> str:
    """One metadata value in words (a suit letter as the suit's name...), else unchanged.

    >>> particular("led_suit", "C", "fr"), particular("turn", "2", "fr")
    ('trèfle', '2')
    """
    words = _WORDS.get(key)
    return value if words is None else words(value, language)


def variant_for(reason: str, metadata: Mapping[str, str]) -> Texts:
    """The first variant of ``reason`` whose particulars ``metadata`` all holds."""
    variants = REASONS.get(reason, REASONS["UNSPECIFIED"])
    return next(v for v in variants if fields_of(v[ENGLISH]) <= metadata.keys())


def reason_message(reason: str, metadata: Mapping[str, str], language: str) -> str:
    """The message for ``reason`` in ``language``, its particulars taken from ``metadata``.

    An unknown reason gets the generic refusal; an unsupported language gets English.

    >>> reason_message("MUST_FOLLOW_SUIT", {"led_suit": "C", "card": "QS"}, "es")
    'Sigue el palo de salida: tréboles (carta rechazada: dama de picas).'
    >>> reason_message("NOT_YOUR_TURN", {"turn": "3"}, "de")
    'Du bist nicht an der Reihe: Platz 3 ist dran.'
    """
    lang = language if language in SUPPORTED else ENGLISH
    text = variant_for(reason, metadata)[lang]
    used = {key: particular(key, metadata[key], lang) for key in fields_of(text)}
    return text.format_map(used)
