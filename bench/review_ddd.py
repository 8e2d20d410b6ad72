"""``dominocast review --rules none`` on the real Double Double Dominoes time-lapse photos.

    .venv/bin/python bench/review_ddd.py [--games 1 2 3 4 5]

Each game's 20 photos (one per move, ``../shared/realdata/ddd-train/G_MM.jpg``; evaluation
only, never copied) are reviewed as a time-lapse folder with placements only (the board is a
grid, not a line of play; each tile exists twice: two sets). The first photo is the starting
board; the k-th placement after it is compared with the tile of move k + 1 (``G_MM.txt``): placements found, found in the right order, tile
identity right. Writes ``bench/results/review_ddd.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from datasets.real_photos import load_ddd_game, realdata_root
from service.review import run_review
from vision.recognize import Recognizer
from vision.sources import open_source


def score_game(moves: list, rows: list[dict]) -> dict:
    """Compare the review's placements with the labelled moves 2..20 (identity as an unordered pair).

    The first photo already shows move 1: it is the review's starting board (its ``baseline``
    row), so placements are measured from move 2 on. Photo k is frame k - 1; a move is
    ``at_its_move`` when a placement of that frame has its tile, ``found`` when any placement
    has it; ``extra`` counts placements that match no move.
    """
    placements = [r for r in rows if r["type"] == "placement"]
    by_frame: dict[int, list[tuple[int, int]]] = {}
    for r in placements:
        by_frame.setdefault(r["frame"], []).append(tuple(sorted(r["tile"])))
    remaining = [tuple(sorted(r["tile"])) for r in placements]
    out = {"moves": 0, "placements": len(placements), "at_its_move": 0, "found": 0}
    for m in moves[1:]:
        tile = tuple(sorted((m.halves[0][2], m.halves[1][2])))
        out["moves"] += 1
        out["at_its_move"] += tile in by_frame.get(m.index - 1, [])
        if tile in remaining:
            remaining.remove(tile)
            out["found"] += 1
    out["extra"] = len(remaining)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, nargs="*", default=[1, 2, 3, 4, 5])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="bench/results/review_ddd.json")
    args = ap.parse_args()
    if realdata_root() is None:
        raise SystemExit("../shared/realdata is absent: nothing to measure")
    recognizer = Recognizer(threads=args.threads, n_sets=2)
    per_game = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for g in args.games:
            moves = load_ddd_game(g)
            folder = Path(tmp) / f"game{g}"
            folder.mkdir()
            for m in moves:  # symlinks: the photos are never copied
                (folder / m.image.name).symlink_to(m.image)
            src = open_source(folder)
            run_review(src, None, lambda im: recognizer(im), folder / "review", None, annotate=False)
            rows = [json.loads(x) for x in (folder / "review" / "events.jsonl").read_text().splitlines()]
            res = {"game": g, **score_game(moves, rows)}
            per_game.append(res)
            print(res)
    tot = {k: sum(r[k] for r in per_game) for k in ("moves", "placements", "found", "at_its_move", "extra")}
    report = {**tot, "found_rate": tot["found"] / tot["moves"], "at_its_move_rate": tot["at_its_move"] / tot["moves"],
              "wall_s": round(time.perf_counter() - start, 1), "per_game": per_game}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    print({k: v for k, v in report.items() if k != "per_game"})


if __name__ == "__main__":
    main()
