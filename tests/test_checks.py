"""The system checks of settings that would go wrong with several processes."""

from django.core.checks import run_checks

LOCAL_MEMORY = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
REDIS = {"default": {"BACKEND": "factcheck.cache.RedisCache", "LOCATION": "redis://127.0.0.1:1"}}


def deploy_warnings(deploy=True):
    messages = run_checks(tags=["caches"], include_deployment_checks=deploy)
    return {message.id for message in messages}


def test_stored_desk_pages_with_a_cache_in_each_process_are_a_deploy_warning(settings):
    settings.DESK_PAGE_CACHE = True
    settings.CACHES = LOCAL_MEMORY

    assert "factcheck.W001" in deploy_warnings()
    assert "factcheck.W001" not in deploy_warnings(deploy=False)


def test_stored_desk_pages_in_a_shared_cache_or_none_pass_the_deploy_check(settings):
    settings.DESK_PAGE_CACHE = True
    settings.CACHES = REDIS
    assert "factcheck.W001" not in deploy_warnings()

    settings.DESK_PAGE_CACHE = False
    settings.CACHES = LOCAL_MEMORY
    assert "factcheck.W001" not in deploy_warnings()
