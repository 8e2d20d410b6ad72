"""Benchmark section: live-feed fan-out of the service (a smaller ``bench/service_fanout.py``).

The real ``dominocast serve`` in its own process, ``manual`` tables fed through
``POST /api/tables/{id}/events``, SSE overlay clients in a third process; latency = client
receipt - the event's server publish time (one host, one clock). Runs once with httpx
clients and once with the lighter hand-written client (about half the client CPU): on a
small shared host the clients compete with the service for the CPU, and the two runs show
how much of the tail is the harness. All the work is :func:`bench.service_fanout.driver`;
the full-size run (8 tables x 25 clients) stays that script's own command line.
"""

from __future__ import annotations

from bench.common import BenchConfig, md_table

TITLE = "Service fan-out"

#: Driver options (``bench/service_fanout.py`` command line) for ``make bench`` and the smoke run.
CONFIGS = {
    "full": {"tables": 4, "clients_per_table": 10, "events": 40, "interval": 0.25},
    "smoke": {"tables": 1, "clients_per_table": 2, "events": 5, "interval": 0.1, "grace": 0.5},
}
CLIENTS = ("httpx", "raw")
TARGET_P99_MS = 100.0


def run(cfg: BenchConfig) -> dict:
    """One driver run per client stack, each with a fresh service.

    Returns:
        ``{"config": driver options, "runs": [driver result, ...]}`` (see
        ``bench/service_fanout.py``: latencies in ms, memory in MiB).

    Raises:
        RuntimeError: the service did not start or a run produced nothing.
    """
    from bench import service_fanout as sf

    conf = CONFIGS["smoke" if cfg.smoke else "full"]
    runs = []
    for client in CLIENTS:
        r = sf.driver(sf.driver_args(**conf, client=client, seed=11 + cfg.seed))
        if not r:
            raise RuntimeError(f"service fan-out with {client} clients produced no result")
        runs.append(r)
    return {"config": conf, "runs": runs}


def _ms(x) -> str:
    return "n/a" if x is None else f"{x:.1f} ms"


def render(results: dict) -> str:
    """The section's Markdown: one row per client stack, targets, service memory."""
    c = results["config"]
    runs = results["runs"]
    n_events = c["tables"] * c["events"]
    out = [f"{c['tables']} `manual` tables x {c['clients_per_table']} SSE clients "
           f"({c['tables'] * c['clients_per_table']} clients), {c['events']} events per table, "
           f"{c['interval']:g} s apart per table ({c['tables'] / c['interval']:g} events/s in total); "
           f"{n_events} events, each to every client of its table. Latency = client receipt - server publish "
           f"time; \"send\" = client receipt - the POST leaving the driver. The issue's full size (8 x 25 "
           f"clients): `.venv/bin/python bench/service_fanout.py`.\n"]
    rows = []
    for r in runs:
        lp, ls = r["latency_publish"], r["latency_send"]
        rows.append([r["config"]["client"], f"{r['host']['other_cores_during_posting']:g}",
                     _ms(lp.get("p50_ms")), f"**{_ms(lp.get('p99_ms'))}**", _ms(lp.get("max_ms")),
                     _ms(ls.get("p99_ms")), f"{r['deliveries']} / {r['deliveries_expected']}",
                     f"{r['lost']} / {r['duplicated']} / {r['clients_reordered']}",
                     f"< {TARGET_P99_MS:g} ms: {'met' if r['targets']['p99_under_100ms'] else 'not met'}"])
    out.append(md_table(["clients", "cores taken by other jobs", "p50", "p99", "max", "send p99",
                         "deliveries", "lost / duplicated / reordered clients", "target p99"], rows))
    mem = [r["service_memory_mib"] for r in runs]
    out.append("Service RSS (MiB): " + "; ".join(
        f"{r['config']['client']} run: idle {m['idle']}, clients connected {m['clients_connected']}, "
        f"peak {m['peak_VmHWM']}" for r, m in zip(runs, mem))
        + ". No loss, duplicate or reordering is the target too: "
        + ("met" if all(r["targets"]["no_loss_no_dup"] for r in runs) else "**not met**") + ".\n")
    problems = [p for r in runs for p in r.get("problems", [])]
    if problems:
        out.append("Problems: " + "; ".join(problems[:5]) + ".\n")
    return "\n".join(out)
