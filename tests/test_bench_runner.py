"""The benchmark runner: child processes, the regenerated document, and a smoke run of every section.

The smoke run is what keeps ``make bench`` from rotting: every section's code path runs on tiny
inputs (its numbers mean nothing and nothing is asserted about them).
"""

from __future__ import annotations

import json
import os

import pytest

from bench import runner
from bench.common import in_child, md_table, timed


def _square(x: int) -> int:
    return x * x


def _boom() -> None:
    raise ValueError("bad input 42")


def _allocate(mb: int) -> int:
    block = bytearray(mb * 2**20)
    block[::4096] = b"x" * len(block[::4096])  # touch every page so it is resident
    return len(block)


def test_in_child_returns_the_value_and_its_own_peak_memory():
    small, rss_small = in_child(_allocate, 1)
    big, rss_big = in_child(_allocate, 200)
    assert (small, big) == (2**20, 200 * 2**20)
    # The 200 MiB child peaks at least ~190 MiB above the 1 MiB one: memory is per child.
    assert rss_big - rss_small > 190


def _children(pid: int) -> list[int]:
    """Pids of ``pid``'s children running a section (multiprocessing's ``spawn_main``), from /proc."""
    out = []
    for d in os.listdir("/proc"):
        try:
            stat = open(f"/proc/{d}/stat").read()
            cmd = open(f"/proc/{d}/cmdline", "rb").read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"spawn_main" in cmd:
            out.append(int(d))
    return out


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to find the child process")
def test_a_sections_child_ends_when_the_bench_is_killed():
    """A bench killed by pid (not Ctrl-C, which reaches the child too) left its section running, writing into the
    scratch folder while the next run reviewed there (a photo folder's record replaced mid-run: 0 of 24 plays)."""
    import signal
    import subprocess
    import sys
    import time

    bench = subprocess.Popen([sys.executable, "-c", "import time; from bench.common import in_child; "
                              "in_child(time.sleep, 120)"], cwd=os.path.dirname(os.path.dirname(__file__)))
    try:
        deadline = time.monotonic() + 60
        while not (child := _children(bench.pid)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(child) == 1, "the section's child did not start"
        os.kill(bench.pid, signal.SIGKILL)
        bench.wait()
        deadline = time.monotonic() + 30
        while os.path.exists(f"/proc/{child[0]}") and time.monotonic() < deadline:
            time.sleep(0.2)
        # gone, or a zombie waiting for init to reap it
        alive = os.path.exists(f"/proc/{child[0]}") and open(f"/proc/{child[0]}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
        assert not alive
    finally:
        bench.kill()


def test_in_child_reports_the_child_error():
    with pytest.raises(RuntimeError, match="ValueError: bad input 42"):
        in_child(_boom)
    assert in_child(_square, 7)[0] == 49


def test_timed_counts_runs_and_orders_min_below_median():
    calls = []
    r = timed(lambda: calls.append(1), runs=5, warmup=2)
    assert len(calls) == 7 and r["runs"] == 5
    assert r["min_ms"] <= r["median_ms"]


def test_md_table_shape():
    assert md_table(["a", "b"], [[1, None]]) == "| a | b |\n|---|---|\n| 1 |  |\n"


def test_unknown_section_is_one_line_exit_2(capsys):
    assert runner.main(["--only", "speed,nonsense"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "nonsense" in err


def test_document_notes_missing_and_failed_sections():
    failed = {"section": "speed", "started": "2026-11-29T20:00:00+00:00", "wall_s": 3.0, "smoke": False,
              "error": "RuntimeError: no model\ntraceback...", "load_avg_1min": [1.0, 1.5],
              "machine": {"cpu": "x", "cores": 2, "memory_gib": 24, "system": "linux"}, "versions": {"python": "3"}}
    doc = runner.render_document({"speed": failed}, "make bench")
    assert "**Failed:** `RuntimeError: no model`" in doc
    for name in runner.SECTIONS:
        if name != "speed":
            assert f"python -m bench --only {name}" in doc


def test_smoke_run_of_every_section(tmp_path):
    out, res = tmp_path / "benchmarks.md", tmp_path / "results"
    rc = runner.main(["--smoke", "--out", str(out), "--results", str(res), "--scratch", str(tmp_path / "scratch")])
    doc = out.read_text()
    assert "**Failed:**" not in doc, doc
    assert rc == 0
    for name in runner.SECTIONS:
        stored = json.loads((res / f"{name}.json").read_text())
        assert stored["smoke"] is True and "results" in stored
        assert runner._module(name).TITLE in doc


def test_targets_at_a_glance_gives_a_verdict_per_measured_target():
    from bench.summary import render_summary

    stored = {"footage": {"results": {"total": {"found_rate": 0.853, "injected": 9, "injected_flagged": 6,
                                                "latency": {"median_s": 0.93, "p95_s": 1.13}}}},
              "speed": {"results": {"detector": {"onnxruntime": {"median_ms": 18.5}}}}}
    table = render_summary(stored)
    assert "| footage: plays found | 0.853 | >= 0.99 | **not met** |" in table
    assert "| footage: injected mismatched ends not flagged | 3 | 0 | **not met** |" in table
    assert "| footage: event latency p95, s | 1.130 | <= 2.0 | met |" in table
    assert "| detector, one input, median ms | 18.5 | <= 40 | met |" in table
    assert "precision" not in table  # the synthetic section did not run: no row, no guess
    assert render_summary({}) == ""
