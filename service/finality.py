"""Whether a score is final, and why not: the one rule that a review's summary, ``record show``, ``record report``
and the service's review page share.

A score is final when its hand is over (a result, every point counted) and no warning puts it in doubt. A
review gives each warning a kind and says whether it doubts the score (:class:`Warned`); its record keeps
them beside the text (``warning_kinds``, ``docs/record-format.md``), so that every reader of the record judges
as the review did. A record written before kinds were kept is judged by its warnings' words
(:func:`doubts_score`), as it was then.
"""

from __future__ import annotations

from engine.record import HandRecord, MatchRecord, WarningKind, hand_name, hands_without_result
from engine.words import plural

#: How the small-tiles warning ends (``service.review_summary.small_tiles_warning``): a doubt about reads.
SMALL_TILES_TAIL = "are misread more often (film closer, or at a higher resolution)"
#: How the warning that the annotated video could not be made begins: nothing about the score.
NO_VIDEO = "no annotated video: "
#: the words every out-of-order warning names its notices with (``service.review_summary.out_of_order_warning``)
OUT_OF_ORDER_NOTICES = "notices tile_missing"


class Warned(str):
    """A warning's text (printed and kept as it is) with its ``kind`` (a word: ``no_calibration``) and whether it
    ``doubts`` the score (False: a doubt on some reads only, or none). A plain ``str`` warning is one of
    unknown kind: an old record's, judged by its words (:func:`doubts_score`)."""

    kind: str
    doubts: bool

    def __new__(cls, text: str, kind: str, doubts: bool = True) -> Warned:
        self = super().__new__(cls, text)
        self.kind, self.doubts = kind, doubts
        return self

    def __getnewargs__(self) -> tuple[str, str, bool]:  # copy and pickle keep the kind
        return str(self), self.kind, self.doubts


def warning_kind(warning: str) -> WarningKind | None:
    """The kind a record keeps for ``warning`` (None: a plain ``str``, of unknown kind)."""
    return WarningKind(kind=warning.kind, doubts_score=warning.doubts) if isinstance(warning, Warned) else None


def record_warnings(record: MatchRecord) -> list[str]:
    """The warnings of ``record``, each a :class:`Warned` where the record keeps its kind, else its text
    (a record written before kinds were kept: judged by its words)."""
    return [w if k is None else Warned(w, k.kind, k.doubts_score) for w, k in zip(record.warnings, record.kinds())]


def doubts_score(warning: str) -> bool:
    """Whether a review's ``warning`` (a line of ``ReviewSummary.warnings``, kept in its record's ``warnings``)
    puts the score in doubt: every warning does (seats guessed without a calibration, a rule set that does not
    fit, photos out of order, partial results, ...) but those on some reads only: tiles small, a picture washed
    out away from the line of play and the hands, and an annotated video that could not be made. A
    :class:`Warned` (a review's, or one read from a record that keeps its kind) says so itself; a plain ``str``,
    of an old record that keeps no kinds, is judged by its words, as reviews did before kinds were kept
    (helper-249)."""
    if isinstance(warning, Warned):
        return warning.doubts
    from vision.exposure import WASHED_OUT_ONLY  # old records only: the service's pages load no OpenCV for them

    return not (warning.endswith((SMALL_TILES_TAIL, WASHED_OUT_ONLY)) or warning.startswith(NO_VIDEO))


def score_final(over: bool, warnings: list[str]) -> bool:
    """Whether a hand's score is final: the hand is ``over`` (its result and every point counted) and none of
    ``warnings`` puts it in doubt (:func:`doubts_score`). Partial results are never final: their warning
    (the first of a partial record's) says so."""
    return over and not any(doubts_score(w) for w in warnings)


def score_doubt(record: MatchRecord, shown: str) -> str | None:
    """One line saying that the score of ``record`` is not final, and why; None when it is final.

    Two reasons, said in this order: a hand not finished (:func:`engine.record.hands_without_result`: in play
    when the record ends, awaiting a reveal, or left when the next hand began), whatever the warnings
    (helper-259: footage that ends mid-hand gave a record with no warning, and `record show` said nothing
    where the review's summary said "not final"); and the warnings that put the score in doubt
    (:func:`doubts_score`, by the kinds the record keeps, or by their words in a record that keeps none; a
    review's, or the service's on a copy made mid-hand), those on the rule set (``rules_misfit``) and those
    saying the photos may be out of order (``tile_missing``) named as such, and where they are ``shown``
    (helper-172: `record report` and `record show` gave such a score as any other; helper-179: "from the
    review" was said of a record the service exported; helper-242: "1 warning" did not say the photos may be
    out of order)."""
    reasons = []
    unfinished = hands_without_result(record)
    if unfinished:
        reasons.append("hand not finished: " + "; ".join(_why_no_result(h, record) for h in unfinished))
    # the review's own rule (helper-249): a warning on some reads only (small tiles, glare away from the line)
    # leaves its score final, there as here
    kinds = [_kind(w) for w in record_warnings(record) if doubts_score(w)]
    if kinds:
        rules, order = kinds.count("rules_misfit"), kinds.count("tile_missing")
        others = len(kinds) - rules - order
        said = [f"{plural(rules, 'rules warning')} (rules_misfit)"] if rules else []
        said += [f"{plural(order, 'warning')} that the photos may be out of order (tile_missing)"] if order else []
        said += [plural(others, "other warning" if said else "warning")] if others else []
        listed = ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0]
        reasons.append(f"{listed} in the record; see {shown}")
    if not reasons:
        return None
    if not unfinished:
        return f"score not final (it may be wrong): {reasons[0]}"
    return "score not final: " + "; and it may be wrong: ".join(reasons)


def _why_no_result(hand: HandRecord, record: MatchRecord) -> str:
    """Why ``hand`` of ``record`` (one of :func:`engine.record.hands_without_result`) has no result."""
    name = hand_name(hand, record)
    if hand.status == "awaiting_reveal":
        return f"{name} ended but awaits the tiles shown at its end, so its end-of-hand points are not counted"
    later = record.hands[record.hands.index(hand) + 1:]
    when = f"{hand_name(later[0], record)} began before it ended" if later else "the record ends while it is in play"
    return f"{name} has no result ({when}), so its end-of-hand points are not counted"


def _kind(warning: str) -> str | None:
    """The kind of a record's ``warning`` (:func:`record_warnings`); for one of an old record, which keeps no
    kinds, ``rules_misfit`` or ``tile_missing`` told by its words, else None."""
    if isinstance(warning, Warned):
        return warning.kind
    from vision.rules_fit import CHECK  # the words every rules_misfit warning ends its reason with

    return "rules_misfit" if CHECK in warning else "tile_missing" if OUT_OF_ORDER_NOTICES in warning else None
