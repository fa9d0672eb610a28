"""
Page benchmark: the app served by gunicorn on PostgreSQL with the scale dataset.

Run from the repository root (``make bench-web`` does):

    .venv/bin/python bench/web.py

It creates the PostgreSQL database if it is missing, migrates it, generates
the scale dataset if absent (``manage.py make_scale_dataset``), collects the
static files, starts gunicorn on 127.0.0.1 with production settings (DEBUG
off, a generated SECRET_KEY, plain HTTP allowed), logs an editor and the busy
reviewer in through sessions made directly (each with a CSRF cookie, as a
browser keeps one), and times each page from client threads in this process.
For every page it prints p50 and p95 latency, requests per second, the ratio
of its p50 to the floor (``/healthz`` on the same server, which does nothing
but answer, timed again just before each page) and the number of SQL queries
the page runs (counted in this process for the same URL and user with
``CaptureQueriesContext``). The aims: every page within 10× the floor at p50
with a constant, small number of queries; search within 20×.

Each logged-in (desk) page is timed twice: requested again and again unchanged,
which the desk page cache (factcheck/desk_pages.py) answers from Redis, and
"after a write", where the write generation is moved before every request (as
any write to the database does) so that every response is rendered. The
"stored" column is the share of responses that came from the cache.

Environment (all optional):

- ``BENCH_DATABASE_URL``: ``postgres://postgres@127.0.0.1:5432/factcheck_bench``
- ``BENCH_MEDIA_ROOT``: ``var/bench/media`` (the generated sources' files)
- ``BENCH_SCALE_FLAGS``: flags for make_scale_dataset, e.g. ``--cases 50 --claims
  2500 --sources 500`` for a quick run (default: its full defaults)
- ``BENCH_REQUESTS`` (200 per page), ``BENCH_CONCURRENCY`` (2 client threads),
  ``BENCH_WORKERS`` (2 gunicorn workers), ``BENCH_PORT`` (8765)
- ``BENCH_ONLY``: comma-separated page names, to time only those
- ``BENCH_REDIS_URL``: the cache the server processes share, as production has
  it (``redis://127.0.0.1:6379/13``, emptied first); ``""`` for none
"""

import http.client
import itertools
import json
import os
import secrets
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")

DATABASE_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/factcheck_bench"
)
MEDIA_ROOT = Path(os.environ.get("BENCH_MEDIA_ROOT") or ROOT / "var" / "bench" / "media")
STATIC_ROOT = ROOT / "var" / "bench" / "static"
SCALE_FLAGS = shlex.split(os.environ.get("BENCH_SCALE_FLAGS", ""))
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "200"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "2"))
WORKERS = int(os.environ.get("BENCH_WORKERS", "2"))
PORT = int(os.environ.get("BENCH_PORT", "8765"))
#: The cache the servers share, as in production (README); "" for each process's own.
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
ONLY = {name for name in os.environ.get("BENCH_ONLY", "").split(",") if name}
#: How many times the floor a page may take at p50; search gets more.
AIM, SEARCH_AIM = 10, 20

SERVER_ENV = dict(
    os.environ,
    DATABASE_URL=DATABASE_URL,
    REDIS_URL=REDIS_URL,
    MEDIA_ROOT=str(MEDIA_ROOT),
    STATIC_ROOT=str(STATIC_ROOT),
    DEBUG="false",
    SECRET_KEY=f"bench-{secrets.token_urlsafe(50)}",
    ALLOWED_HOSTS="127.0.0.1",
    SECURE_SSL_REDIRECT="false",
    SECURE_HSTS_SECONDS="0",
    SESSION_COOKIE_SECURE="false",
    CSRF_COOKIE_SECURE="false",
    LOG_LEVEL="WARNING",
    DJANGO_SETTINGS_MODULE="factcheck.settings",
)


def manage(*args):
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=SERVER_ENV, check=True)


def ensure_database():
    import psycopg

    parts = urlsplit(DATABASE_URL)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if not exists:
            print(f"Creating database {name}")
            connection.execute(f'CREATE DATABASE "{name}"')


def prepare():
    ensure_database()
    manage("migrate", "--noinput", "-v0")
    manage("make_scale_dataset", "--if-absent", *SCALE_FLAGS)
    manage("collectstatic", "--noinput", "-v0")


def setup_django():
    os.environ.update(SERVER_ENV)
    import django

    django.setup()
    from django.core.cache import caches

    # Every figure starts from nothing cached: the first requests build what the rest reuse.
    for cache in caches.all():
        cache.clear()


def session_for(user):
    """A logged-in session for ``user``, made as django.contrib.auth.login would."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return session.session_key


def pages():
    """
    ``[(name, url, user or None, aim)]``: what the benchmark times. A ``url``
    may be a function giving the next request's URL (a different one each time).
    """
    from django.contrib.auth import get_user_model
    from django.db.models import Count

    from claims.models import Case, Claim
    from claims.public import published_corrections
    from claims.scale import BUSY_CASE_SLUG, BUSY_REVIEWER, NAMES, PREFIX
    from claims.selectors import open_review_count
    from claims.views import CORRECTIONS_PER_PAGE
    from factcheck.search import search
    from sources.models import SourceVersion

    User = get_user_model()
    editor = User.objects.get(username=f"{PREFIX}-editor-001")
    reviewer = User.objects.get(username=BUSY_REVIEWER)
    case = Case.objects.get(slug=BUSY_CASE_SLUG)
    claim = (
        Claim.objects.filter(case=case)
        .annotate(evidence_count=Count("evidence"))
        .order_by("-evidence_count", "id")
        .first()
    )
    large = SourceVersion.objects.order_by("-byte_size").only("source_id").first()
    # Names that the index holds a few dozen times: what a reporter looks up.
    names = (word for word in NAMES[len(NAMES) // 3 :] if 10 <= search(word).count() <= 200)
    name = next(names)
    # One more for each request, warm-up and query count: each search is of a new term.
    # (A reduced dataset may not hold that many; then that row is left out.) Counting
    # them reads some of their pages first, so that row is a lower bound for a cold search.
    fresh_names = list(itertools.islice(names, REQUESTS + 10))
    fresh = iter(fresh_names)
    new_terms = [
        ("search, a new term each time", lambda: f"/search/?q={next(fresh)}", editor, SEARCH_AIM)
    ]
    log_pages = max(1, -(-published_corrections().count() // CORRECTIONS_PER_PAGE))
    return [
        ("floor (/healthz)", "/healthz", None, None),
        ("case list", "/cases/", editor, AIM),
        (f"case page ({case.claims.count()} claims)", case.get_absolute_url(), editor, AIM),
        (
            f"claim page ({claim.evidence_count} evidence)",
            claim.get_absolute_url(),
            editor,
            AIM,
        ),
        (
            f"my reviews ({reviewer.review_assignments.count()} assignments)",
            "/reviews/?show=all",
            reviewer,
            AIM,
        ),
        (
            f"my reviews, awaiting ({open_review_count(reviewer)} in review)",
            "/reviews/",
            reviewer,
            AIM,
        ),
        (
            f"source reader ({large.byte_size / 1e6:.1f} MB)",
            f"/sources/{large.source_id}/",
            editor,
            AIM,
        ),
        (f"search ({name!r})", f"/search/?q={name}", editor, SEARCH_AIM),
        *(new_terms if len(fresh_names) == REQUESTS + 10 else []),
        ("public case page", f"/published/{case.slug}/", None, AIM),
        ("corrections log, page 1", "/corrections/", None, AIM),
        (
            f"corrections log, page {log_pages}",
            f"/corrections/?page={log_pages}",
            None,
            AIM,
        ),
        ("Atom feed", "/corrections/feed/atom/", None, AIM),
    ]


def count_queries(url, user, *, rendered=False):
    """
    The SQL queries ``url`` runs for ``user``, in this process (after a warm-up):
    as served again unchanged, or, with ``rendered``, right after a write.
    """
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from factcheck.desk_pages import note_write

    client = Client(HTTP_HOST="127.0.0.1")
    if user is not None:
        client.force_login(user)
    client.get(resolve(url))
    client.get(resolve(url))
    if rendered:
        note_write()
    target = resolve(url)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(target)
    assert response.status_code == 200, (url, response.status_code)
    return len(queries)


def resolve(url):
    return url() if callable(url) else url


def start_server():
    server = subprocess.Popen(
        [
            GUNICORN,
            "factcheck.wsgi",
            f"--bind=127.0.0.1:{PORT}",
            f"--workers={WORKERS}",
            "--worker-class=sync",
            "--timeout=120",
            "--log-level=warning",
        ],
        cwd=ROOT,
        env=SERVER_ENV,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            status, _served = fetch(http.client.HTTPConnection("127.0.0.1", PORT), "/healthz", "")
            if status == 200:
                return server
        except OSError:
            time.sleep(0.3)
    server.terminate()
    raise SystemExit("gunicorn did not answer /healthz within 60 s")


def fetch(connection, url, cookie):
    headers = {"Host": f"127.0.0.1:{PORT}"}
    if cookie:
        headers["Cookie"] = cookie
    connection.request("GET", url, headers=headers)
    response = connection.getresponse()
    response.read()  # the whole body is part of the timing
    if response.getheader("Connection", "").lower() == "close":
        connection.close()
    from factcheck.desk_pages import HIT_HEADER

    return response.status, response.getheader(HIT_HEADER)


def time_page(url, cookie, before_each=None):
    """
    Latencies of REQUESTS requests from CONCURRENCY threads, and the wall time;
    ``before_each()`` runs, untimed, before every request.
    """
    latencies, errors, served, lock = [], [], [], threading.Lock()
    per_thread = [
        REQUESTS // CONCURRENCY + (i < REQUESTS % CONCURRENCY) for i in range(CONCURRENCY)
    ]

    def client(count):
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=120)
        for _ in range(count):
            if before_each is not None:
                before_each()
            target = resolve(url)
            began = time.perf_counter()
            status, how = fetch(connection, target, cookie)
            elapsed = time.perf_counter() - began
            with lock:
                latencies.append(elapsed)
                served.append(how)
                if status != 200:
                    errors.append(status)

    warm = http.client.HTTPConnection("127.0.0.1", PORT, timeout=120)
    for _ in range(3):
        fetch(warm, resolve(url), cookie)
    threads = [threading.Thread(target=client, args=(count,)) for count in per_thread]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    return latencies, wall, errors, served.count("hit") / len(served)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    prepare()
    setup_django()
    from django.conf import settings

    listed = pages()
    if ONLY:
        listed = [page for page in listed if page[2] is None and page[3] is None] + [
            page for page in listed if any(name in page[0] for name in ONLY)
        ]
    from django.middleware.csrf import CSRF_ALLOWED_CHARS
    from django.utils.crypto import get_random_string

    from factcheck.desk_pages import note_write

    # Each user's browser: a session and the CSRF cookie its pages' forms are made from.
    cookies = {}
    for _name, _url, user, _aim in listed:
        if user is not None and user.pk not in cookies:
            cookies[user.pk] = (
                f"{settings.SESSION_COOKIE_NAME}={session_for(user)}; "
                f"{settings.CSRF_COOKIE_NAME}={get_random_string(32, CSRF_ALLOWED_CHARS)}"
            )
    # A desk page is timed twice: opened again unchanged (served from the desk page
    # cache) and right after a write anywhere (rendered). Public pages once, and a
    # page of a new URL each time once, after a write (it is never stored anyway).
    runs = []
    for name, url, user, aim in listed:
        if user is None or not callable(url):
            runs.append((name, url, user, aim, False))
        if user is not None:
            runs.append((f"{name}, after a write", url, user, aim, True))
    queries = {
        (url, rendered): count_queries(url, user, rendered=rendered)
        for _name, url, user, _aim, rendered in runs
    }

    server = start_server()
    results = []
    try:
        for name, url, user, aim, rendered in runs:
            # The floor again just before each page: on a shared machine the speed
            # drifts over minutes, and a ratio means most against the floor of its moment.
            floor_latencies, _wall, _errors, _stored = time_page("/healthz", "")
            latencies, wall, errors, stored = time_page(
                url, cookies.get(user.pk) if user else "", note_write if rendered else None
            )
            results.append(
                {
                    "page": name,
                    "url": url if isinstance(url, str) else "(a new URL for each request)",
                    "after_a_write": rendered,
                    "p50_ms": percentile(latencies, 0.50) * 1000,
                    "p95_ms": percentile(latencies, 0.95) * 1000,
                    "floor_p50_ms": percentile(floor_latencies, 0.50) * 1000,
                    "rps": len(latencies) / wall,
                    "queries": queries[url, rendered],
                    "served_stored": stored,
                    "errors": len(errors),
                    "aim": aim,
                }
            )
            print(f"  timed {name}: p50 {results[-1]['p50_ms']:.1f} ms", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)

    print()
    print(
        f"gunicorn {WORKERS} sync workers, {CONCURRENCY} client threads, {REQUESTS} requests "
        f"a page, PostgreSQL {urlsplit(DATABASE_URL).path.lstrip('/')}"
    )
    header = (
        f"{'page':52} {'p50 ms':>8} {'p95 ms':>8} {'req/s':>7} {'floor':>6} {'× floor':>8}"
        f" {'queries':>7} {'stored':>6}"
    )
    print(header)
    print("-" * len(header))
    missed = []
    for result in results:
        ratio = result["p50_ms"] / result["floor_p50_ms"]
        result["ratio"] = ratio
        verdict = ""
        if result["aim"] is not None:
            verdict = "ok" if ratio <= result["aim"] else f"MISSES {result['aim']}×"
            if verdict != "ok":
                missed.append(result["page"])
        if result["errors"]:
            verdict += f" {result['errors']} errors"
            missed.append(result["page"])
        print(
            f"{result['page'][:52]:52} {result['p50_ms']:8.1f} {result['p95_ms']:8.1f} "
            f"{result['rps']:7.1f} {result['floor_p50_ms']:6.1f} {ratio:8.1f} "
            f"{result['queries']:7d} {result['served_stored']:6.0%}  {verdict}"
        )
    print(
        "\nfloor: the p50 of /healthz timed just before the page, which its ratio is to."
        "\nstored: the share of responses served from the desk page cache. A desk page is"
        "\nstored until the next write to the database; 'after a write' renders it every time."
    )
    output = ROOT / "var" / "bench" / "web-results.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(results, indent=2))
    print(f"\nResults written to {output.relative_to(ROOT)}")
    if missed:
        print("Missing the aim: " + ", ".join(missed))


if __name__ == "__main__":
    main()
