"""``dominocast train``: train the tile detector, the pip reader or the tile verifier; quantize the detector."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Optional

import typer

from service.cli_common import (check_positive, check_scenes, check_seed, check_workers, console, err_console, fail,
                                first_missing, folder_option, path_parser, undo_partial)

train_app = typer.Typer(help="Train the shipped models on synthetic data (see docs/models.md).",
                        no_args_is_help=True)


def _need_training_deps(device: str, mods: tuple[str, ...] = ("torch", "ultralytics")) -> None:
    """The train extra is installed and torch can use ``--device``; else fail in one line (exit 2)."""
    for mod in mods:
        if importlib.util.find_spec(mod) is None:
            raise fail(f"{mod} is not installed: run `make train-deps` first")
    from models.common import device_problem

    problem = device_problem(device)
    if problem:
        raise fail(problem)


#: What ``train quantize`` imports beyond the runtime (the ``quantize`` extra): onnx, and sympy for onnxruntime's
#: shape inference (``quant_pre_process``); no torch, so not ``make train-deps`` (several GB).
QUANTIZE_MODULES = ("onnx", "sympy")


#: Largest ``--freeze``: YOLO11n-OBB has 24 layers and the last, the OBB head, must train.
MAX_FREEZE = 23
#: Largest ``--seed`` of the detector: ultralytics seeds numpy's legacy generator (0 to 2**32 - 1).
MAX_DETECTOR_SEED = 2**32 - 1
#: Largest ``--seed`` of the pip reader and the verifier: torch seeds are unsigned 64-bit.
MAX_TORCH_SEED = 2**64 - 1


def _at_least(option: str, value: int, low: int, why: str = "") -> None:
    """An integer option below ``low``: fail in one line (exit 2)."""
    if value < low:
        raise fail(f"{option} must be >= {low}{why}")


def _check_imgsz(imgsz: int) -> None:
    """``--imgsz``, the detector window side of the dataset recipe, as ``dominocast datasets build`` takes it."""
    if imgsz < 64 or imgsz % 32:
        raise fail("--imgsz must be a multiple of 32, at least 64")


def _check_device(device: str) -> None:
    """``--device``: auto, cpu or CUDA indices, else fail in one line (exit 2)."""
    from models.common import is_cuda_index

    if device not in ("auto", "cpu") and not is_cuda_index(device):
        raise fail(f"--device must be auto, cpu or a CUDA index, got {device!r}")


def _data_folder(text: Optional[str]) -> Optional[Path]:
    """``--data`` as typed (None: the recipe's default folder): not empty, UTF-8 (data.yaml is written
    there; helper-150: a non-UTF-8 name was built, then crashed), not a file."""
    if text is None:
        return None
    data = folder_option("--data", text)
    if data.exists() and not data.is_dir():
        raise fail(f"--data {data} is not a folder")
    return data


def _train(data: Path, parts: tuple[str, ...], complete, run) -> dict:
    """``run()`` the trainer, which builds its data into ``data`` first when it is not ``complete()``; on
    Ctrl-C say so in one line (exit 130) and remove a half-built ``data`` (its ``parts``), so that the same
    command builds it again (helper-150: it exited in silence and the next run refused the folder)."""
    made = first_missing(data)
    try:
        return run()
    except KeyboardInterrupt:
        left = (f"the dataset {data} is kept" if complete() else
                f"the dataset was not finished: {undo_partial(data, parts, made)}")
        err_console.print(f"interrupted: no model written; {left}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(code=130) from None
    except OSError as exc:  # a full disk while building or saving: one line, and no half-built dataset
        left = "" if complete() else f"; the dataset was not finished: {undo_partial(data, parts, made)}"
        raise fail(f"{exc.filename or data}: {exc.strerror or exc}{left}") from None


def _check_dataset(data: Optional[Path], scenes: int, seed: int, imgsz: int, windows: int = 2,
                   any_windows: bool = False) -> None:
    """The dataset folder training would use or build holds no other recipe's files and windows of ``imgsz``
    px (:func:`models.common.dataset_problem`), else fail in one line (exit 2)."""
    from models.common import dataset_problem, default_data_dir

    problem = dataset_problem(data or default_data_dir(seed, scenes, imgsz, windows), scenes, seed, imgsz, windows,
                              any_windows)
    if problem:
        raise fail(f"--data {problem}" if data else problem)


def _dataset_job(data: Optional[Path], scenes: int, seed: int, imgsz: int, windows: int = 2):
    """(folder, parts, complete) of the synthetic dataset a trainer uses, for :func:`_train`."""
    from datasets.build import DATASET_PARTS
    from models.common import default_data_dir, is_complete

    folder = data or default_data_dir(seed, scenes, imgsz, windows)
    return folder, DATASET_PARTS, lambda: is_complete(folder)


@train_app.command("detector")
def detector_cmd(
    epochs: int = typer.Option(30, "--epochs", help="Training epochs (ignored with --hours)."),
    hours: Optional[float] = typer.Option(None, "--hours", help="Wall-clock budget; the schedule fits it."),
    imgsz: int = typer.Option(320, "--imgsz", help="Detector input side, pixels."),
    scenes: int = typer.Option(1200, "--scenes", help="Rendered frames when the dataset must be built."),
    seed: int = typer.Option(0, "--seed", help="Generator seed."),
    data_text: Optional[str] = typer.Option(None, "--data", help="Dataset folder (built if missing)."),
    batch: int = typer.Option(16, "--batch"),
    device: str = typer.Option("auto", "--device", help="auto (GPU when torch sees one), cpu, or 0, 1, ..."),
    resume: bool = typer.Option(False, "--resume", help="Start from models/checkpoints/tile_detector.pt."),
    workers: int = typer.Option(2, "--workers", help="Rendering processes and data-loader workers."),
    windows: int = typer.Option(2, "--windows", help="Detector windows cut per rendered frame."),
    lr0: float = typer.Option(0.0005, "--lr0", help="With --resume: the starting AdamW learning rate."),
    freeze: int = typer.Option(0, "--freeze", help="With --resume: layers kept fixed (0-10 = backbone)."),
) -> None:
    """Train YOLO11n-OBB (tile_up / tile_down) and export models/tile_detector.onnx."""
    _check_device(device)
    data = _data_folder(data_text)
    _at_least("--epochs", epochs, 1)
    check_positive("--hours", hours, "hours")  # nan or inf would reach ultralytics' time budget
    _check_imgsz(imgsz)
    check_scenes(scenes)
    check_seed(seed, MAX_DETECTOR_SEED)
    _at_least("--batch", batch, 1)  # ultralytics reads < 1 as AutoBatch, which the val and test passes do not take
    check_workers(workers)
    _at_least("--windows", windows, 1)
    check_positive("--lr0", lr0)
    if not 0 <= freeze <= MAX_FREEZE:
        raise fail(f"--freeze must be 0-{MAX_FREEZE} (YOLO11n-OBB layers 0-10 are the backbone; the head, "
                   f"layer {MAX_FREEZE}, always trains), got {freeze}")
    if freeze and not resume:
        raise fail("--freeze fine-tunes the shipped detector: add --resume")
    _check_dataset(data, scenes, seed, imgsz, windows)
    _need_training_deps(device)  # after the argument checks: a typo is reported without the train extra too
    from models.train_detector import train

    m = _train(*_dataset_job(data, scenes, seed, imgsz, windows),
               lambda: train(data, scenes, seed, imgsz, epochs, hours, batch, workers, device, resume, windows=windows,
                             lr0=lr0, freeze=freeze))
    console.print(f"test (held-out): {m['test_heldout']}  -> models/tile_detector.onnx")


@train_app.command("pips")
def pips_cmd(
    epochs: int = typer.Option(12, "--epochs"),
    imgsz: int = typer.Option(320, "--imgsz", help="Detector window size of the dataset recipe (halves are 32 px)."),
    scenes: int = typer.Option(1200, "--scenes"),
    seed: int = typer.Option(0, "--seed"),
    data_text: Optional[str] = typer.Option(None, "--data", help="Dataset folder (built if missing)."),
    device: str = typer.Option("auto", "--device", help="auto (GPU when torch sees one), cpu, or 0, 1, ..."),
    resume: bool = typer.Option(False, "--resume", help="Start from models/checkpoints/pip_reader.pt."),
) -> None:
    """Train the pip reader (tiny CNN on rectified halves) and export models/pip_reader.onnx."""
    _check_device(device)
    data = _data_folder(data_text)
    _at_least("--epochs", epochs, 1)
    _check_imgsz(imgsz)
    check_scenes(scenes)
    check_seed(seed, MAX_TORCH_SEED)
    _check_dataset(data, scenes, seed, imgsz, any_windows=True)  # halves are 32 px whatever the windows
    _need_training_deps(device, ("torch",))  # after the argument checks: a typo is reported without the train extra too
    from models.train_pips import train

    m = _train(*_dataset_job(data, scenes, seed, imgsz),
               lambda: train(data, scenes, seed, imgsz, epochs, device=device, resume=resume))
    console.print(f"val acc {m['val_acc']}, held-out test acc {m['test_heldout_acc']} -> models/pip_reader.onnx")


@train_app.command("verifier")
def verifier_cmd(
    epochs: int = typer.Option(10, "--epochs"),
    scenes: int = typer.Option(4000, "--scenes", help="Rendered scenes (the held-out tenth is skipped)."),
    seed: int = typer.Option(7, "--seed"),
    data_text: Optional[str] = typer.Option(None, "--data", help="Crops folder (built if missing)."),
    device: str = typer.Option("auto", "--device", help="auto (GPU when torch sees one), cpu, or 0, 1, ..."),
    resume: bool = typer.Option(False, "--resume", help="Start from models/checkpoints/tile_verifier.pt."),
) -> None:
    """Train the tile verifier (tiny CNN: is there a tile in this box?) and export models/tile_verifier.onnx."""
    from datasets.verifier_crops import VERIFIER_PARTS, crops_problem, is_current
    from models.train_verifier import default_verifier_dir

    _check_device(device)
    data = _data_folder(data_text)
    _at_least("--epochs", epochs, 1)
    check_scenes(scenes, 10, " (the val split is every tenth scene)")
    check_seed(seed, MAX_TORCH_SEED)
    crops = data or default_verifier_dir(seed, scenes)
    problem = crops_problem(crops, scenes, seed)
    if problem:
        raise fail(f"--data {problem}" if data else problem)
    _need_training_deps(device, ("torch",))  # after the argument checks: a typo is reported without the train extra too
    from models.train_verifier import train

    from vision.recognize import NONE_THRESHOLD

    m = _train(crops, VERIFIER_PARTS, lambda: is_current(crops, scenes, seed),
               lambda: train(crops, scenes, seed, epochs, device=device, resume=resume))
    # the threshold the Recognizer uses (helper-149: the line showed 0.9, used until 2026-12-01)
    op = next(r for r in m["val_operating_points"] if r["threshold"] == NONE_THRESHOLD)
    console.print(f"val acc {m['val_acc']}; at P(none) >= {NONE_THRESHOLD:g} it drops {op['tiles_dropped']} of {op['tiles']} val "
                  f"tiles and catches {op['none_caught']} of {op['none']} non-tiles -> models/tile_verifier.onnx")


@train_app.command("quantize")
def quantize_cmd(
    data: Optional[Path] = typer.Option(None, "--data", parser=path_parser,
                                        help="Calibration dataset (its val/train windows); "
                                             "default: the one the detector was trained on."),
    calib: int = typer.Option(160, "--calib", help="Calibration windows."),
    keep_fp32: str = typer.Option("decode", "--keep-fp32", help="Head nodes left float32: none, decode, last, head."),
    check: Optional[Path] = typer.Option(None, "--check", parser=path_parser,
                                         help="Dataset whose test split scores fp32 vs int8."),
) -> None:
    """Quantize models/tile_detector.onnx to int8 -> models/tile_detector.int8.onnx (onnx and sympy, no torch)."""
    from models.quantize import KEEP_FP32, main  # onnx is imported only when it runs

    if calib < 1 or keep_fp32 not in KEEP_FP32:  # said before a missing onnx (helper-151)
        raise fail(f"--calib must be >= 1 and --keep-fp32 one of {', '.join(KEEP_FP32)}")
    missing = [mod for mod in QUANTIZE_MODULES if importlib.util.find_spec(mod) is None]
    if missing:  # helper-187: `make train-deps` (torch, several GB) was named
        raise fail(f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not installed: run "
                   f"`make quantize-deps` (or `pip install {' '.join(missing)}`) first; quantizing needs no torch")
    args = ["--calib", str(calib), "--keep-fp32", keep_fp32]
    args += ["--data", str(data)] if data else []
    args += ["--check", str(check)] if check else []
    try:
        main(args)
    except (FileNotFoundError, ValueError) as e:
        raise fail(str(e)) from None


def register(app: typer.Typer) -> None:
    """Add the ``train`` sub-command group to the main CLI."""
    app.add_typer(train_app, name="train")
