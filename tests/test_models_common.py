"""models.common.ensure_dataset: a dataset folder is used only when it holds what training reads."""

from __future__ import annotations

import json

import datasets.build
from models.common import ensure_dataset


def _folder(root, train_images: int, recipe_train: int):
    """A dataset folder whose recipe counts ``recipe_train`` train windows (2 val), holding
    ``train_images`` of them, 2 val windows and one half per split."""
    counts = {"train": {"detect_images": recipe_train, "halves": 1}, "val": {"detect_images": 2, "halves": 1},
              "test": {"detect_images": 1, "halves": 1}}
    (root / "recipe.json").parent.mkdir(parents=True, exist_ok=True)
    (root / "recipe.json").write_text(json.dumps({"counts": counts}))
    for split, n in (("train", train_images), ("val", 2)):
        (root / "detect" / "images" / split).mkdir(parents=True)
        for k in range(n):
            (root / "detect" / "images" / split / f"{k}.jpg").write_bytes(b"x")
        (root / "pips" / split / "3").mkdir(parents=True)
        (root / "pips" / split / "3" / "a.png").write_bytes(b"x")
    return root


def test_a_complete_dataset_is_used_and_an_incomplete_one_is_built_again(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(datasets.build, "build", lambda out, scenes, **kw: calls.append((out, scenes)))
    whole = _folder(tmp_path / "whole", 3, 3)
    assert ensure_dataset(whole, 10, 0, 320) == whole and calls == []
    short = _folder(tmp_path / "short", 1, 3)  # train windows deleted
    ensure_dataset(short, 10, 0, 320)
    test_only = _folder(tmp_path / "test_only", 0, 0)  # the bench's test split alone: no train split counted
    ensure_dataset(test_only, 10, 0, 320)
    ensure_dataset(tmp_path / "none", 10, 0, 320)
    assert calls == [(short, 10), (test_only, 10), (tmp_path / "none", 10)]
