"""
Where a page's time goes, in-process.

Run from the repository root, after ``make bench-web`` has made the scale
dataset (it uses the same database, cache and pages):

    .venv/bin/python bench/profile_page.py "case list" [requests] [--profile]

The page name is the start of one of bench/web.py's page names ("case page",
"claim page", "my reviews", "source reader", "admin changelist", ...). It prints
the median time of a request through Django's test client (every response is
rendered: there is no page cache) and the median time spent in the database; the
10th percentile as well, which varies less from run to run on a shared machine.
With ``--profile`` it also prints cProfile's functions by their own time and by
cumulative time.
"""

import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import web


def main():
    arguments = [argument for argument in sys.argv[1:] if not argument.startswith("--")]
    wanted = arguments[0] if arguments else "case list"
    count = int(arguments[1]) if len(arguments) > 1 else 60
    web.setup_django()

    from django.db import connection
    from django.test import Client

    name, url, user, _aim = next(page for page in web.pages() if page[0].startswith(wanted))
    client = Client(HTTP_HOST="127.0.0.1")
    if user is not None:
        client.force_login(user)

    def rendered():
        response = client.get(web.resolve(url))
        assert response.status_code == 200, response.status_code
        return response

    for _ in range(10):
        rendered()
    timings, database, spent = [], [], []

    def timed(execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            spent.append(time.perf_counter() - started)

    for _ in range(count):
        spent.clear()
        with connection.execute_wrapper(timed):
            started = time.perf_counter()
            rendered()
            timings.append(time.perf_counter() - started)
        database.append(sum(spent))
    fastest_tenth = sorted(timings)[len(timings) // 10]
    print(
        f"{name}: median {statistics.median(timings) * 1000:.1f} ms per request "
        f"(p10 {fastest_tenth * 1000:.1f} ms), "
        f"of which {statistics.median(database) * 1000:.1f} ms in {len(spent)} queries "
        "(executing and fetching)"
    )
    if "--profile" in sys.argv:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(count):
            rendered()
        profile.disable()
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(60)


if __name__ == "__main__":
    main()
