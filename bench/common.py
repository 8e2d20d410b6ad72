"""Shared pieces of the benchmark suite: configuration, timing, child processes, tables.

Every section module (``bench/sec_*.py``) exposes ``TITLE``, ``run(cfg) -> dict`` (JSON-able
results) and ``render(results) -> str`` (a Markdown fragment).  ``python -m bench`` runs the
sections, each in a fresh process so that its peak memory is its own, writes
``bench/results/<section>.json`` and regenerates ``docs/benchmarks.md``.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import platform
import resource
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@dataclass(frozen=True)
class BenchConfig:
    """What a section may use.

    Attributes:
        smoke: tiny inputs and one run per measurement; used by ``make test`` so the suite
            cannot rot. Numbers from a smoke run mean nothing.
        realdata: ``../shared/realdata`` (or ``$DOMINOCAST_REALDATA``), or None when absent:
            sections then skip their real-data parts with a note.
        figures: where failure pictures go (``docs/bench`` for a full run). Pictures are made
            only from generated data; real photos carry no licence, so their failures are
            listed by file name, never copied.
        scratch: a folder for rendered datasets and footage (not committed).
        threads: onnxruntime intra-op threads per model.
        runs: timing repetitions after one warm-up (median and fastest are reported).
        seed: seed of every generated input.
    """

    smoke: bool = False
    realdata: Path | None = None
    figures: Path = REPO / "docs" / "bench"
    scratch: Path = REPO / "data" / "bench"
    threads: int = 2
    runs: int = 10
    seed: int = 0
    extra: dict = field(default_factory=dict)


def timed(fn: Callable[[], Any], runs: int, warmup: int = 1) -> dict:
    """Time ``fn`` after ``warmup`` calls; returns ``{"median_ms", "min_ms", "runs"}``.

    The fastest run is the better estimate of the cost on a shared machine; the median
    is what a user sees on it.
    """
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(max(1, runs)):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1000.0)
    return {"median_ms": round(statistics.median(ts), 2), "min_ms": round(min(ts), 2), "runs": len(ts)}


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB.

    ``VmHWM`` from ``/proc/self/status``: a spawned child's ``ru_maxrss`` starts at its parent's
    peak on Linux, so it would charge the parent's memory to every child. Falls back to
    ``getrusage`` where ``/proc`` is missing.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024.0, 1)
    except (OSError, ValueError, IndexError):
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


#: How often a section's child checks that the bench that started it is still there (s).
ORPHAN_CHECK_S = 2.0


def _exit_when_orphaned(parent: int) -> None:
    """End this process once ``parent`` is gone: a bench killed (not Ctrl-C, which reaches the whole process
    group) left its section running, writing into the scratch folder under the next run's reviews."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_S)
    os._exit(1)


def _child(q, fn, args, kwargs, parent: int) -> None:
    import threading

    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    try:
        q.put(("ok", fn(*args, **kwargs), peak_rss_mb()))
    except BaseException as e:  # the parent reports it; a benchmark must not hang on a failure
        import traceback

        q.put(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}", peak_rss_mb()))


def in_child(fn: Callable, *args, timeout_s: float = 3600, **kwargs) -> tuple[Any, float]:
    """Run ``fn(*args, **kwargs)`` in a fresh (spawned) process.

    Returns ``(result, peak_rss_mb)`` where the memory is that child's alone (model loads
    included), so methods compared side by side each get their own figure. ``fn`` must be a
    module-level function and its result picklable.

    Raises:
        RuntimeError: the child raised (its traceback is in the message), died or timed out.
    """
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q, fn, args, kwargs, os.getpid()))
    p.start()
    try:
        status, value, rss = q.get(timeout=timeout_s)
    except Exception as e:
        p.kill()
        raise RuntimeError(f"{getattr(fn, '__name__', fn)} did not finish: {e!r} (exit code {p.exitcode})") from None
    p.join()
    if status != "ok":
        raise RuntimeError(value)
    return value, rss


def md_table(headers: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table; floats are printed as given (round them first)."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join("" if c is None else str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def pct(x: float | None, digits: int = 3) -> str:
    """A fraction for a table (``0.987``), or ``n/a``."""
    return "n/a" if x is None else f"{x:.{digits}f}"


def versions() -> dict:
    """Versions of the libraries the measurements depend on (absent ones are omitted)."""
    from importlib import metadata

    out = {"python": platform.python_version()}
    # distribution metadata, not imports: importing torch costs seconds per section
    for dist in ("numpy", "opencv-python-headless", "opencv-python", "onnxruntime", "torch", "ultralytics", "fastapi"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return out


def machine() -> dict:
    """CPU, cores, memory and the 1-minute load average when this is called."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = None
    try:
        kb = int(next(l for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal")).split()[1])
        mem_gib = round(kb / 2**20, 1)
    except (OSError, StopIteration, ValueError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": mem_gib, "system": platform.platform(),
            "load_avg_1min": round(os.getloadavg()[0], 2)}
