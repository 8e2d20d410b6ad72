"""A photo folder's photos put back in the order they were taken, told by the line of play.

Photos sort by name, and a name need not follow the time a photo was taken: a player renamed or re-numbered
some, or copied them from two phones. Within a hand the line of play only grows: each photo shows the face-up
tiles of the photo before it, and more (a draw or a pass adds none). A photo out of place breaks that where it
lies and fits where it belongs (helper-256: helper-230's demo folder, one photo a play, with move_005.png and
move_009.png swapped, was read as a later state left out and a tile missing, 4-4 and 1-1 given to the wrong seats,
a draw to the wrong seat, N's domino flagged; each of the two photos shows a line that lies between those of two
photos of the folder, and only there).

:func:`taken_order` keeps the photos that follow one another in name order (the longest run of photos, in name
order, each growing the line of the one before it) and puts each other photo where its line lies between those of
the photos around it. It gives up (None: name order kept, the photos said as now by :mod:`vision.photo_states`)
unless every photo then grows the line of the one before it or starts a new hand, so a photo that fits nowhere
(an arm over some tiles, a misread tile, another table's photo) keeps the folder in name order. Between hands
the table is cleared (:func:`new_hand`): photos are put back within their hand only; a "new hand" whose photos
show only tiles of the line before it is the same hand named in two runs (a phone's counter that wrapped, two
phones), put back as one when every photo then fits one place.

:func:`time_order` follows the time each photo was taken instead (EXIF, :mod:`vision.capture_time`), when every
photo has one and the line of play agrees with it; it tells the photos the line cannot (a draw's, the lead's).

Its limits: photos of one line (a draw, a pass, the same table twice) are not told apart and keep their name
order, and so do a hand shown in place (its tiles turned face up where they lay: the demo's last photo, S's 3-4)
and the photo before it, each of which grows the other; a photo whose arm hides the newest tiles shows the line of an earlier photo, and is only kept in place
when the caller finds the arm (:func:`service.review_pipeline.one_table_folder`).
"""

from __future__ import annotations

import math

from vision.photo_states import LINE_REACH, LOST_TILES, PhotoTiles, turned

__all__ = ["follows", "grows", "moved_photos", "new_hand", "order_message", "taken_order", "time_order"]


def grows(a: PhotoTiles, b: PhotoTiles) -> bool:
    """Whether photo ``b`` shows every face-up tile of photo ``a``, or a face-down tile at its place off the line
    (a hand shown, then turned down): ``b`` may follow ``a`` in one hand. A tile within :data:`LINE_REACH` tile
    lengths of a tile both show lies on the line: a face-down tile at its place is no hand turned down."""
    kept = [a.places[t] for t in a.places if t in b.places]
    reach = LINE_REACH * a.tile_px
    return all(t in b.places or (turned(a, t, b) and not any(math.dist(a.places[t], q) <= reach for q in kept))
               for t in a.places)


def new_hand(a: PhotoTiles, b: PhotoTiles) -> bool:
    """Whether photo ``b`` shows a new hand's table after photo ``a``: ``a`` shows :data:`LOST_TILES` or more
    face-up tiles and ``b`` at most one of them (a cleared table, a new line)."""
    return len(a.tiles) >= LOST_TILES and len(a.tiles & b.tiles) <= 1


def follows(a: PhotoTiles, b: PhotoTiles) -> bool:
    """Whether photo ``b`` may be the photo after ``a``: it grows ``a``'s line, or shows a new hand's table."""
    return grows(a, b) or new_hand(a, b)


def time_order(lines: list[PhotoTiles], times: list) -> list[int] | None:
    """The photos' order by the ``times`` they were taken (:func:`vision.capture_time.capture_time`, one per photo
    of ``lines``, in name order; the same number of them), when every photo has a time, no two the same, and each
    photo in that order follows the one before it (:func:`follows`: two phones' clocks apart break the line);
    else None. Name order itself (``list(range(n))``) when the times agree with it."""
    if not times or any(t is None for t in times) or len(set(times)) < len(times):
        return None
    order = sorted(range(len(times)), key=times.__getitem__)
    if order != list(range(len(times))) and not all(follows(lines[a], lines[b]) for a, b in zip(order, order[1:])):
        return None
    return order


def taken_order(lines: list[PhotoTiles]) -> list[int] | None:
    """The order the photos were taken in, told by their ``lines`` (each photo's face-up tiles, in name order): a
    permutation of ``range(len(lines))``, or None when name order is kept: each photo already follows the one
    before it (grows its line or starts a new hand), or some photo fits nowhere, or the order is unsure (see the
    module)."""
    n = len(lines)
    hands, start = [], 0  # runs of photos in name order, split where a new hand's table follows
    for i in range(1, n + 1):
        if i == n or (not grows(lines[i - 1], lines[i]) and new_hand(lines[i - 1], lines[i])):
            hands.append(list(range(start, i)))
            start = i
    joined = _rejoined(hands, lines)
    if joined == hands and all(follows(lines[i - 1], lines[i]) for i in range(1, n)):
        return None
    return (_hand_by_hand(joined, lines) if joined != hands else None) or _hand_by_hand(hands, lines)


def _hand_by_hand(hands: list[list[int]], lines: list[PhotoTiles]) -> list[int] | None:
    """The order taken of the photos ``hands`` (runs of indices into ``lines``, name order, each one hand's), each
    hand put back alone (:func:`_one_hand`); None where one is not sure or nothing moves (:func:`taken_order`)."""
    n = len(lines)
    order: list[int] = []
    for hand in hands:
        put = _one_hand(hand, lines)
        if put is None:
            return None
        if order and any(grows(lines[order[-1]], lines[j]) and len(lines[order[-1]].tiles) >= LOST_TILES
                         for j in put):
            return None  # a photo after the "new hand" shows the hand before's last line: one hand, not sure
        order += put
    if order == list(range(n)) or not all(follows(lines[a], lines[b]) for a, b in zip(order, order[1:])):
        return None
    at = {p: k for k, p in enumerate(order)}
    if any(at[q] < at[p] and grows(lines[p], lines[q]) for p in range(n) for q in range(p + 1, n)):
        return None  # two photos put the other way round whose name order fits as well (a hand turned up, a draw)
    return order


def _rejoined(hands: list[list[int]], lines: list[PhotoTiles]) -> list[list[int]]:
    """The runs ``hands`` (split where a new hand's table follows in name order) with each run joined to the one
    before it whose fullest photo shows every tile of the run's fullest photo, which shows :data:`LOST_TILES` or
    more: one hand's photos named in two runs (a phone's counter that wrapped, IMG_9999.png then IMG_0000.png; two
    phones' photos sorting apart), not a new hand (helper-262: the demo's 18 photos named from its 7th on before its
    first six were read as two hands, 11 flags; :func:`taken_order` tries the runs apart again when joined they do
    not tell one order)."""
    def fullest(run: list[int]) -> PhotoTiles:
        return lines[max(run, key=lambda i: len(lines[i].tiles))]

    joined = hands[:1]  # none for a folder with no photo read
    for run in hands[1:]:
        if len(fullest(run).tiles) >= LOST_TILES and grows(fullest(run), fullest(joined[-1])):
            joined[-1] = joined[-1] + run
        else:
            joined.append(run)
    return joined


def _one_hand(hand: list[int], lines: list[PhotoTiles]) -> list[int] | None:
    """The photos ``hand`` (indices into ``lines``, name order) of one hand, in the order they grow the line: the
    longest run in name order that grows it, each other photo put where it grows the photo before it and the next
    grows it (among photos of its line, by name); None when a photo fits nowhere."""
    best = [1] * len(hand)  # the longest run growing the line that ends at each photo
    back = [-1] * len(hand)
    for j in range(len(hand)):
        for i in range(j):
            if best[i] + 1 > best[j] and grows(lines[hand[i]], lines[hand[j]]):
                best[j], back[j] = best[i] + 1, i
    k = max(range(len(hand)), key=lambda j: (best[j], -j))  # the earliest end of a longest run
    run = []
    while k >= 0:
        run.append(hand[k])
        k = back[k]
    run.reverse()
    for x in [p for p in hand if p not in run]:
        fits = [k for k in range(len(run) + 1)
                if (k == 0 or grows(lines[run[k - 1]], lines[x])) and (k == len(run) or grows(lines[x], lines[run[k]]))]
        if len(fits) != 1:
            return None  # it fits nowhere, or beside photos it cannot be told from (a draw's, a hand turned up)
        run.insert(fits[0], x)
    return run


def moved_photos(order: list[int]) -> list[int]:
    """The photos (indices, in ``order``) a reader moves to put name order into ``order``: those off the longest
    run of ``order`` that keeps name order (one of two photos swapped side by side; a photo put back from the end)."""
    best = [1] * len(order)
    back = [-1] * len(order)
    for j in range(len(order)):
        for i in range(j):
            if order[i] < order[j] and best[i] + 1 > best[j]:
                best[j], back[j] = best[i] + 1, i
    k = max(range(len(order)), key=lambda j: (best[j], -j)) if order else -1
    kept = set()
    while k >= 0:
        kept.add(order[k])
        k = back[k]
    return [p for p in order if p not in kept]


def order_message(names: list[str], order: list[int], by_time: bool = False) -> str:
    """The line that says which photos (``names`` in name order) were put back, and where (``order``), told by the
    time each was taken (``by_time``) or by the line of play."""
    moved = moved_photos(order)
    where = []
    for p in moved:
        k = order.index(p)
        where.append(f"{names[p]} after {names[order[k - 1]]}" if k else f"{names[p]} first")
    how = ("the time each was taken (EXIF), which the line of play agrees with" if by_time else
           "the line of play (in name order some photos lack tiles an earlier one shows)")
    return (f"photos put back in the order they were taken, told by {how}: {', '.join(where)}; rename them to keep "
            "this order")
