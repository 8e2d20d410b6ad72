"""The pages' shared JavaScript (``service/static/common.js``, the ``DC`` object) run under node, for tests of
what the overlay says that need no browser (``tests/test_service_browser.py`` needs Chromium)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

COMMON = Path(__file__).resolve().parents[1] / "service" / "static" / "common.js"
NODE = shutil.which("node")

_RUN = """
const vm = require("vm"), fs = require("fs");
const ctx = vm.createContext({location: {search: "", pathname: "/", hash: "", href: "http://localhost/"},
                              URLSearchParams, console});
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), ctx);
const calls = JSON.parse(fs.readFileSync(0, "utf8"));
ctx.args = calls;
process.stdout.write(JSON.stringify(vm.runInContext("args.map(([f, a]) => DC[f](...a))", ctx)));
"""


def dc(calls: list[tuple[str, list]]) -> list:
    """What ``DC[name](*args)`` returns for each ``(name, args)`` (JSON in, JSON out), in one node run;
    the test skips where node is not installed."""
    if NODE is None:
        pytest.skip("node is not installed")
    out = subprocess.run([NODE, "-e", _RUN, str(COMMON)], input=json.dumps(calls), capture_output=True, text=True,
                         timeout=60, check=True)
    return json.loads(out.stdout)
