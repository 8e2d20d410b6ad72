"""Shared helpers for the training entry points (device choice, dataset on demand, metrics files)."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent
REPO_ROOT = MODELS_DIR.parent
CHECKPOINTS = MODELS_DIR / "checkpoints"


def default_data_dir(seed: int, scenes: int, imgsz: int, windows: int = 2) -> Path:
    """Where the generator's output for this recipe lives (ignored by git)."""
    tail = "" if windows == 2 else f"_win{windows}"
    return REPO_ROOT / "data" / f"synth_seed{seed}_scenes{scenes}_img{imgsz}{tail}"


def _missing_for_training(data: Path, recipe: dict | None) -> str:
    """What ``data`` lacks for training ("" when nothing): the recipe (``recipe``, its recipe.json as
    read), or a train / val split (not built, or fewer files than its recipe counts)."""
    counts = recipe.get("counts") if recipe else None
    if not isinstance(counts, dict):
        return "its recipe.json"
    for split in ("train", "val"):
        c = counts.get(split) or {}
        images = data / "detect" / "images" / split
        halves = data / "pips" / split
        n_img = sum(1 for _ in images.glob("*")) if images.is_dir() else 0
        n_half = sum(1 for _ in halves.glob("*/*")) if halves.is_dir() else 0
        if not c.get("detect_images") or n_img < c["detect_images"] or n_half < c.get("halves", 0):
            return f"its {split} split"
    return ""


def is_complete(data: Path) -> bool:
    """Whether ``data`` holds a whole dataset: its recipe.json and every split it counts."""
    from datasets.build import recipe_or_why

    return not _missing_for_training(Path(data), recipe_or_why(data)[0])


def dataset_problem(data: Path, scenes: int, seed: int, imgsz: int, windows: int = 2,
                    any_windows: bool = False) -> str | None:
    """Why training cannot use or build the dataset folder ``data`` for this recipe, in one line, or None.

    A complete dataset (:func:`_missing_for_training` finds nothing) is used as it is, whatever
    ``scenes`` and ``seed`` say, but its detector windows must be ``imgsz`` px (unless ``any_windows``:
    the pip reader reads the halves, whatever the windows).  An incomplete one is
    built again only when its recipe.json names this very recipe (same generator version, seed,
    scenes, window size and windows per scene: the build writes the same files again); a half-built
    folder of another recipe, or one without recipe.json, would mix its files into the new dataset
    (helper-149: an interrupted seed-0 build's halves, held-out ones included, trained a seed-5 reader).
    """
    from datasets.build import DATASET_PARTS, RECIPE_VERSION

    data = Path(data)
    if not data.exists():
        return None
    if not data.is_dir():
        return f"{data} is not a folder"
    from datasets.build import recipe_or_why

    recipe, why = recipe_or_why(data)
    if not _missing_for_training(data, recipe):
        got = recipe.get("imgsz") if recipe else None
        if got is not None and got != imgsz and not any_windows:
            return (f"{data} holds detector windows of {got} px, not --imgsz {imgsz}: "
                    f"give --imgsz {got} or build a dataset of {imgsz} px windows into another folder")
        return None
    built = [p for p in DATASET_PARTS if (data / p).exists()]
    if not built:
        return None
    if recipe is not None and "crop_version" in recipe:  # helper-151: was "the recipe ... imgsz None"
        return (f"{data} holds the tile verifier's crops (`dominocast train verifier` trains on them), not a "
                "detector and pip dataset: give another --data")
    want = {"version": RECIPE_VERSION, "seed": seed, "scenes": scenes, "imgsz": imgsz, "det_per_scene": windows}
    if recipe is not None and all(recipe.get(k) == v for k, v in want.items()):
        return None
    what = ("no recipe.json (an interrupted build)" if why == "does not exist" else
            f"a recipe.json that {why}" if recipe is None else
            "the recipe " + ", ".join(f"{k} {recipe.get(k)}" for k in want if recipe.get(k) != want[k]))
    return (f"{data} holds part of another dataset ({', '.join(built)}; {what}): its files would be mixed into "
            "this one; delete the folder or give another --data")


def ensure_dataset(data: Path, scenes: int, seed: int, imgsz: int, workers: int = 2, windows: int = 2,
                   any_windows: bool = False) -> dict:
    """Build the synthetic dataset into ``data`` unless it is there with its train and val splits
    (its recipe.json, and as many detector windows and halves per split as the recipe counts).

    ``windows`` detector windows are cut per usable rendered frame (``datasets.build.build``'s
    ``det_per_scene``); ``workers`` rendering processes.

    Returns:
        the dataset's recipe (its recipe.json): what the model was trained on, whatever the
        arguments said.

    Raises:
        ValueError: :func:`dataset_problem` (another recipe's files in ``data``, or windows of
            another size).
    """
    problem = dataset_problem(data, scenes, seed, imgsz, windows, any_windows)
    if problem:
        raise ValueError(problem)
    from datasets.build import recipe_or_why

    recipe = recipe_or_why(data)[0]
    missing = _missing_for_training(data, recipe)
    if not missing:
        return recipe or {}
    from datasets.build import build

    if (data / "recipe.json").exists():  # e.g. the bench builds the test split alone into the same folder
        print(f"dataset {data} lacks {missing}: building it again", flush=True)
    print(f"building dataset: {scenes} scenes, seed {seed}, imgsz {imgsz}, {windows} windows/scene -> {data}",
          flush=True)
    return build(data, scenes, seed=seed, imgsz=imgsz, workers=workers, det_per_scene=windows, progress=True)


def recipe_summary(recipe: dict) -> dict:
    """The metrics file's account of a dataset recipe: scenes, seed, window side (px), windows per scene,
    generator version."""
    return {"scenes": recipe.get("scenes"), "seed": recipe.get("seed"), "imgsz": recipe.get("imgsz"),
            "windows_per_scene": recipe.get("det_per_scene"), "generator_version": recipe.get("version")}


def resolve_device(device: str) -> str:
    """``auto`` -> ``"0"`` (first CUDA GPU) when torch sees one, else ``"cpu"``; other values pass through."""
    if device != "auto":
        return device
    import torch

    return "0" if torch.cuda.is_available() else "cpu"


def is_cuda_index(device: str) -> bool:
    """``0``, ``1`` or ``0,1``: CUDA device indices as torch and ultralytics take them (ASCII digits
    only: ``str.isdigit`` also takes superscripts, which ``int`` refuses)."""
    digits = device.replace(",", "")
    return digits.isascii() and digits.isdecimal()


def device_problem(device: str) -> str | None:
    """Why torch cannot train on ``device`` (``auto``, ``cpu``, or CUDA indices such as ``0`` or ``0,1``),
    in one line, or None when it can (or the value is not a CUDA index: the caller checks its form)."""
    if not is_cuda_index(device):
        return None
    import torch

    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    missing = [i for i in device.split(",") if i and int(i) >= n]
    if not missing:
        return None
    there = "0" if n == 1 else f"0-{n - 1}"
    sees = "no CUDA GPU" if n == 0 else f"{n} CUDA GPU{'s' if n > 1 else ''} ({there})"
    return f"--device {device}: torch sees {sees}; use auto or cpu" + ("" if n == 0 else f", or {there}")


def hardware(device: str) -> str:
    """One-line description of the training hardware."""
    if device not in ("cpu",):
        try:
            import torch

            return f"GPU {torch.cuda.get_device_name(0)}"
        except Exception:  # pragma: no cover - best effort
            return f"device {device}"
    return f"CPU {platform.processor() or platform.machine()}, {os.cpu_count()} cores"


def data_arguments(description: str, epochs: int, batch: int):
    """An argument parser with the options both trainers share: data recipe, epochs, batch, device, resume."""
    import argparse

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--scenes", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--batch", type=int, default=batch)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--resume", action="store_true")
    return ap


def repo_relative(path: Path) -> str:
    """``path`` relative to the repository when inside it (metrics files travel with the repo), else absolute
    (helper-150: a folder relative to wherever the command ran named nothing later)."""
    full = Path(path).resolve()
    try:
        return str(full.relative_to(REPO_ROOT))
    except ValueError:
        return str(full)


def write_json(path: Path, obj: dict) -> None:
    """Write ``obj`` as indented JSON."""
    path.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n")


class Stopwatch:
    """Wall-clock seconds since construction."""

    def __init__(self) -> None:
        self.t0 = time.time()

    def __call__(self) -> float:
        return round(time.time() - self.t0, 1)
