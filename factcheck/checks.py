"""System checks of settings that work in one process and go wrong in several."""

from django.conf import settings
from django.core import checks

from factcheck.desk_pages import CACHE_SECONDS

#: Cache backends whose entries only the process that wrote them can read.
PER_PROCESS_CACHES = frozenset({"django.core.cache.backends.locmem.LocMemCache"})


@checks.register(checks.Tags.caches, deploy=True)
def check_desk_page_cache_is_shared(app_configs, **kwargs):
    """
    Stored desk pages and the data kept with them (factcheck/desk_pages.py,
    factcheck/reference_data.py) are out of date once a write moves the shared
    generation. With a cache in each process's memory, a write in one app
    server or in the task worker moves only its own, and the others go on
    serving pages (and permissions) from before it: fine for runserver, wrong
    for a deployment, which runs several processes.
    """
    alias = settings.DESK_PAGE_CACHE_ALIAS
    backend = settings.CACHES.get(alias, {}).get("BACKEND")
    if not settings.DESK_PAGE_CACHE or backend not in PER_PROCESS_CACHES:
        return []
    return [
        checks.Warning(
            f"DESK_PAGE_CACHE is on, but its cache (CACHES[{alias!r}], {backend}) is kept "
            "in each process's memory.",
            hint=(
                "Set REDIS_URL, so that every app server and the task worker share one "
                "cache, or set DESK_PAGE_CACHE=false. Otherwise a write made in one process "
                f"leaves the others serving desk pages from before it for up to {CACHE_SECONDS} s."
            ),
            id="factcheck.W001",
        )
    ]
