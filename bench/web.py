"""
Page benchmark: the app served by gunicorn on PostgreSQL with the scale dataset.

Run from the repository root (``make bench-web`` does):

    .venv/bin/python bench/web.py

It creates the PostgreSQL database if it is missing, migrates it, generates
the scale dataset if absent (``bench/make_scale_dataset.py --if-absent``),
collects the static files, starts gunicorn on 127.0.0.1 with production
settings (DEBUG off, a generated SECRET_KEY, plain HTTP allowed), logs an
editor and the busy reviewer in through sessions made directly (each with a
CSRF cookie, as a browser keeps one), and times each page once, from client
threads in this process, reading every response body in full.

The yardstick is Django's own admin changelist of claims (``/admin/claims/claim/``,
at ClaimAdmin's ``list_per_page`` of 100; the run stops if that is not 100),
timed in the same run and for the same editor, through the same session, as the
desk pages. For that the scale dataset's editor (``scale-editor-001``) is made
``is_staff`` in the bench's database (the bench's own); the Editor role already
gives it ``claims.view_claim``, all the changelist asks for. No superuser is made.

For every page it prints p50 and p95 latency, requests per second, the p50 of
the floor (``/healthz`` on the same server, which does nothing but answer, timed
again just before each page), the page's p50 as a multiple of that floor and of
the admin changelist's p50, and the number of SQL queries the page runs (counted
in this process for the same URL and user with ``CaptureQueriesContext``).

The aims, at p50: every desk page (case list, case page, claim page, My
reviews, source reader, search) within 0.5× the admin changelist; the public
pages and the Atom feed within 5× the floor. The pages that miss are listed at
the end, and the results written to ``var/bench/web-results.json``. A page that
fails in the in-process query count has its traceback printed and is still timed.

Environment (all optional):

- ``BENCH_DATABASE_URL``: ``postgres://postgres@127.0.0.1:5432/factcheck_bench``
- ``BENCH_MEDIA_ROOT``: ``var/bench/media`` (the generated sources' files)
- ``BENCH_SCALE_FLAGS``: flags for bench/make_scale_dataset.py, e.g. ``--cases 50 --claims
  2500 --sources 500`` for a quick run, in a fresh database (default: its full
  defaults)
- ``BENCH_REQUESTS`` (200 per page), ``BENCH_CONCURRENCY`` (2 client threads),
  ``BENCH_WORKERS`` (2 gunicorn workers), ``BENCH_PORT`` (8765)
- ``BENCH_ONLY``: comma-separated words; only the pages whose names contain one
  are timed (the floor and the admin changelist always are)
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
import traceback
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

#: The yardstick: Django's admin changelist of claims, at this many rows a page.
ADMIN_URL, ADMIN_PER_PAGE = "/admin/claims/claim/", 100
#: What a page's p50 is measured against: the admin changelist's p50, or the floor's.
ADMIN, FLOOR = "admin", "floor"
#: The aims: a desk page within half the admin changelist; a public page within 5× the floor.
DESK_AIM = (ADMIN, 0.5)
PUBLIC_AIM = (FLOOR, 5)
#: The rows that others are measured against: always timed, with no aim of their own.
FLOOR_PAGE = "floor (/healthz)"
ADMIN_PAGE = f"admin changelist of claims ({ADMIN_PER_PAGE} a page)"

SERVER_ENV = dict(
    os.environ,
    DATABASE_URL=DATABASE_URL,
    REDIS_URL=REDIS_URL,
    MEDIA_ROOT=str(MEDIA_ROOT),
    STATIC_ROOT=str(STATIC_ROOT),
    DEBUG="false",
    SECRET_KEY=f"bench-{secrets.token_urlsafe(50)}",
    ALLOWED_HOSTS="127.0.0.1",
    SITE_URL="http://127.0.0.1",
    SECURE_SSL_REDIRECT="false",
    SECURE_HSTS_SECONDS="0",
    SESSION_COOKIE_SECURE="false",
    CSRF_COOKIE_SECURE="false",
    LOG_LEVEL="WARNING",
    DJANGO_SETTINGS_MODULE="factcheck.settings",
)


def scale_dataset():
    """
    The scale-dataset generator's module (``PREFIX``, ``BUSY_CASE_SLUG``,
    ``BUSY_REVIEWER``, ``NAMES``, ...). The only place the benches name it
    (bench/load.py asks here too); imported late, once Django is set up.
    """
    from bench import scale

    return scale


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
    subprocess.run(
        [PYTHON, "bench/make_scale_dataset.py", "--if-absent", *SCALE_FLAGS],
        cwd=ROOT,
        env=SERVER_ENV,
        check=True,
    )
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


def staff_editor(username):
    """
    The editor ``username``, made ``is_staff`` in the bench's database so that the
    same user, in the same session, opens both the desk and the admin changelist.
    """
    from django.contrib import admin
    from django.contrib.auth import get_user_model

    from claims.models import Claim

    per_page = admin.site.get_model_admin(Claim).list_per_page
    if per_page != ADMIN_PER_PAGE:
        raise SystemExit(
            f"ClaimAdmin.list_per_page is {per_page}; the yardstick is {ADMIN_PER_PAGE} a page."
        )
    User = get_user_model()
    User.objects.filter(username=username, is_staff=False).update(is_staff=True)
    editor = User.objects.get(username=username)
    if not editor.has_perm("claims.view_claim"):
        raise SystemExit(f"{username} may not view claims, so not the admin changelist.")
    return editor


def pages():
    """
    ``[(name, url, user or None, aim or None)]``: what the benchmark times, the
    floor and the admin changelist first. A ``url`` may be a function giving the
    next request's URL (a different one each time); ``aim`` is ``(against, times)``
    with ``against`` ADMIN or FLOOR.
    """
    from django.contrib.auth import get_user_model
    from django.db.models import Count

    from claims.models import Case, Claim
    from claims.public import published_corrections
    from claims.selectors import open_review_count
    from claims.views.public import CORRECTIONS_PER_PAGE
    from factcheck.search import search
    from sources.models import SourceVersion

    scale = scale_dataset()
    editor = staff_editor(f"{scale.PREFIX}-editor-001")
    reviewer = get_user_model().objects.get(username=scale.BUSY_REVIEWER)
    case = Case.objects.get(slug=scale.BUSY_CASE_SLUG)
    claim = (
        Claim.objects.filter(case=case)
        .annotate(evidence_count=Count("evidence"))
        .order_by("-evidence_count", "id")
        .first()
    )
    large = SourceVersion.objects.order_by("-byte_size").only("source_id").first()
    # Names that the index holds a few dozen times: what a reporter looks up.
    names = (
        word for word in scale.NAMES[len(scale.NAMES) // 3 :] if 10 <= search(word).count() <= 200
    )
    name = next(names)
    # One more for each request, warm-up and query count: each search is of a new term.
    # (A reduced dataset may not hold that many; then that row is left out.) Counting
    # them reads some of their pages first, so that row is a lower bound for a cold search.
    fresh_names = list(itertools.islice(names, REQUESTS + 10))
    fresh = iter(fresh_names)
    new_terms = [
        ("search, a new term each time", lambda: f"/search/?q={next(fresh)}", editor, DESK_AIM)
    ]
    log_pages = max(1, -(-published_corrections().count() // CORRECTIONS_PER_PAGE))
    return [
        (FLOOR_PAGE, "/healthz", None, None),
        (ADMIN_PAGE, ADMIN_URL, editor, None),
        ("case list", "/cases/", editor, DESK_AIM),
        (f"case page ({case.claims.count()} claims)", case.get_absolute_url(), editor, DESK_AIM),
        (
            f"claim page ({claim.evidence_count} evidence)",
            claim.get_absolute_url(),
            editor,
            DESK_AIM,
        ),
        (
            f"my reviews ({reviewer.review_assignments.count()} assignments)",
            "/reviews/?show=all",
            reviewer,
            DESK_AIM,
        ),
        (
            f"my reviews, awaiting ({open_review_count(reviewer)} in review)",
            "/reviews/",
            reviewer,
            DESK_AIM,
        ),
        (
            f"source reader ({large.byte_size / 1e6:.1f} MB)",
            f"/sources/{large.source_id}/",
            editor,
            DESK_AIM,
        ),
        (f"search ({name!r})", f"/search/?q={name}", editor, DESK_AIM),
        *(new_terms if len(fresh_names) == REQUESTS + 10 else []),
        ("public case page", f"/published/{case.slug}/", None, PUBLIC_AIM),
        ("corrections log, page 1", "/corrections/", None, PUBLIC_AIM),
        (
            f"corrections log, page {log_pages}",
            f"/corrections/?page={log_pages}",
            None,
            PUBLIC_AIM,
        ),
        ("Atom feed", "/corrections/feed/atom/", None, PUBLIC_AIM),
    ]


def count_queries(url, user):
    """
    The SQL queries ``url`` runs for ``user``, in this process, after a warm-up;
    None, with the URL and traceback printed, when the page fails.
    """
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")
    if user is not None:
        client.force_login(user)
    target = resolve(url)
    try:
        client.get(target)
        target = resolve(url)
        client.get(target)
        target = resolve(url)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(target)
    except Exception:
        print(f"\n{target} failed in-process:\n{traceback.format_exc()}", flush=True)
        return None
    if response.status_code != 200:
        print(f"\n{target} answered {response.status_code} in-process", flush=True)
        return None
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
            if fetch(http.client.HTTPConnection("127.0.0.1", PORT), "/healthz", "") == 200:
                return server
        except OSError:
            time.sleep(0.3)
    server.terminate()
    raise SystemExit("gunicorn did not answer /healthz within 60 s")


def fetch(connection, url, cookie):
    """The status of a GET of ``url``, its whole body read."""
    headers = {"Host": f"127.0.0.1:{PORT}"}
    if cookie:
        headers["Cookie"] = cookie
    connection.request("GET", url, headers=headers)
    response = connection.getresponse()
    response.read()  # the whole body is part of the timing
    if response.getheader("Connection", "").lower() == "close":
        connection.close()
    return response.status


def time_page(url, cookie):
    """Latencies of REQUESTS requests from CONCURRENCY threads, the wall time, and errors."""
    latencies, errors, lock = [], [], threading.Lock()
    per_thread = [
        REQUESTS // CONCURRENCY + (i < REQUESTS % CONCURRENCY) for i in range(CONCURRENCY)
    ]

    def client(count):
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=120)
        for _ in range(count):
            target = resolve(url)
            began = time.perf_counter()
            status = fetch(connection, target, cookie)
            elapsed = time.perf_counter() - began
            with lock:
                latencies.append(elapsed)
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
    return latencies, wall, errors


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def judge(results):
    """Adds each result's ratios and verdict; returns the names of the pages that miss."""
    admin = next((r for r in results if r["page"] == ADMIN_PAGE), None)
    admin_p50 = admin["p50_ms"] if admin and not admin["errors"] else None
    missed = []
    for result in results:
        result["x_floor"] = result["p50_ms"] / result["floor_p50_ms"]
        result["x_admin"] = result["p50_ms"] / admin_p50 if admin_p50 else None
        verdict, met = "", None
        if result["page"] == ADMIN_PAGE:
            verdict = "yardstick"
        elif result["aim_against"] is not None:
            ratio = result["x_admin"] if result["aim_against"] == ADMIN else result["x_floor"]
            if ratio is None:
                verdict, met = "no admin figure", False
            else:
                met = ratio <= result["aim"]
                verdict = "ok" if met else f"MISSES {result['aim']:g}× {result['aim_against']}"
        if result["errors"]:
            verdict += f" {result['errors']} errors"
            met = False
        elif result["queries"] is None:
            verdict += " failed in-process"
            met = False
        result["verdict"], result["met"] = verdict.strip(), met
        if met is False:
            missed.append(result["page"])
    return missed


def report(results, missed):
    print()
    print(
        f"gunicorn {WORKERS} sync workers, {CONCURRENCY} client threads, {REQUESTS} requests "
        f"a page, PostgreSQL {urlsplit(DATABASE_URL).path.lstrip('/')}"
    )
    header = (
        f"{'page':48} {'p50 ms':>8} {'p95 ms':>8} {'req/s':>7} {'floor p50':>9}"
        f" {'× floor':>8} {'× admin':>8} {'queries':>7}  verdict"
    )
    print(header)
    print("-" * len(header))
    for result in results:
        x_admin = "—" if result["x_admin"] is None else f"{result['x_admin']:.2f}"
        queries = "—" if result["queries"] is None else str(result["queries"])
        print(
            f"{result['page'][:48]:48} {result['p50_ms']:8.1f} {result['p95_ms']:8.1f} "
            f"{result['rps']:7.1f} {result['floor_p50_ms']:9.1f} {result['x_floor']:8.1f} "
            f"{x_admin:>8} {queries:>7}  {result['verdict']}"
        )
    print(
        "\nfloor p50: the p50 of /healthz timed just before the page; × floor is the page's"
        "\np50 over it. × admin: the page's p50 over the admin changelist's, same run."
        f"\nAims at p50: desk pages ≤ {DESK_AIM[1]:g}× admin; public pages and the Atom feed"
        f" ≤ {PUBLIC_AIM[1]:g}× floor."
    )
    output = ROOT / "var" / "bench" / "web-results.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    print(f"\nResults written to {output.relative_to(ROOT)}")
    print("Missing the aim: " + ", ".join(missed) if missed else "Every page meets its aim.")


def main():
    prepare()
    setup_django()
    from django.conf import settings
    from django.middleware.csrf import CSRF_ALLOWED_CHARS
    from django.utils.crypto import get_random_string

    listed = pages()
    if ONLY:
        listed = [
            page
            for page in listed
            if page[0] in (FLOOR_PAGE, ADMIN_PAGE) or any(name in page[0] for name in ONLY)
        ]
    # Each user's browser: a session and the CSRF cookie its pages' forms are made from.
    # The editor's one session opens both its desk pages and the admin changelist.
    cookies = {}
    for _name, _url, user, _aim in listed:
        if user is not None and user.pk not in cookies:
            cookies[user.pk] = (
                f"{settings.SESSION_COOKIE_NAME}={session_for(user)}; "
                f"{settings.CSRF_COOKIE_NAME}={get_random_string(32, CSRF_ALLOWED_CHARS)}"
            )
    queries = {name: count_queries(url, user) for name, url, user, _aim in listed}

    server = start_server()
    results = []
    try:
        for name, url, user, aim in listed:
            # The floor again just before each page: on a shared machine the speed
            # drifts over minutes, and a ratio means most against the floor of its moment.
            floor_latencies, _wall, _errors = time_page("/healthz", "")
            latencies, wall, errors = time_page(url, cookies.get(user.pk) if user else "")
            results.append(
                {
                    "page": name,
                    "url": url if isinstance(url, str) else "(a new URL for each request)",
                    "user": user.username if user else None,
                    "p50_ms": percentile(latencies, 0.50) * 1000,
                    "p95_ms": percentile(latencies, 0.95) * 1000,
                    "floor_p50_ms": percentile(floor_latencies, 0.50) * 1000,
                    "rps": len(latencies) / wall,
                    "queries": queries[name],
                    "errors": len(errors),
                    "statuses": sorted(set(errors)),
                    "aim_against": aim[0] if aim else None,
                    "aim": aim[1] if aim else None,
                }
            )
            status = f", {len(errors)} errors {sorted(set(errors))}" if errors else ""
            print(f"  timed {name}: p50 {results[-1]['p50_ms']:.1f} ms{status}", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)

    report(results, judge(results))


if __name__ == "__main__":
    main()
