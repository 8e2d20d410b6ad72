"""models.common.ensure_dataset: a dataset folder is used only when it holds what training reads,
and built into only when nothing of another recipe is there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import datasets.build
from datasets.build import RECIPE_VERSION
from models.common import dataset_problem, ensure_dataset, recipe_summary


def _recipe(seed: int = 0, scenes: int = 10, imgsz: int = 320, windows: int = 2) -> dict:
    return {"version": RECIPE_VERSION, "seed": seed, "scenes": scenes, "imgsz": imgsz, "det_per_scene": windows}


def _folder(root, train_images: int, recipe_train: int, recipe: dict | None = None):
    """A dataset folder whose recipe counts ``recipe_train`` train windows (2 val), holding
    ``train_images`` of them, 2 val windows and one half per split."""
    counts = {"train": {"detect_images": recipe_train, "halves": 1}, "val": {"detect_images": 2, "halves": 1},
              "test": {"detect_images": 1, "halves": 1}}
    (root / "recipe.json").parent.mkdir(parents=True, exist_ok=True)
    (root / "recipe.json").write_text(json.dumps({**(recipe if recipe is not None else _recipe()), "counts": counts}))
    for split, n in (("train", train_images), ("val", 2)):
        (root / "detect" / "images" / split).mkdir(parents=True)
        for k in range(n):
            (root / "detect" / "images" / split / f"{k}.jpg").write_bytes(b"x")
        (root / "pips" / split / "3").mkdir(parents=True)
        (root / "pips" / split / "3" / "a.png").write_bytes(b"x")
    return root


@pytest.fixture
def calls(monkeypatch):
    made = []
    monkeypatch.setattr(datasets.build, "build", lambda out, scenes, **kw: made.append((out, scenes)) or {})
    return made


def test_a_complete_dataset_is_used_and_an_incomplete_one_of_this_recipe_is_built_again(tmp_path, calls):
    whole = _folder(tmp_path / "whole", 3, 3, _recipe(seed=3, scenes=20))
    # used as it is whatever --scenes and --seed say; the metrics name what it was built from
    assert recipe_summary(ensure_dataset(whole, 10, 0, 320)) == {
        "scenes": 20, "seed": 3, "imgsz": 320, "windows_per_scene": 2, "generator_version": RECIPE_VERSION}
    assert calls == []
    short = _folder(tmp_path / "short", 1, 3)  # train windows deleted: the same recipe writes the same files
    ensure_dataset(short, 10, 0, 320)
    test_only = _folder(tmp_path / "test_only", 0, 0)  # the bench's test split alone: no train split counted
    ensure_dataset(test_only, 10, 0, 320)
    ensure_dataset(tmp_path / "none", 10, 0, 320)
    assert calls == [(short, 10), (test_only, 10), (tmp_path / "none", 10)]


def test_part_of_another_recipe_is_refused_not_mixed_in(tmp_path, calls):
    """helper-149: an interrupted seed-0 build's halves (held-out ones too) trained a seed-5 reader."""
    other = _folder(tmp_path / "other", 1, 3, _recipe(seed=0))
    with pytest.raises(ValueError, match="holds part of another dataset .*the recipe seed 0"):
        ensure_dataset(other, 10, 5, 320)
    half = tmp_path / "half"  # killed before recipe.json was written
    (half / "pips" / "train" / "3").mkdir(parents=True)
    assert "no recipe.json (an interrupted build)" in dataset_problem(half, 10, 0, 320)
    assert "the recipe scenes 10, imgsz 320" in dataset_problem(_folder(tmp_path / "o2", 1, 3), 20, 0, 416)
    other_files = tmp_path / "notes"  # a folder of other files is no dataset: built into
    other_files.mkdir()
    (other_files / "readme.txt").write_text("x")
    assert dataset_problem(other_files, 10, 0, 320) is None
    assert calls == []


def test_windows_of_another_size_are_refused(tmp_path):
    """helper-149: --imgsz 640 on a 320 px dataset trained a 640-input detector of mAP 0, replacing the shipped one."""
    whole = _folder(tmp_path / "whole", 3, 3, _recipe(imgsz=320))
    assert dataset_problem(whole, 10, 0, 640) == (
        f"{whole} holds detector windows of 320 px, not --imgsz 640: give --imgsz 320 or build a dataset of "
        "640 px windows into another folder")
    assert dataset_problem(whole, 10, 0, 320) is None
    assert dataset_problem(whole, 10, 0, 640, any_windows=True) is None  # the pip reader reads halves
    f = tmp_path / "file"
    f.write_text("x")
    assert dataset_problem(f, 10, 0, 320) == f"{f} is not a folder"


def test_a_metrics_file_names_a_dataset_outside_the_repository_by_its_full_path(tmp_path, monkeypatch):
    """helper-150: `--data d` run from /tmp was written as "d", which names nothing once the run is over."""
    from models.common import REPO_ROOT, repo_relative

    monkeypatch.chdir(tmp_path)
    assert repo_relative(Path("d")) == str(tmp_path / "d")
    assert repo_relative(REPO_ROOT / "data" / "x") == str(Path("data") / "x")


def test_an_unreadable_recipe_is_named_as_such_not_as_a_missing_one(tmp_path):
    """helper-150 follow-up: a recipe.json holding [1, 2] was reported as "no recipe.json"."""
    d = tmp_path / "d"
    d.mkdir()
    (d / "recipe.json").write_text("[1, 2]")
    assert dataset_problem(d, 10, 0, 320) == (
        f"{d} holds part of another dataset (recipe.json; a recipe.json that is not a JSON object): its files "
        "would be mixed into this one; delete the folder or give another --data")
