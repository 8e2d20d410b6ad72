"""The umpire console's script (service/static/umpire.js) under node, with a small DOM (tests/js/minidom.js):
what the umpire chose survives the redraws the feeds cause, a penalty left without its flag is said and
can be voided, and the table settings form sends only what changed. The browser tests (test_service_browser.py) need Chromium; these need only node."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

NODE = shutil.which("node")
SCRIPT = Path(__file__).parent / "js" / "umpire_console.js"
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


@pytest.mark.parametrize("scenario", ["penalty_pick_survives_redraws", "hand_menu_is_rebuilt_only_when_its_hands_change",
                                      "a_penalty_left_without_its_flag_is_said_and_can_be_voided",
                                      "corrected_ends_penalties_and_reveals_read_as_corrected",
                                      "table_settings_send_only_what_changed",
                                      "camera_notes_are_listed_apart_from_the_queue"])
def test_umpire_console(scenario):
    r = subprocess.run([NODE, str(SCRIPT), scenario], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr or r.stdout
    assert r.stdout.strip() == f"ok {scenario}"
