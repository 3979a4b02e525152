"""``make tournament``: our bots measured in duplicate tournaments, Hearts against OpenSpiel.

Hearts is played by our rules and OpenSpiel's side by side on the same deals (``hearts`` and
``spiel``); Guandan and Klaberjass pit the search bot against the heuristic one (``teams``).
Every tournament is duplicate: a deal is replayed with the seats rotated or the teams
swapped, so the luck of the cards cancels out. ``__main__`` runs them all within a time
bound, prints the figures and the issue's goals, and writes ``results/tournament.md``.
"""
