"""
One log line per request (``REQUEST_LOG``, on with DEBUG off): request id, user
id, method, path, status and duration in milliseconds, on the
``factcheck.requests`` logger, which ``LOG_FORMAT=json`` writes as JSON.

The request id is the proxy's ``X-Request-ID`` when it sends a sane one (so a
line can be matched with the proxy's), else a new one; it is sent back in the
response's ``X-Request-ID``.
"""

import logging
import re
import time
import uuid

from django.conf import settings
from django.utils.functional import empty

logger = logging.getLogger("factcheck.requests")

_SANE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def _user_id(request):
    # Only a user already read for the request: reading it here would cost a session
    # query on pages that never needed one (/healthz, static files).
    user = getattr(request, "user", None)
    if user is None or getattr(user, "_wrapped", None) is empty:
        return None
    return user.pk if user.is_authenticated else None


class RequestLogMiddleware:
    """Times each request and logs one line for it once it is answered."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not settings.REQUEST_LOG:
            return self.get_response(request)
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _SANE_ID.match(given) else uuid.uuid4().hex
        request.request_id = request_id
        started = time.perf_counter()
        response = self.get_response(request)
        duration_ms = round((time.perf_counter() - started) * 1000, 1)
        response.setdefault("X-Request-ID", request_id)
        logger.info(
            "%s %s %s",
            request.method,
            request.path,
            response.status_code,
            extra={
                "request_id": request_id,
                "user_id": _user_id(request),
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": duration_ms,
            },
        )
        return response
