"""Live-feed fan-out benchmark: 8 manual tables, 200 SSE overlay clients, paced umpire events.

The issue's target: "8 tables fed by scripted event sources and 200 overlay clients connected:
event fan-out latency p99 < 100 ms, no lost or duplicated event; memory of the service process."

Three processes, so that no measurement shares the service's event loop:

* the **service**: the real ``dominocast serve`` (uvicorn, default settings: SQLite in WAL mode with
  ``synchronous=FULL``) on 127.0.0.1, a random free port, a temporary data dir, the token from
  ``$DOMINOCAST_TOKEN``;
* the **clients** (this file with ``--role clients``): 25 SSE streams per table (asyncio + httpx),
  each recording every message's id, kind, server ``time`` and the wall-clock time it arrived;
* the **driver** (this file): registers ``manual`` tables (their events come only through the API,
  so the driver knows every event's send time and id), waits until every client has its snapshot,
  then posts ``--events`` events per table through ``POST /api/tables/{id}/events`` (the first
  events of a simulated match: deal, plays, passes, draws, so the feed carries a real growing
  layout), paced ``--interval`` seconds apart per table and staggered across tables; it samples the
  service's RSS all along and reads its peak (``VmHWM``) at the end.

Per client: the ids of the ``event`` messages must be exactly the ids the POSTs returned, in order
(no loss, no duplicate, no reordering). Latency, over every (client, event) delivery:

* ``publish``: client receipt minus the message's server ``time`` (stamped in the transaction,
  before the commit: so it includes the SQLite commit, the publish and the SSE write);
* ``send``: client receipt minus the moment the driver sent the POST (end to end);
* ``ack``: client receipt minus the moment the POST's answer came back (negative when the
  feed beats the HTTP answer).

All three processes are on one host, so ``time.time()`` is one clock. The run also reports, per
event, the latency to the first and to the last of the table's 25 clients and the spread between
them, the CPU seconds of the service and of the client process, and the other processes that used
over 10 % of a core while the events were posted (a shared machine: read the latencies with them).

``--client httpx`` (default) reads the feeds with httpx streaming; ``--client raw`` with a small
hand-written HTTP/1.1 + SSE reader on asyncio streams, about half the client CPU: on a small shared
host the measuring process competes with the service for the CPU, and the two show how much of
the tail is the harness. ``--client both --runs 3`` interleaves them (what
``bench/results/service_fanout.json`` holds; about 2.5 minutes).

    .venv/bin/python bench/service_fanout.py                # 8 x 25 clients, 40 events/table (~20 s)
    .venv/bin/python bench/service_fanout.py --client both --runs 3
    .venv/bin/python bench/service_fanout.py --tables 2 --clients-per-table 5 --events 10 --out /tmp/x.json  # smoke
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

RULES = "all-fives"


# ---------------------------------------------------------------------------- helpers
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(xs: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100) of ``xs``; None when empty."""
    if not xs:
        return None
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


def summary_ms(xs: list[float]) -> dict:
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "p50_ms": round(pct(xs, 50) * 1e3, 2), "p90_ms": round(pct(xs, 90) * 1e3, 2),
            "p99_ms": round(pct(xs, 99) * 1e3, 2), "max_ms": round(max(xs) * 1e3, 2),
            "mean_ms": round(statistics.fmean(xs) * 1e3, 2), "min_ms": round(min(xs) * 1e3, 2)}


def vm_status(pid: int) -> dict:
    """VmRSS / VmHWM (peak RSS) of ``pid`` in MiB, from /proc."""
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, val = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = round(int(val.split()[0]) / 1024, 1)
    except OSError:
        pass
    return out


def rss_mib(pid: int) -> float | None:
    try:
        import psutil

        return round(psutil.Process(pid).memory_info().rss / 2**20, 1)
    except Exception:  # noqa: BLE001 - psutil missing or the process is gone
        return vm_status(pid).get("VmRSS")


def cpu_s(pid: int) -> float | None:
    try:
        import psutil

        t = psutil.Process(pid).cpu_times()
        return t.user + t.system
    except Exception:  # noqa: BLE001
        return None


def proc_cpu_table() -> dict[int, tuple[float, str]]:
    """CPU seconds so far of every process: pid -> (seconds, command)."""
    out = {}
    try:
        import psutil

        for p in psutil.process_iter(["pid", "cmdline", "name", "cpu_times"]):
            t = p.info["cpu_times"]
            if t is not None:
                out[p.info["pid"]] = (t.user + t.system, " ".join(p.info["cmdline"] or []) or p.info["name"] or "")
    except Exception:  # noqa: BLE001
        pass
    return out


def other_cpu(before: dict, after: dict, wall: float, mine: set[int]) -> list[dict]:
    """Processes other than the benchmark's that used over 10 % of a core in the window."""
    out = []
    for pid, (t1, cmd) in after.items():
        if pid in mine:
            continue
        used = t1 - before.get(pid, (0.0, ""))[0]
        if wall > 0 and used / wall > 0.10:
            out.append({"pid": pid, "cores": round(used / wall, 2), "cmd": cmd[:90]})
    return sorted(out, key=lambda d: -d["cores"])


def load_info() -> dict:
    info = {"nproc": os.cpu_count(), "loadavg": [round(x, 2) for x in os.getloadavg()]}
    try:
        import psutil

        procs = []
        for p in psutil.process_iter(["pid", "name", "cmdline", "cpu_percent"]):
            procs.append(p)
        time.sleep(0.5)
        top = []
        for p in procs:
            try:
                top.append((p.cpu_percent(None), p.info["name"], " ".join(p.info["cmdline"] or [])[:80]))
            except Exception:  # noqa: BLE001
                pass
        top.sort(reverse=True)
        info["top_cpu"] = [{"cpu_percent": round(c, 1), "name": n, "cmd": cmd} for c, n, cmd in top[:3]]
        info["cpu_percent_system"] = psutil.cpu_percent(interval=0.5)
    except Exception:  # noqa: BLE001
        pass
    return info


def match_events(n: int, seed: int) -> list[tuple[int, dict]]:
    """The first ``n`` events of a simulated match as (hand, event dict)."""
    from engine.record import event_to_dict
    from engine.ruleset import load_ruleset
    from engine.simulate import simulate_match

    rules = load_ruleset(RULES)
    out: list[tuple[int, dict]] = []
    hands = 2
    while len(out) < n and hands <= 64:
        out = [(h, event_to_dict(e)) for h, log in enumerate(simulate_match(rules, seed, max_hands=hands), 1)
               for e in log][:n]
        hands *= 2
    if len(out) < n:  # a short match: pad with one-point penalties (always legal)
        last = out[-1][0] if out else 1
        out += [(last, {"type": "penalty", "seat": "N", "points": 1})] * (n - len(out))
    return out


# ---------------------------------------------------------------------------- client process
async def client_main(args: argparse.Namespace) -> None:
    """``--role clients``: open the streams, say READY, read until STOP + every event, dump JSON."""
    tables = args.table_ids.split(",")
    n_clients = len(tables) * args.clients_per_table
    records: dict[int, dict] = {}
    snapped = 0
    all_snapped = asyncio.Event()
    done_count = 0
    all_done = asyncio.Event()
    limits = httpx.Limits(max_connections=n_clients + 10, max_keepalive_connections=0)
    timeout = httpx.Timeout(connect=15, read=60, write=15, pool=30)
    connect_gate = asyncio.Semaphore(20)

    def handle(cid: int, payload: str, t_recv: float) -> None:
        """One SSE message (its data) that arrived at ``t_recv``."""
        nonlocal snapped, done_count
        rec = records[cid]
        m = json.loads(payload)
        rec["msgs"].append((m["id"], m["kind"], m.get("time"), t_recv))
        if m["kind"] == "snapshot" and rec["connect_s"] is None:
            rec["connect_s"] = time.time() - rec["t0"]
            snapped += 1
            if snapped == n_clients:
                all_snapped.set()
        elif m["kind"] == "event":
            rec["events"] += 1
            rec["event_bytes"] += len(payload)
            if rec["events"] == args.expect:
                done_count += 1
                if done_count == n_clients:
                    all_done.set()

    async def one_httpx(cid: int, table: str, client: httpx.AsyncClient) -> None:
        """An overlay client on httpx: stream the feed, an SSE parser over ``aiter_lines``."""
        async with connect_gate:
            resp = await client.send(client.build_request("GET", f"{args.base}/api/tables/{table}/feed"), stream=True)
        try:
            if resp.status_code != 200:
                raise RuntimeError(f"HTTP {resp.status_code}")
            data: list[str] = []
            t_first = None
            async for line in resp.aiter_lines():
                if line.startswith("data:"):
                    if t_first is None:
                        t_first = time.time()
                    data.append(line[5:].lstrip())
                elif line == "" and data:
                    handle(cid, "\n".join(data), t_first)
                    data, t_first = [], None
        finally:
            await resp.aclose()

    async def one_raw(cid: int, table: str) -> None:
        """A lighter client: HTTP/1.1 by hand on an asyncio stream (chunked body, SSE blocks)."""
        host, _, port = args.base.removeprefix("http://").partition(":")
        async with connect_gate:
            reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(f"GET /api/tables/{table}/feed HTTP/1.1\r\nHost: {host}:{port}\r\n"
                         "Accept: text/event-stream\r\n\r\n".encode())
            await writer.drain()
            status = await asyncio.wait_for(reader.readline(), 30)
        try:
            if b" 200 " not in status:
                raise RuntimeError(f"HTTP {status!r}")
            chunked = False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                chunked |= line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower()
            if not chunked:
                raise RuntimeError("the feed is not chunked")
            buf = ""
            while True:
                size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    break
                chunk = (await reader.readexactly(size + 2))[:-2]
                t_recv = time.time()
                buf += chunk.decode()
                while "\n\n" in buf:
                    block, buf = buf.split("\n\n", 1)
                    data = [ln[5:].lstrip() for ln in block.split("\n") if ln.startswith("data:")]
                    if data:
                        handle(cid, "\n".join(data), t_recv)
        finally:
            writer.close()

    async def one(cid: int, table: str, client: httpx.AsyncClient) -> None:
        records[cid] = {"table": table, "msgs": [], "error": None, "connect_s": None, "event_bytes": 0,
                        "events": 0, "t0": time.time()}
        try:
            if args.client == "raw":
                await one_raw(cid, table)
            else:
                await one_httpx(cid, table, client)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - recorded, judged by the driver
            records[cid]["error"] = f"{type(exc).__name__}: {exc}"

    loop = asyncio.get_running_loop()
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        tasks = [asyncio.create_task(one(i, t, client))
                 for i, t in enumerate(tables[k % len(tables)] for k in range(n_clients))]
        try:
            await asyncio.wait_for(all_snapped.wait(), args.connect_timeout)
            print(f"READY {snapped}", flush=True)
        except asyncio.TimeoutError:
            print(f"READY {snapped} (timeout)", flush=True)
        stop_line = await loop.run_in_executor(None, sys.stdin.readline)
        # STOP: the driver posted everything; wait for the last deliveries, then a grace period
        # in which a duplicate would still show up.
        try:
            await asyncio.wait_for(all_done.wait(), args.drain_timeout)
        except asyncio.TimeoutError:
            pass
        await asyncio.sleep(args.grace)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    try:
        import psutil

        peak = psutil.Process().memory_info().rss / 2**20
        cpu = psutil.Process().cpu_times()
        cpu_s = cpu.user + cpu.system
    except Exception:  # noqa: BLE001
        peak = cpu_s = None
    Path(args.result_file).write_text(json.dumps({"stop": stop_line.strip(), "clients": records,
                                                  "client_rss_mib": peak, "client_cpu_s": cpu_s, "client_vm": vm_status(os.getpid())}))


# ---------------------------------------------------------------------------- driver
class MemSampler(threading.Thread):
    def __init__(self, pid: int, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.samples, self.stop = pid, every, [], threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            r = rss_mib(self.pid)
            if r is not None:
                self.samples.append((time.time(), r))
            self.stop.wait(self.every)


async def post_all(base: str, token: str, tables: list[str], events: int, interval: float,
                   seed: int) -> dict[str, list[dict]]:
    """Post ``events`` events per table, ``interval`` s apart per table, staggered across tables."""
    headers = {"Authorization": f"Bearer {token}"}
    sent: dict[str, list[dict]] = {t: [] for t in tables}
    limits = httpx.Limits(max_connections=len(tables) + 4)
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30, limits=limits) as c:
        start = time.monotonic() + 0.2

        async def table_poster(k: int, table: str) -> None:
            evs = match_events(events, seed + k)
            for i, (hand, ev) in enumerate(evs):
                due = start + (k / len(tables)) * interval + i * interval
                delay = due - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                t_send = time.time()
                try:
                    r = await c.post(f"/api/tables/{table}/events", json={"event": ev, "hand": hand, "by": "bench"})
                except httpx.HTTPError as exc:  # not retried: a retry could post the event twice
                    sent[table].append({"i": i, "type": ev["type"], "t_send": t_send, "t_ack": time.time(),
                                        "status": None, "error": f"{type(exc).__name__}: {exc}"})
                    continue
                t_ack = time.time()
                rec = {"i": i, "type": ev["type"], "t_send": t_send, "t_ack": t_ack, "status": r.status_code}
                if r.status_code == 201:
                    rec["id"] = r.json()["id"]
                else:
                    rec["error"] = r.text[:200]
                sent[table].append(rec)

        await asyncio.gather(*(table_poster(k, t) for k, t in enumerate(tables)))
    return sent


def wait_health(base: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited with {proc.returncode}")
        try:
            if httpx.get(base + "/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError("the service did not answer /api/health in time")


def stop_process(proc: subprocess.Popen, sig: int = signal.SIGINT, wait: float = 15) -> int | None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    return proc.returncode


def analyse(sent: dict[str, list[dict]], clients: dict, n_expected: int) -> dict:
    lat_pub, lat_send, lat_ack = [], [], []
    per_client_p99 = []
    lost = dup = reordered = errors = clients_ok = 0
    problems: list[str] = []
    by_id = {t: {r["id"]: r for r in recs if "id" in r} for t, recs in sent.items()}
    for cid, rec in clients.items():
        table = rec["table"]
        expected = [r["id"] for r in sent[table] if "id" in r]
        got = [m for m in rec["msgs"] if m[1] == "event"]
        ids = [m[0] for m in got]
        all_ids = [m[0] for m in rec["msgs"] if m[1] != "snapshot"]
        c_lost = len(set(expected) - set(ids))
        c_dup = len(all_ids) - len(set(all_ids))
        c_order = ids != sorted(ids)
        lost += c_lost
        dup += c_dup
        reordered += int(c_order)
        if rec.get("error"):
            errors += 1
        if ids == expected and c_dup == 0 and not rec.get("error"):
            clients_ok += 1
        elif len(problems) < 10:
            problems.append(f"client {cid} ({table}): {len(ids)}/{len(expected)} events, lost {c_lost}, "
                            f"dup {c_dup}, reordered {c_order}, error {rec.get('error')}")
        mine = []
        for mid, _kind, t_srv, t_recv in got:
            s = by_id[table].get(mid)
            if s is None:
                continue
            lat_pub.append(t_recv - t_srv)
            lat_send.append(t_recv - s["t_send"])
            lat_ack.append(t_recv - s["t_ack"])
            mine.append(t_recv - t_srv)
        if mine:
            per_client_p99.append(pct(mine, 99))
    first, last = {}, {}
    for rec in clients.values():
        for mid, kind, t_srv, t_recv in rec["msgs"]:
            if kind == "event":
                first[mid] = min(first.get(mid, t_recv), t_recv)
                last[mid] = max(last.get(mid, t_recv), t_recv)
    srv_time = {mid: t_srv for rec in clients.values() for mid, kind, t_srv, _ in rec["msgs"] if kind == "event"}
    first_lat = [first[m] - srv_time[m] for m in first]
    last_lat = [last[m] - srv_time[m] for m in last]
    spread = [last[m] - first[m] for m in first]
    ev_bytes = sum(rec.get("event_bytes", 0) for rec in clients.values())
    post_lat = [r["t_ack"] - r["t_send"] for recs in sent.values() for r in recs]
    connect = [rec["connect_s"] for rec in clients.values() if rec.get("connect_s") is not None]
    return {
        "deliveries": len(lat_pub), "deliveries_expected": n_expected,
        "lost": lost, "duplicated": dup, "clients_reordered": reordered, "clients_with_errors": errors,
        "clients_exact": clients_ok, "clients": len(clients), "problems": problems,
        "latency_publish": summary_ms(lat_pub), "latency_send": summary_ms(lat_send),
        "latency_ack": summary_ms(lat_ack), "post_roundtrip": summary_ms(post_lat),
        "per_event_first_client": summary_ms(first_lat), "per_event_last_client": summary_ms(last_lat),
        "per_event_spread_first_to_last": summary_ms(spread),
        "event_message_bytes_mean": round(ev_bytes / max(1, len(lat_pub))),
        "worst_client_p99_ms": round(max(per_client_p99) * 1e3, 2) if per_client_p99 else None,
        "snapshot_connect": summary_ms(connect),
    }


def driver(args: argparse.Namespace) -> dict:
    t_start = time.time()
    tmp = Path(tempfile.mkdtemp(prefix="dominocast-fanout-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    token = secrets.token_urlsafe(24)
    env = dict(os.environ, DOMINOCAST_TOKEN=token, PYTHONUNBUFFERED="1")
    load_before = load_info()
    print(f"load before: {load_before['loadavg']} on {load_before['nproc']} cores", flush=True)
    serve_code = ("import sys; from service.cli import main; "
                  f"sys.argv = ['dominocast', 'serve', '--host', '127.0.0.1', '--port', '{port}', "
                  f"'--data-dir', {str(tmp / 'data')!r}]; sys.exit(main())")
    log = open(tmp / "service.log", "w")  # noqa: SIM115
    server = subprocess.Popen([sys.executable, "-c", serve_code], cwd=ROOT, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    clients_proc = None
    sampler = None
    result: dict = {}
    try:
        wait_health(base, server)
        rss_idle = rss_mib(server.pid)
        sampler = MemSampler(server.pid)
        sampler.start()
        tables = [f"bench-{k + 1}" for k in range(args.tables)]
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
            for t in tables:
                r = c.post("/api/tables", json={"id": t, "name": t, "rules": RULES, "worker": {"kind": "manual"},
                                                "players": {"N": "Ana", "S": "Bob"}})
                if r.status_code != 201:
                    raise RuntimeError(f"creating {t}: {r.status_code} {r.text[:200]}")
                r = c.post(f"/api/tables/{t}/start")  # a manual table takes its events once started
                if r.status_code != 200:
                    raise RuntimeError(f"starting {t}: {r.status_code} {r.text[:200]}")
        rss_tables = rss_mib(server.pid)
        n_clients = args.tables * args.clients_per_table
        result_file = tmp / "clients.json"
        clients_proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--role", "clients", "--base", base,
             "--table-ids", ",".join(tables), "--clients-per-table", str(args.clients_per_table),
             "--expect", str(args.events), "--result-file", str(result_file),
             "--connect-timeout", str(args.connect_timeout), "--drain-timeout", str(args.drain_timeout),
             "--grace", str(args.grace), "--client", args.client],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        t_conn = time.time()
        ready = clients_proc.stdout.readline().strip()
        connect_wall = time.time() - t_conn
        print(f"clients: {ready} in {connect_wall:.1f} s", flush=True)
        time.sleep(0.5)
        rss_connected = rss_mib(server.pid)
        cpu0 = cpu_s(server.pid)
        procs0 = proc_cpu_table()
        t_post = time.time()
        sent = asyncio.run(post_all(base, token, tables, args.events, args.interval, args.seed))
        post_wall = time.time() - t_post
        bad = [r for recs in sent.values() for r in recs if r["status"] != 201]
        clients_proc.stdin.write("STOP\n")
        clients_proc.stdin.flush()
        clients_proc.wait(args.drain_timeout + args.grace + 30)
        cpu1 = cpu_s(server.pid)
        procs1 = proc_cpu_table()
        window = time.time() - t_post
        others = other_cpu(procs0, procs1, window, {os.getpid(), server.pid, clients_proc.pid})
        rss_end = rss_mib(server.pid)
        vm = vm_status(server.pid)
        sampler.stop.set()
        sampler.join(2)
        load_after = load_info()
        data = json.loads(result_file.read_text())
        clients = data["clients"]
        stats = analyse(sent, clients, n_clients * args.events)
        peak_sampled = max((r for _, r in sampler.samples), default=None)
        result = {
            "benchmark": "service_fanout",
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t_start)),
            "config": {"tables": args.tables, "clients_per_table": args.clients_per_table, "clients": n_clients,
                       "client": args.client, "events_per_table": args.events, "interval_s": args.interval,
                       "events_per_s_total": round(args.tables / args.interval, 1), "rules": RULES,
                       "worker": "manual (events via POST /api/tables/{id}/events)",
                       "transport": f"SSE GET /api/tables/{{id}}/feed, {args.client} client (asyncio) in a separate process",
                       "service": "dominocast serve (uvicorn, SQLite WAL synchronous=FULL, default settings)"},
            "host": {"python": sys.version.split()[0], "load_before": load_before, "load_after": load_after,
                     "other_processes_during_posting": others,
                     "other_cores_during_posting": round(sum(o["cores"] for o in others), 2)},
            "posts": {"sent": sum(len(v) for v in sent.values()), "failed": len(bad),
                      "failures": [r.get("error") for r in bad[:5]], "wall_s": round(post_wall, 2)},
            "clients_ready": ready, "clients_connect_wall_s": round(connect_wall, 2),
            **stats,
            "service_memory_mib": {"idle": rss_idle, "tables_created": rss_tables, "clients_connected": rss_connected,
                                   "end": rss_end, "peak_sampled_rss": peak_sampled,
                                   "peak_VmHWM": vm.get("VmHWM")},
            "client_process_rss_mib": data.get("client_rss_mib"),
            "cpu_s": {"service_during_posting_and_drain": round(cpu1 - cpu0, 2) if cpu0 is not None and cpu1 is not None
                      else None, "client_process_total": round(data["client_cpu_s"], 2)
                      if data.get("client_cpu_s") is not None else None},
            "targets": {"p99_under_100ms": None, "no_loss_no_dup": None},
        }
        p99 = stats["latency_publish"].get("p99_ms")
        result["targets"]["p99_under_100ms"] = p99 is not None and p99 < 100
        result["targets"]["no_loss_no_dup"] = (stats["lost"] == 0 and stats["duplicated"] == 0
                                               and stats["clients_reordered"] == 0 and not bad
                                               and stats["deliveries"] == n_clients * args.events)
    finally:
        if sampler is not None:
            sampler.stop.set()
        if clients_proc is not None and clients_proc.poll() is None:
            clients_proc.kill()
            clients_proc.wait(5)
        rc = stop_process(server)
        log.close()
        if result:
            result["service_exit_code"] = rc
            result["wall_s"] = round(time.time() - t_start, 1)
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if result:
        print_table(result)
    return result


def print_table(r: dict) -> None:
    c = r["config"]
    print()
    print(f"{c['tables']} tables x {c['clients_per_table']} SSE clients = {c['clients']} clients; "
          f"{c['events_per_table']} events/table every {c['interval_s']} s ({c['events_per_s_total']} events/s)")
    print(f"load: before {r['host']['load_before']['loadavg']}, after {r['host']['load_after']['loadavg']} "
          f"({r['host']['load_before']['nproc']} cores)")
    print(f"{'latency (ms)':<36}{'p50':>9}{'p90':>9}{'p99':>9}{'max':>9}")
    for key, label in (("latency_publish", "server publish time -> client"),
                       ("latency_send", "POST sent -> client"),
                       ("latency_ack", "POST answered -> client"),
                       ("post_roundtrip", "POST round trip"),
              ("per_event_first_client", "publish -> first client of the table"),
              ("per_event_last_client", "publish -> last client of the table"),
              ("per_event_spread_first_to_last", "first -> last client of the table")):
        s = r[key]
        print(f"{label:<36}{s.get('p50_ms', '-'):>9}{s.get('p90_ms', '-'):>9}{s.get('p99_ms', '-'):>9}"
              f"{s.get('max_ms', '-'):>9}")
    print(f"deliveries {r['deliveries']}/{r['deliveries_expected']}, lost {r['lost']}, duplicated {r['duplicated']}, "
          f"clients reordered {r['clients_reordered']}, exact {r['clients_exact']}/{r['clients']}, "
          f"POST failures {r['posts']['failed']}")
    print(f"event message {r['event_message_bytes_mean']} B mean; CPU s: {r['cpu_s']}")
    print(f"other processes during posting: {r['host']['other_cores_during_posting']} cores "
          f"{[(o['cores'], o['cmd'][:50]) for o in r['host']['other_processes_during_posting']]}")
    m = r["service_memory_mib"]
    print(f"service RSS MiB: idle {m['idle']}, {c['tables']} tables {m['tables_created']}, clients connected "
          f"{m['clients_connected']}, end {m['end']}, peak (VmHWM) {m['peak_VmHWM']}")
    print(f"targets: p99 < 100 ms: {r['targets']['p99_under_100ms']}; no loss/dup: {r['targets']['no_loss_no_dup']}")
    for p in r.get("problems", []):
        print("  ", p)


def build_parser() -> argparse.ArgumentParser:
    """The command line (``bench/sec_service.py`` takes its defaults from here)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--role", choices=("driver", "clients"), default="driver")
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--clients-per-table", type=int, default=25)
    ap.add_argument("--events", type=int, default=40, help="events posted per table")
    ap.add_argument("--interval", type=float, default=0.25, help="seconds between a table's events")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--connect-timeout", type=float, default=60)
    ap.add_argument("--drain-timeout", type=float, default=30)
    ap.add_argument("--grace", type=float, default=1.5, help="seconds to keep reading after the last event")
    ap.add_argument("--out", default=str(ROOT / "bench/results/service_fanout.json"))
    ap.add_argument("--client", choices=("httpx", "raw", "both"), default="httpx",
                    help="client stack: httpx streaming (default), a lighter hand-written HTTP/1.1 reader, or both "
                         "(interleaved runs)")
    ap.add_argument("--runs", type=int, default=1, help="repeat the whole run (a fresh service each time)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (service log, client data)")
    # client role
    ap.add_argument("--base")
    ap.add_argument("--table-ids")
    ap.add_argument("--expect", type=int)
    ap.add_argument("--result-file")
    return ap


def driver_args(**overrides) -> argparse.Namespace:
    """The driver's arguments: the command line's defaults with ``overrides`` (e.g. ``tables=4``).

    Raises:
        TypeError: an override that is not a command-line option.
    """
    args = build_parser().parse_args([])
    unknown = set(overrides) - set(vars(args))
    if unknown:
        raise TypeError(f"unknown service_fanout option(s): {', '.join(sorted(unknown))}")
    return argparse.Namespace(**{**vars(args), **overrides})


def main() -> int:
    args = build_parser().parse_args()
    if args.role == "clients":
        asyncio.run(client_main(args))
        return 0
    impls = ["httpx", "raw"] if args.client == "both" else [args.client]
    runs = []
    for k in range(args.runs):
        for impl in impls:  # interleaved, so both clients see the same background load
            if args.runs > 1 or len(impls) > 1:
                print(f"\n=== run {k + 1} of {args.runs}, {impl} clients", flush=True)
            r = driver(argparse.Namespace(**{**vars(args), "client": impl}))
            if not r:
                return 2
            runs.append(r)
    if len(runs) == 1:
        out_doc = runs[0]
    else:
        out_doc = {"benchmark": "service_fanout", "summary": {}, "runs": runs}
        for impl in impls:
            mine = [r for r in runs if r["config"]["client"] == impl]
            out_doc["summary"][impl] = runs_summary(mine)
            print(f"\n{impl} clients, over {len(mine)} runs:")
            for key, v in out_doc["summary"][impl].items():
                print(f"  {key:<28} {v}")
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(out_doc, indent=2) + "\n")
        print(f"wrote {out}")
    ok = all(r["targets"]["p99_under_100ms"] and r["targets"]["no_loss_no_dup"] for r in runs)
    return 0 if ok else 1


def runs_summary(runs: list[dict]) -> dict:
    """Per-run key numbers side by side, and their medians."""
    keys = {"publish_p50_ms": ("latency_publish", "p50_ms"), "publish_p99_ms": ("latency_publish", "p99_ms"),
            "publish_max_ms": ("latency_publish", "max_ms"), "send_p99_ms": ("latency_send", "p99_ms"),
            "first_client_p99_ms": ("per_event_first_client", "p99_ms"),
            "spread_p99_ms": ("per_event_spread_first_to_last", "p99_ms")}
    out: dict = {"runs": len(runs)}
    for name, (sec, key) in keys.items():
        vals = [r[sec].get(key) for r in runs]
        out[name] = vals
        out[name.replace("_ms", "_median_ms")] = statistics.median(v for v in vals if v is not None)
    out["lost_total"] = sum(r["lost"] for r in runs)
    out["duplicated_total"] = sum(r["duplicated"] for r in runs)
    out["deliveries_total"] = sum(r["deliveries"] for r in runs)
    out["service_peak_VmHWM_mib_max"] = max(r["service_memory_mib"]["peak_VmHWM"] or 0 for r in runs)
    out["loadavg_before"] = [r["host"]["load_before"]["loadavg"][0] for r in runs]
    out["other_cores_during_posting"] = [r["host"]["other_cores_during_posting"] for r in runs]
    return out


if __name__ == "__main__":
    sys.exit(main())
