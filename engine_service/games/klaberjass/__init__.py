"""Two-player Klaberjass as written in ``seeds/klaberjass.md`` (the digest's K-R1 .. K-R21).

Implementation notes:

* Seats 0 and 1; the dealer alternates every deal, thrown-in hands included, and the first
  dealer is drawn from the seed. The non-dealer (``elder``) bids first and leads first.
* Cards are core card numbers restricted to 7..A (:mod:`.cards`), hands are bitmasks.
* Each deal is shuffled from ``Random(f"{seed}:{deal_number}")``; the second packet of cards
  is taken from the same shuffle again, so the state never stores the deck order.
* Phases: two bidding rounds, the dix decision (both seats answer, non-dealer first, so that
  declining reveals nothing about who holds the trump 7), then nine tricks.
* Sequences are compared when the first trick ends and become public then (K-R14).
"""
