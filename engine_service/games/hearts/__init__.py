"""Hearts as played on GameTwist, with its "Special" end-of-game variant (``seeds/hearts.md``).

Implementation notes:

* Seats 0..3 sit clockwise; "left" is the next seat clockwise (H-R2), so pass-left goes from
  seat ``s`` to ``s + 1``.
* Hands are 52-bit masks (see :mod:`engine_service.core.cards`); every legality question is a
  couple of mask operations, and the same ``playable`` mask serves both the listing of legal
  moves and the check of a submitted one.
* The pass is simultaneous: every seat that has not chosen yet is "to act", choices stay
  hidden until the fourth arrives, then all cards move at once.
* Each hand is shuffled from ``Random(f"{seed}:{hand_number}")``, so a game is fully defined
  by its config, its seed and its action log, and the seed must never reach a view.
* The 52nd card scores the hand and deals the next in one step, so the finished hand (its
  tricks and scores) is kept as ``previous_hand`` until the new hand's first card; its cards
  are of the earlier deal, which is why no current-hand field may hold them.
* Events (:mod:`engine_service.games.hearts.events`) are derived from the states before and
  after a move, not built by ``apply``, so play pays nothing for them.
"""
