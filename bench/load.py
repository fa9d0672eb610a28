"""
Load and a database outage: 50 newsroom users for two minutes, PostgreSQL down for
ten seconds in the middle, and then a count of what survived (``make load``).

1. A private PostgreSQL (initdb in a temporary folder, on 127.0.0.1, port
   LOAD_PG_PORT or the next free one from 5433) — never the machine's own server.
2. Migrate, collectstatic, a small scale dataset (``bench/make_scale_dataset.py``), and a
   plan for locust: a database session per simulated editor and reviewer, the
   claims they work on, the published pages readers read.
3. gunicorn on 127.0.0.1 with production settings (DEBUG off; plain HTTP on
   loopback through the HTTPS and secure-cookie switches), ``manage.py
   task_worker`` beside it, a tiny SMTP sink for the review mail.
4. locust headless (bench/locustfile.py): readers, editors, reviewers.
5. At LOAD_OUTAGE_AT seconds: ``pg_ctl stop -m fast``, LOAD_OUTAGE_SECONDS of
   nothing, ``pg_ctl start``; then a probe measures the time to the first page
   served from the database again. Three seconds before the stop a task is
   queued that queries the database until three seconds into the outage
   (bench/outage_task.py), so that the worker is surely running one when the
   database goes.
6. Afterwards, from locust's request log and the database: requests,
   throughput, p50/p95 overall and per kind, 5xx other than 503 (the aim: none),
   503s and when (the aim: only between the stop and five seconds after the
   restart), the recovery time, every acknowledged write found in the database,
   no partial writes, the worker alive with no task left behind, and the task
   cut off by the outage run again to success.

The exit status is non-zero when an aim is missed. Environment: LOAD_USERS (50),
LOAD_DURATION (2m), LOAD_SPAWN_RATE (10), LOAD_OUTAGE_AT (45, or three eighths of
a shorter run), LOAD_OUTAGE_SECONDS (10; 0 for no outage), LOAD_WEB_WORKERS (3),
LOAD_WEB_THREADS (4), LOAD_REDIS_URL (redis://127.0.0.1:6379/12, emptied first; "" for a
cache per process), LOAD_KEEP=1 keeps the working folder. A quick try:
``LOAD_DURATION=30s LOAD_USERS=10 make load``.
"""

import contextlib
import datetime
import glob
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
PY = sys.executable
RECOVERY_AIM_SECONDS = 5.0
#: The cache the app's processes share; a database of its own on the machine's Redis.
REDIS_URL = os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/12")
SCALE_FLAGS = [
    "--cases=8",
    "--claims=600",
    "--sources=60",
    "--users=100",
    "--quotations=3000",
    "--corrections=40",
    "--min-kb=4",
    "--max-kb=24",
    "--large-kb=64",
]


#: The locustfile's name for each kind of write request, and the kind it logs when acknowledged.
WRITE_KINDS = {
    "edit claim": "edit",
    "add evidence": "evidence",
    "comment": "comment",
    "register source": "source",
    "decide": "decision",
}


def seconds(text):
    text = text.strip().lower()
    units = {"s": 1, "m": 60, "h": 3600}
    if text[-1] in units:
        return float(text[:-1]) * units[text[-1]]
    return float(text)


def say(message):
    print(f"[load] {message}", flush=True)


def free_port(preferred=None):
    for port in ([preferred] if preferred else []) + list(range(5433, 5533)):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit("No free port for the private PostgreSQL")


def any_free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PrivatePostgres:
    """A throw-away PostgreSQL cluster of our own, stopped and removed at the end."""

    def __init__(self, folder, port):
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        if not found:
            raise SystemExit("PostgreSQL server binaries not found under /usr/lib/postgresql/")
        self.bin = Path(found[-1]).parent
        self.data = folder / "pgdata"
        self.port = port
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def run(self, *command, check=True):
        return subprocess.run(
            [*self.as_postgres, *command], check=check, capture_output=True, text=True
        )

    def init(self):
        self.data.mkdir()
        if self.as_postgres:
            shutil.chown(self.data, "postgres")
        self.run(
            str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "-N"
        )

    def pg_ctl(self, *args):
        return self.run(str(self.bin / "pg_ctl"), "-D", str(self.data), *args)

    def start(self):
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1"
        self.pg_ctl("-o", options, "-l", str(self.data / "log"), "-w", "start")

    def stop(self, mode="fast"):
        self.pg_ctl("-m", mode, "-w", "stop")

    def running(self):
        return self.pg_ctl("status").returncode == 0 if self.data.exists() else False


class SmtpSink(socketserver.ThreadingTCPServer):
    """Accepts the app's mail on loopback and drops it (counting messages)."""

    daemon_threads = True
    allow_reuse_address = True
    messages = 0

    class Handler(socketserver.StreamRequestHandler):
        def handle(self):
            self.wfile.write(b"220 sink\r\n")
            in_data = False
            for line in self.rfile:
                if in_data:
                    if line in (b".\r\n", b".\n"):
                        in_data = False
                        self.server.messages += 1
                        self.wfile.write(b"250 ok\r\n")
                    continue
                verb = line[:4].upper()
                if verb == b"DATA":
                    in_data = True
                    self.wfile.write(b"354 go\r\n")
                elif verb == b"QUIT":
                    self.wfile.write(b"221 bye\r\n")
                    return
                else:
                    self.wfile.write(b"250 ok\r\n")


def get(url, timeout=5.0):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def percentile(values, share):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# The plan: who the simulated users are and what they work on ----------------------


def make_plan(folder):
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore

    from bench.web import scale_dataset  # names the scale-dataset module, for both benches
    from claims.models import Claim, ClaimStatus, Decision, Evidence, ReviewAssignment
    from factcheck.roles import EDITOR, REVIEWER

    def identity(user, **extra):
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        return {
            "username": user.username,
            "session": session.session_key,
            "csrf": secrets.token_hex(16),
            **extra,
        }

    rng = random.Random(8)
    editors = [identity(user) for user in User.objects.filter(groups__name=EDITOR)]
    open_reviews = defaultdict(list)
    for pk, reviewer_id in ReviewAssignment.objects.filter(
        decision=Decision.PENDING, claim__status=ClaimStatus.IN_REVIEW
    ).values_list("pk", "reviewer_id"):
        open_reviews[reviewer_id].append(pk)
    reviewers = [
        identity(user, assignments=open_reviews[user.pk])
        for user in User.objects.filter(groups__name=REVIEWER, pk__in=open_reviews)
    ]
    editable = list(
        Claim.objects.filter(
            status__in=[
                ClaimStatus.DRAFT,
                ClaimStatus.IN_REVIEW,
                ClaimStatus.CHANGES_REQUESTED,
                ClaimStatus.APPROVED,
            ]
        ).select_related("case")
    )
    evidence_by_case = defaultdict(set)
    evidence_by_claim = defaultdict(set)
    for claim_id, case_id, quotation_id in Evidence.objects.values_list(
        "claim_id", "claim__case_id", "quotation_id"
    ):
        evidence_by_case[case_id].add(quotation_id)
        evidence_by_claim[claim_id].add(quotation_id)
    claims = [
        {
            "case": claim.case.slug,
            "claim": claim.pk,
            "statement": claim.statement,
            "claimant": claim.claimant,
            "verdict": claim.verdict_id or "",
            "rationale": claim.rationale,
            "quotations": rng.sample(
                sorted(evidence_by_case[claim.case_id] - evidence_by_claim[claim.pk]),
                k=min(20, len(evidence_by_case[claim.case_id] - evidence_by_claim[claim.pk])),
            ),
        }
        for claim in rng.sample(editable, k=min(300, len(editable)))
    ]
    published = list(
        Claim.objects.filter(status=ClaimStatus.PUBLISHED).values_list("case__slug", "pk")
    )
    plan = {
        "editors": editors,
        "reviewers": reviewers,
        "claims": claims,
        "public_cases": sorted({slug for slug, _pk in published}),
        "public_claims": rng.sample(published, k=min(200, len(published))),
        "words": scale_dataset()._WORDS,
    }
    versions = dict(Claim.objects.values_list("pk", "version"))
    (folder / "plan.json").write_text(json.dumps(plan, ensure_ascii=False))
    return plan, versions


# Verification ---------------------------------------------------------------------


def read_jsonl(path):
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


TOKEN = re.compile(r"LD[0-9a-f]{16}")


def verify_database(writes, versions_before, began_at):
    """Every acknowledged write present; no edit present in part. Returns (missing, partial)."""
    from django.contrib.contenttypes.models import ContentType

    from claims.models import Claim, Comment, Evidence, ReviewAssignment
    from factcheck.models import AuditEvent
    from sources.models import Source

    since = datetime.datetime.fromtimestamp(began_at, tz=datetime.UTC)
    claim_type = ContentType.objects.get_for_model(Claim)
    events = list(
        AuditEvent.objects.filter(created_at__gte=since).values_list(
            "action", "target_type_id", "target_id", "changes", "id"
        )
    )
    by_token = defaultdict(list)
    updates_per_claim = Counter()
    last_statement = {}
    for action, type_id, target_id, changes, _event_id in sorted(events, key=lambda e: e[4]):
        for found in TOKEN.findall(json.dumps(changes)):
            by_token[found].append((action, type_id, target_id, changes))
        if action == "claim.update" and type_id == claim_type.pk:
            updates_per_claim[int(target_id)] += 1
            if "statement" in changes:
                last_statement[int(target_id)] = changes["statement"][1]

    evidence = {
        token: row
        for row in Evidence.objects.filter(note__contains="Load test note ").values(
            "claim_id", "note", "quotation_id"
        )
        for token in TOKEN.findall(row["note"])
    }
    comments = {
        token: row
        for row in Comment.objects.filter(body__contains="Load test ").values("claim_id", "body")
        for token in TOKEN.findall(row["body"])
    }
    reviewed = {
        token: row
        for row in ReviewAssignment.objects.filter(comment__contains="Load test review ").values(
            "pk", "claim_id", "comment"
        )
        for token in TOKEN.findall(row["comment"])
    }
    sources = {
        token: source
        for source in Source.objects.filter(title__startswith="Load test source ").prefetch_related(
            "versions"
        )
        for token in TOKEN.findall(source.title)
    }

    missing = []
    for write in writes:
        token, kind = write["token"], write["kind"]
        if kind == "edit":
            present = any(
                action == "claim.update" and target_id == str(write["claim"])
                for action, _type, target_id, _changes in by_token[token]
            )
        elif kind == "evidence":
            present = token in evidence and evidence[token]["claim_id"] == write["claim"]
        elif kind == "comment":
            present = token in comments and comments[token]["claim_id"] == write["claim"]
        elif kind == "decision":
            present = (
                token in reviewed
                and reviewed[token]["pk"] == write["assignment"]
                and any(a == f"assignment.{write['decision']}" for a, *_ in by_token[token])
            )
        elif kind == "source":
            present = token in sources
        else:
            present = False
        if not present:
            missing.append(write)

    partial = []
    # An edit is the new version, the new text and its audit event, all or none.
    for claim_id, version, statement in Claim.objects.values_list("pk", "version", "statement"):
        bumped = version - versions_before.get(claim_id, version)
        if bumped != updates_per_claim[claim_id]:
            partial.append(
                f"claim {claim_id}: version +{bumped}, {updates_per_claim[claim_id]} edits"
            )
        if claim_id in last_statement and last_statement[claim_id] != statement:
            partial.append(f"claim {claim_id}: its text is not its last edit's")
    for token, row in evidence.items():
        if not any(action == "evidence.add" for action, *_ in by_token[token]):
            partial.append(f"evidence {token} on claim {row['claim_id']} has no audit event")
    for token, row in reviewed.items():
        if not any(action.startswith("assignment.") for action, *_ in by_token[token]):
            partial.append(f"review {row['pk']} ({token}) has no audit event")
        if token not in comments:
            partial.append(f"review {row['pk']} ({token}) has no comment in the discussion")
    for token, row in comments.items():
        if "Load test comment" in row["body"] and not any(
            action == "comment.add" for action, *_ in by_token[token]
        ):
            partial.append(f"comment {token} has no audit event")
    for token, source in sources.items():
        if not any(action == "source.create" for action, *_ in by_token[token]):
            partial.append(f"source {token} has no audit event")
        if not source.versions.all():
            partial.append(f"source {token} has no version")
    for token, events_of_token in by_token.items():
        actions = {action for action, *_ in events_of_token}
        if "evidence.add" in actions and token not in evidence:
            partial.append(f"audit event for evidence {token} without the evidence")
        if "comment.add" in actions and token not in comments:
            partial.append(f"audit event for comment {token} without the comment")
        if "source.create" in actions and token not in sources:
            partial.append(f"audit event for source {token} without the source")
    return missing, partial, sources


def task_outcome(timeout=60.0):
    """Wait for the worker to finish the queue; the tasks' states and unextracted sources."""
    from django.db import close_old_connections
    from django_tasks_db.models import DBTaskResult

    from factcheck.tasks import HOUSEKEEPING_PATH

    deadline = time.monotonic() + timeout
    while True:
        close_old_connections()
        # The housekeeping task always waits for its next turn: it is not work left behind.
        states = Counter(
            DBTaskResult.objects.exclude(task_path=HOUSEKEEPING_PATH).values_list(
                "status", flat=True
            )
        )
        if not (states.get("READY") or states.get("RUNNING")) or time.monotonic() > deadline:
            retried = sum(
                1
                for ids in DBTaskResult.objects.values_list("worker_ids", flat=True)
                if len(ids) > 1
            )
            return dict(states), retried
        time.sleep(1)


# The run --------------------------------------------------------------------------


def main():
    users = int(os.environ.get("LOAD_USERS", "50"))
    duration = seconds(os.environ.get("LOAD_DURATION", "2m"))
    spawn_rate = os.environ.get("LOAD_SPAWN_RATE", "10")
    outage_seconds = float(os.environ.get("LOAD_OUTAGE_SECONDS", "10"))
    outage_at = float(os.environ.get("LOAD_OUTAGE_AT", min(45.0, duration * 0.375)))
    web_workers = os.environ.get("LOAD_WEB_WORKERS", "3")
    web_threads = os.environ.get("LOAD_WEB_THREADS", "4")
    keep = os.environ.get("LOAD_KEEP", "") not in ("", "0", "false")

    folder = Path(tempfile.mkdtemp(prefix="factcheck-load-"))
    os.chmod(folder, 0o755)
    pg = PrivatePostgres(folder, free_port(int(os.environ.get("LOAD_PG_PORT", "0")) or None))
    processes = {}

    def clean_up(*_signal):
        for name in ("locust", "worker", "gunicorn"):
            process = processes.get(name)
            if process and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        if processes.get("sink"):
            processes.pop("sink").shutdown()
        with contextlib.suppress(Exception):
            if pg.running():
                pg.stop("immediate")
        if keep or os.environ.get("LOAD_KEEP") == "1":
            say(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
        if _signal:
            raise SystemExit(130)

    signal.signal(signal.SIGTERM, clean_up)
    signal.signal(signal.SIGINT, clean_up)
    try:
        return run(
            folder,
            pg,
            processes,
            users=users,
            duration=duration,
            spawn_rate=spawn_rate,
            outage_at=outage_at,
            outage_seconds=outage_seconds,
            web_workers=web_workers,
            web_threads=web_threads,
        )
    finally:
        clean_up()


def run(folder, pg, processes, **o):
    say(f"private PostgreSQL on 127.0.0.1:{pg.port} in {folder}")
    pg.init()
    pg.start()
    subprocess.run(
        [
            str(pg.bin / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(pg.port),
            "-U",
            "postgres",
            "factcheck_load",
        ],
        check=True,
    )

    sink = SmtpSink(("127.0.0.1", 0), SmtpSink.Handler)
    processes["sink"] = sink
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    web_port = any_free_port()
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SITE_URL": f"http://127.0.0.1:{web_port}",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{pg.port}/factcheck_load",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        "MEDIA_ROOT": str(folder / "media"),
        "STATIC_ROOT": str(folder / "static"),
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": str(sink.server_address[1]),
        "SMTP_USE_TLS": "false",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "factcheck.settings",
    }
    # The cache the server processes and the worker share, as in production: sessions,
    # rate limits and rendered texts (emptied first).
    if REDIS_URL:
        import redis

        redis.Redis.from_url(REDIS_URL).flushdb()
        env["REDIS_URL"] = REDIS_URL
    else:
        env.pop("REDIS_URL", None)
    manage = [PY, str(PROJECT / "manage.py")]
    say("migrate, collectstatic, scale dataset " + " ".join(SCALE_FLAGS))
    for command in (
        [*manage, "migrate", "--noinput", "-v0"],
        [*manage, "collectstatic", "--noinput", "-v0"],
        [PY, str(PROJECT / "bench" / "make_scale_dataset.py"), *SCALE_FLAGS],
    ):
        subprocess.run(command, env=env, check=True, cwd=PROJECT, stdout=subprocess.DEVNULL)

    os.environ.update(env)
    sys.path.insert(0, str(PROJECT))
    import django

    django.setup()
    from django.db import connection

    from bench.outage_task import use_the_database_until

    plan, versions_before = make_plan(folder)
    connection.close()
    say(
        f"plan: {len(plan['editors'])} editors, {len(plan['reviewers'])} reviewers with "
        f"{sum(len(r['assignments']) for r in plan['reviewers'])} open reviews, "
        f"{len(plan['claims'])} claims to edit, {len(plan['public_claims'])} published claims"
    )

    logs = {
        name: open(folder / f"{name}.log", "w")  # noqa: SIM115 - closed at the end of the run
        for name in ("gunicorn", "worker", "locust")
    }
    processes["gunicorn"] = subprocess.Popen(
        [
            str(Path(PY).parent / "gunicorn"),
            "factcheck.wsgi",
            "--bind",
            f"127.0.0.1:{web_port}",
            "--workers",
            o["web_workers"],
            "--threads",
            o["web_threads"],
            "--timeout",
            "60",
            # Longer than a simulated user's pause, so that gunicorn never closes a
            # kept-alive connection just as locust sends on it (a "connection reset").
            "--keep-alive",
            "10",
        ],
        env=env,
        cwd=PROJECT,
        stdout=logs["gunicorn"],
        stderr=subprocess.STDOUT,
    )
    processes["worker"] = subprocess.Popen(
        [*manage, "task_worker", "--queue-name", "*", "--no-reload", "--interval", "0.5"],
        env=env,
        cwd=PROJECT,
        stdout=logs["worker"],
        stderr=subprocess.STDOUT,
    )
    host = f"http://127.0.0.1:{web_port}"
    deadline = time.monotonic() + 60
    while get(f"{host}/healthz") != 200:
        if time.monotonic() > deadline or processes["gunicorn"].poll() is not None:
            raise SystemExit(f"gunicorn did not start; see {folder / 'gunicorn.log'}")
        time.sleep(0.3)

    files = {
        "LOAD_PLAN": str(folder / "plan.json"),
        "LOAD_REQUESTS": str(folder / "requests.jsonl"),
        "LOAD_WRITES": str(folder / "writes.jsonl"),
    }
    say(
        f"locust: {o['users']} users for {o['duration']:.0f} s against {host} "
        f"({o['web_workers']} gunicorn workers × {o['web_threads']} threads)"
        + (
            f"; PostgreSQL stops at {o['outage_at']:.0f} s for {o['outage_seconds']:.0f} s"
            if o["outage_seconds"]
            else ""
        )
    )
    load_began = time.time()
    processes["locust"] = subprocess.Popen(
        [
            str(Path(PY).parent / "locust"),
            "-f",
            str(PROJECT / "bench" / "locustfile.py"),
            "--headless",
            "-u",
            str(o["users"]),
            "-r",
            o["spawn_rate"],
            "-t",
            f"{int(o['duration'])}s",
            "--host",
            host,
            "--only-summary",
            "--loglevel",
            "WARNING",
            "--stop-timeout",
            "10",
        ],
        env={**env, **files},
        cwd=PROJECT,
        stdout=logs["locust"],
        stderr=subprocess.STDOUT,
    )

    outage = {}
    if o["outage_seconds"]:
        # A task the outage must cut off: it queries until 3 s into the outage.
        time.sleep(max(0.0, load_began + o["outage_at"] - 3 - time.time()))
        held = use_the_database_until.enqueue(load_began + o["outage_at"] + 3)
        connection.close()  # the outage would break it under this process too
        outage["task"] = held.id
        time.sleep(max(0.0, load_began + o["outage_at"] - time.time()))
        outage["stop"] = time.time()
        pg.stop("fast")
        outage["stopped"] = time.time()
        say(f"PostgreSQL stopped ({outage['stopped'] - outage['stop']:.1f} s to stop)")
        time.sleep(o["outage_seconds"])
        pg.start()
        outage["restarted"] = time.time()
        while get(f"{host}/corrections/", timeout=10) != 200:
            time.sleep(0.05)
        outage["recovered"] = time.time()
        say(
            "PostgreSQL started again; first page from the database "
            f"{outage['recovered'] - outage['restarted']:.2f} s later"
        )

    processes["locust"].wait(timeout=o["duration"] + 120)
    load_ended = time.time()
    say("load over; waiting for the worker to finish its queue")
    states, retried = task_outcome()
    worker_alive = processes["worker"].poll() is None
    held = None
    if outage:
        from django_tasks_db.models import DBTaskResult

        held = DBTaskResult.objects.get(pk=outage["task"])

    requests = read_jsonl(Path(files["LOAD_REQUESTS"]))
    writes = read_jsonl(Path(files["LOAD_WRITES"]))
    missing, partial, sources = verify_database(writes, versions_before, load_began)
    unextracted = [
        token
        for token, source in sources.items()
        if not any(v.extraction_status == "ready" for v in source.versions.all())
    ]
    worker_log = (folder / "worker.log").read_text(errors="replace")
    worker_retries = worker_log.count("The database is unavailable")
    worker_reruns = worker_log.count("will run again")

    # Figures ------------------------------------------------------------------------
    window_end = outage.get("restarted", 0) + RECOVERY_AIM_SECONDS
    in_window = lambda r: outage and outage["stop"] <= r["end"] <= window_end  # noqa: E731
    errors_5xx = [r for r in requests if r["status"] >= 500 and r["status"] != 503]
    unavailable = [r for r in requests if r["status"] == 503]
    stray_503 = [r for r in unavailable if not in_window(r)]
    transport = [r for r in requests if r["status"] == 0]
    elapsed = max(r["end"] for r in requests) - min(r["start"] for r in requests)
    normal = [r for r in requests if not in_window(r)]
    times = [r["ms"] for r in normal]
    print()
    print(f"requests        {len(requests):,} in {elapsed:.0f} s = {len(requests) / elapsed:.1f}/s")
    print(
        f"latency         p50 {percentile(times, 0.5):.0f} ms, p95 {percentile(times, 0.95):.0f} ms"
        " (outside the outage window)"
    )
    per_kind = defaultdict(list)
    for r in normal:
        per_kind[r["kind"]].append(r)
    print(f"  {'kind':<18}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}  statuses")
    for kind, rows in sorted(per_kind.items(), key=lambda item: -len(item[1])):
        ms = [r["ms"] for r in rows]
        codes = Counter(r["status"] for r in rows)
        print(
            f"  {kind:<18}{len(rows):>7}{percentile(ms, 0.5):>9.0f}{percentile(ms, 0.95):>9.0f}"
            "  " + ", ".join(f"{code}×{n}" for code, n in sorted(codes.items()))
        )
    print(f"5xx other than 503  {len(errors_5xx)}")
    print(f"transport errors    {len(transport)}")
    if outage:
        t0 = load_began
        in_outage = [r for r in requests if in_window(r)]
        print(
            f"outage              stopped at {outage['stop'] - t0:.1f} s, down "
            f"{outage['restarted'] - outage['stopped']:.1f} s, restarted at "
            f"{outage['restarted'] - t0:.1f} s"
        )
        ends = [r["end"] - t0 for r in unavailable]
        print(
            f"503s                {len(unavailable)} (all in {min(ends):.1f}–{max(ends):.1f} s)"
            if unavailable
            else "503s                0"
        )
        print(f"503s outside the window (stop … restart + 5 s): {len(stray_503)}")
        print(
            f"requests in the window {len(in_outage)}: "
            + ", ".join(
                f"{c}×{n}" for c, n in sorted(Counter(r["status"] for r in in_outage).items())
            )
        )
        recovery = outage["recovered"] - outage["restarted"]
        print(f"recovery            {recovery:.2f} s after the restart")
    kinds = Counter(w["kind"] for w in writes)
    tried = Counter(r["kind"] for r in requests)
    refused_kinds = [
        request_kind
        for request_kind, write_kind in WRITE_KINDS.items()
        if tried[request_kind] >= 5 and not kinds[write_kind]
    ]
    print(
        f"writes acknowledged {len(writes)} ("
        + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        + f"); found {len(writes) - len(missing)}; missing {len(missing)}"
    )
    for write in missing[:20]:
        print(f"  missing: {write}")
    print(f"partial writes      {len(partial)}")
    for problem in partial[:20]:
        print(f"  partial: {problem}")
    print(
        f"worker              {'alive' if worker_alive else 'DEAD'}; {worker_retries} database "
        f"retries, {worker_reruns} tasks rerun, tasks {states}, {retried} run more than once"
    )
    print(f"sources not extracted {len(unextracted)}; mail sent {sink.messages}")
    if held is not None:
        print(
            f"task in the outage  {held.status}, {len(held.worker_ids)} runs"
            f"{f', {held.return_value} queries in the last' if held.return_value else ''}"
        )

    aims = {
        "no 5xx other than 503": not errors_5xx,
        "no transport errors": not transport,
        "no 503 outside the outage and 5 s after it": not stray_503,
        "every acknowledged write is in the database": not missing,
        "no partial writes": not partial,
        "the worker survived and left no task behind": worker_alive
        and not states.get("RUNNING")
        and not states.get("READY")
        and not states.get("FAILED")
        and not unextracted,
        "writes were made": bool(writes),
        # A kind of write that the desk refused every time (a decision always "stale")
        # is a fault the other checks cannot see: each kind tried five times or more
        # must have succeeded at least once.
        "every kind of write tried succeeded at least once": not refused_kinds,
    }
    if outage:
        aims["the outage was seen (503s)"] = bool(unavailable)
        aims["the task running in the outage ran again and finished"] = (
            held.status == "SUCCESSFUL" and len(held.worker_ids) >= 2
        )
        aims["recovered within 5 s of the restart"] = (
            outage["recovered"] - outage["restarted"] <= RECOVERY_AIM_SECONDS
        )
    summary = {
        "requests": len(requests),
        "seconds": elapsed,
        "throughput": len(requests) / elapsed,
        "p50_ms": percentile(times, 0.5),
        "p95_ms": percentile(times, 0.95),
        "errors_5xx_other": len(errors_5xx),
        "status_503": len(unavailable),
        "stray_503": len(stray_503),
        "recovery_s": outage and outage["recovered"] - outage["restarted"],
        "writes": len(writes),
        "missing": len(missing),
        "partial": len(partial),
        "aims": aims,
        "load_seconds": load_ended - load_began,
    }
    (PROJECT / "var").mkdir(exist_ok=True)
    (PROJECT / "var" / "load-summary.json").write_text(json.dumps(summary, indent=2))
    print()
    for aim, met in aims.items():
        print(f"{'met   ' if met else 'MISSED'}  {aim}")
    for handle in logs.values():
        handle.close()
    if not all(aims.values()):
        say(f"logs: {folder} (kept)")
        os.environ["LOAD_KEEP"] = "1"
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
