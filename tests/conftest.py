"""Fixtures shared by several test modules."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from calibration.profile import TableProfile
from datasets.footage import make_footage

# A shell without job control starts background jobs (`make test &`, nohup) with Ctrl-C ignored, and
# the ignoring is inherited by every process the tests start: the Ctrl-C tests then saw no
# interrupt. Python's own handler is what a terminal gives it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def footage(tmp_path_factory) -> dict:
    """A short generated all-fives hand (640x360, 8 fps, seed 5): paths, ground truth and profile."""
    out = tmp_path_factory.mktemp("footage")
    paths = make_footage("all-fives", seed=5, out_dir=out, fps=8, size=(640, 360))
    gt = json.loads(Path(paths["ground_truth"]).read_text())
    return {"paths": paths, "gt": gt, "profile": TableProfile.load(paths["profile"])}
