"""
Sources captured from the web: a page fetched by its address, kept as a version.

The fetch goes through the forgery guard of :mod:`sources.fetching`, held to the settings
``URL_FETCH_TIMEOUT_SECONDS``, ``URL_FETCH_MAX_REDIRECTS``, ``URL_FETCH_ALLOWED_ADDRESSES``
and ``SOURCE_UPLOAD_MAX_BYTES``. It runs in the request, outside any database transaction:
no row is locked while a slow server takes its time. What it brings back is checked as an
upload is (the type read from the bytes) and stored in one transaction as the next version
of the source, with where and when it was fetched, the response's status and headers, and
the whole exchange as a WARC record (:func:`warc_record`). Its text is then extracted by
the task worker, as for an upload, and the quotations of the previous version are carried
over to it (re-anchoring) when that is done: fetching a page again shows the desk what was
edited on it since.

Every refusal is a ``ValidationError`` in the reader's language, and nothing is stored.
"""

from __future__ import annotations

import codecs
import io
import posixpath
import re
import unicodedata
from datetime import UTC
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.http import parse_header_parameters
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from warcio.statusandheaders import StatusAndHeaders
from warcio.timeutils import datetime_to_iso_date
from warcio.warcwriter import WARCWriter

from factcheck.audit import record
from factcheck.exceptions import NotAllowed
from sources.fetching import USER_AGENT, FetchError, FetchResult, FetchTooLarge, UnsafeURL, fetch
from sources.models import Source, SourceVersion
from sources.services import (
    _latest_with_same_bytes,
    _lock_source,
    _store_version,
    check_upload,
    source_create,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

#: As long as the model's URL fields may be.
URL_MAX_LENGTH = 2000
#: A title made from an address is cut here: the desk will want a better one anyway.
URL_TITLE_MAX_LENGTH = 200

#: What ``sources.fetching`` calls each kind of address it refuses, as a phrase a
#: translation can make agree with its own word for "address".
ADDRESS_KINDS = {
    "unspecified": gettext_lazy("an unspecified address"),
    "private": gettext_lazy("a private network address"),
    "shared (carrier-grade NAT)": gettext_lazy("a shared address (carrier-grade NAT)"),
    "loopback": gettext_lazy("a loopback address (the server itself)"),
    "link-local": gettext_lazy("a link-local address"),
    "reserved": gettext_lazy("a reserved address"),
    "documentation": gettext_lazy("an address reserved for documentation"),
    "benchmarking": gettext_lazy("an address reserved for benchmarking"),
    "multicast": gettext_lazy("a multicast address"),
    "Teredo": gettext_lazy("a Teredo tunnel address"),
    "6to4": gettext_lazy("a 6to4 tunnel address"),
    "site-local": gettext_lazy("a site-local address"),
    "non-public": gettext_lazy("an address that is not public"),
    "cloud metadata": gettext_lazy("a cloud metadata address"),
}

#: Unicode categories kept out of a title made from an address: control, format, surrogate.
_INVISIBLE = frozenset({"Cc", "Cf", "Cs"})

#: A charset name as a Content-Type header may carry it, before Python is asked if it knows it.
_CHARSET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+-]{0,39}")


def _require(actor: User | None, permission: str, message: str) -> None:
    # None is the system (a management command run without --as).
    if actor is not None and not actor.has_perm(permission):
        raise NotAllowed(message, code="not_editor")


def fetch_refusal(error: FetchError) -> ValidationError:
    """
    ``error`` (from :func:`sources.fetching.fetch`) as a ValidationError in the reader's
    language, with the code ``unsafe_url``, ``too_large`` or ``fetch_failed``.
    """
    if isinstance(error, FetchTooLarge):
        message = _("The page is larger than %(limit)s, the most a source may be.") % {
            "limit": filesizeformat(settings.SOURCE_UPLOAD_MAX_BYTES)
        }
        return ValidationError(message, code="too_large")
    params = dict(error.params)
    if "kind" in params:
        kind = params["kind"]
        params["kind"] = ADDRESS_KINDS.get(kind, kind)
        if params["host"] == params["address"]:
            template = _("%(address)s is %(kind)s: only public web addresses are fetched.")
        else:
            template = _(
                "%(host)s leads to %(kind)s (%(address)s): only public web addresses are fetched."
            )
    else:
        template = _(error.template)
    code = "unsafe_url" if isinstance(error, UnsafeURL) else "fetch_failed"
    return ValidationError(template % params, code=code)


def filename_from_url(url: str) -> str:
    """The last part of ``url``'s path, as an upload's file name (it may say .md or .txt)."""
    return posixpath.basename(unquote(urlsplit(url).path))


def title_from_url(url: str) -> str:
    """A title for a page nobody named: its host and path, as a reader would say them."""
    parts = urlsplit(url)
    title = f"{parts.hostname or ''}{unquote(parts.path).rstrip('/')}" or url
    # A decoded path may hold NUL, bidi overrides and other invisible characters: a title
    # shows none of them (nor could PostgreSQL store a NUL).
    title = "".join(char for char in title if unicodedata.category(char) not in _INVISIBLE)
    if len(title) > URL_TITLE_MAX_LENGTH:
        title = title[: URL_TITLE_MAX_LENGTH - 1] + "…"
    return title


def as_fetched(url: str) -> str:
    """
    ``url`` as :mod:`sources.fetching` asks for it: scheme and host in lower case (the host
    IDNA-encoded), no fragment, path and query percent-encoded. A final URL other than
    this was reached by redirects.
    """
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").encode("idna").decode("ascii")
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc = f"{netloc}:{parts.port}"
    path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
    query = quote(parts.query, safe="/?%:@!$&'()*+,;=-._~")
    return urlunsplit((parts.scheme.lower(), netloc, path, query, ""))


def was_redirected(version: SourceVersion) -> bool:
    """Whether a captured ``version``'s page was reached by redirects from the address asked."""
    try:
        return as_fetched(version.requested_url) != version.final_url
    except ValueError:  # a port or host name that only the fetch's own parsing refused
        return version.requested_url != version.final_url


def declared_charset(headers: list[tuple[str, str]] | list[list[str]]) -> str | None:
    """
    The charset the response's Content-Type declared, if it is one Python knows by a
    plain name; None otherwise (the bytes are then read as the browser sees fit).
    """
    for name, value in headers:
        if name.lower() == "content-type":
            _media_type, params = parse_header_parameters(value)
            charset = params.get("charset", "").strip()
            if not _CHARSET_NAME.fullmatch(charset):
                return None
            try:
                codecs.lookup(charset)
            except LookupError:
                return None
            return charset
    return None


def fetch_for_source(url: str) -> tuple[FetchResult, str]:
    """
    Fetch ``url`` through the guard, with the limits the settings set, and check what
    came back as an upload is checked. Returns the result and the media type read from
    its bytes; a ValidationError saying why when nothing can be stored.
    """
    if len(url) > URL_MAX_LENGTH:
        raise ValidationError(
            _("The address is %(length)s characters long; at most %(limit)s are kept.")
            % {"length": len(url), "limit": URL_MAX_LENGTH},
            code="too_long",
        )
    try:
        result = fetch(
            url,
            max_bytes=settings.SOURCE_UPLOAD_MAX_BYTES,
            timeout=settings.URL_FETCH_TIMEOUT_SECONDS,
            max_redirects=settings.URL_FETCH_MAX_REDIRECTS,
            allowed_addresses=settings.URL_FETCH_ALLOWED_ADDRESSES,
        )
    except FetchError as error:
        raise fetch_refusal(error) from error
    if not 200 <= result.status < 300:
        raise ValidationError(
            _(
                "The server answered with HTTP status %(status)s instead of the page, "
                "so nothing was stored."
            )
            % {"status": result.status},
            code="http_status",
        )
    if len(result.final_url) > URL_MAX_LENGTH:
        raise ValidationError(
            _("The page's address is %(length)s characters long; at most %(limit)s are kept.")
            % {"length": len(result.final_url), "limit": URL_MAX_LENGTH},
            code="too_long",
        )
    try:
        media_type = check_upload(result.body, filename_from_url(result.final_url))
    except ValidationError as refused:
        raise ValidationError(
            _("The page was fetched but cannot be kept as a source: %(reason)s")
            % {"reason": " ".join(refused.messages)},
            code=refused.code,
        ) from refused
    return result, media_type


def warc_record(result: FetchResult, *, requested_url: str) -> bytes:
    """
    The exchange of ``result`` as a gzipped WARC/1.1 file: a ``warcinfo`` record (the
    software, and the address asked for with the redirects that led from it), then the
    ``request`` sent and the ``response`` received, both for the final URL and dated
    when the response came.
    """
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True, warc_version="1.1")
    fetched = datetime_to_iso_date(
        result.fetched_at.astimezone(UTC).replace(tzinfo=None), use_micros=True
    )
    info = {
        "software": USER_AGENT,
        "format": "WARC File Format 1.1",
        "conformsTo": "https://iipc.github.io/warc-specifications/specifications/"
        "warc-format/warc-1.1/",
        "http-header-user-agent": USER_AGENT,
        "requested-url": requested_url,
        "redirects": " ".join(result.redirects),
    }
    warcinfo = writer.create_warcinfo_record("capture.warc.gz", info)
    warcinfo.rec_headers.replace_header("WARC-Date", fetched)
    writer.write_record(warcinfo)

    target = urlsplit(result.final_url)
    path = target.path or "/"
    request_headers = StatusAndHeaders(
        f"GET {path}?{target.query} HTTP/1.1" if target.query else f"GET {path} HTTP/1.1",
        # What sources.fetching sends, in its order.
        [
            ("Host", target.netloc),
            ("User-Agent", USER_AGENT),
            ("Accept", "*/*"),
            ("Accept-Encoding", "identity"),
            ("Connection", "close"),
        ],
        is_http_request=True,
    )
    try:
        phrase = HTTPStatus(result.status).phrase
    except ValueError:
        phrase = ""
    response_headers = StatusAndHeaders(
        f"{result.status} {phrase}".strip(),
        # http.client took the chunks apart: the payload below is the body without its
        # chunk framing, so a reader told it is chunked would try to take it apart again.
        [(name, value) for name, value in result.headers if name.lower() != "transfer-encoding"],
        protocol="HTTP/1.1",
    )
    response = writer.create_warc_record(
        result.final_url,
        "response",
        payload=io.BytesIO(result.body),
        length=len(result.body),
        http_headers=response_headers,
        warc_headers_dict={"WARC-Date": fetched},
    )
    request = writer.create_warc_record(result.final_url, "request", http_headers=request_headers)
    writer.write_request_response_pair(request, response)
    return buffer.getvalue()


def _store_capture(
    *,
    source: Source,
    url: str,
    result: FetchResult,
    media_type: str,
    actor: User | None,
) -> tuple[SourceVersion, bool]:
    """Store a fetched page as ``source``'s next version, unless its latest has these bytes."""
    # Locked before looking: two fetches of the same bytes must not both find them new.
    _lock_source(source)
    fetch_record = {
        "requested_url": url,
        "final_url": result.final_url,
        "http_status": result.status,
        "fetched_at": result.fetched_at.isoformat(),
    }
    latest = _latest_with_same_bytes(source, result.body)
    if latest is not None:
        record(
            actor=actor,
            action="sourceversion.capture_unchanged",
            target=latest,
            changes=fetch_record | {"sha256": latest.sha256},
        )
        return latest, False
    version = _store_version(
        source=source,
        content=result.body,
        media_type=media_type,
        filename="",
        actor=actor,
        requested_url=url,
        final_url=result.final_url,
        fetched_at=result.fetched_at,
        http_status=result.status,
        response_headers=[[name, value] for name, value in result.headers],
        warc=ContentFile(warc_record(result, requested_url=url), name="capture.warc.gz"),
    )
    record(
        actor=actor,
        action="sourceversion.capture",
        target=version,
        changes=fetch_record | {"redirects": result.redirects},
    )
    # Enqueued in the same transaction: with the database backend the worker
    # cannot see the task before the version it names is committed.
    from sources.tasks import extract_source_version

    extract_source_version.enqueue(version.pk)
    return version, True


def version_capture(*, source: Source, url: str, actor: User | None) -> tuple[SourceVersion, bool]:
    """
    Fetch ``url`` and store the page as the next version of ``source``, with its fetch
    record and WARC, and queue its text extraction. Returns ``(version, created)``: a page
    whose bytes are those of the latest version gives back that version, and the audit
    trail says it was fetched and found unchanged. ValidationError when the address is
    refused, the fetch fails, the server answers other than 2xx, or the content is not
    one a source may have; nothing is stored then.
    """
    _require(
        actor,
        "sources.add_sourceversion",
        _("Only an editor can add a version to a source."),
    )
    result, media_type = fetch_for_source(url)
    with transaction.atomic():
        return _store_capture(
            source=source, url=url, result=result, media_type=media_type, actor=actor
        )


def source_capture(*, actor: User | None, url: str, title: str = "", **fields: Any) -> Source:
    """
    Register a source whose first version is the page at ``url``, fetched now: its
    ``url`` is that address, ``accessed_on`` the day it was fetched, its title ``title``
    or, without one, its host and path (:func:`title_from_url`). The metadata is checked
    before anything is fetched; a refused fetch leaves no source behind.
    """
    _require(actor, "sources.add_source", _("Only an editor can register a source."))
    title = title.strip() or title_from_url(url)
    Source(title=title, url=url, accessed_on=timezone.localdate(), **fields).full_clean()
    result, media_type = fetch_for_source(url)
    with transaction.atomic():
        source = source_create(
            actor=actor,
            title=title,
            url=url,
            accessed_on=timezone.localdate(result.fetched_at),
            **fields,
        )
        _store_capture(source=source, url=url, result=result, media_type=media_type, actor=actor)
    return source


def latest_capture(source: Source) -> SourceVersion | None:
    """``source``'s latest version fetched from the web, or None."""
    return source.versions.exclude(final_url="").without_text().order_by("-number").first()


def source_fetch_again(*, source: Source, actor: User | None) -> tuple[SourceVersion, bool]:
    """
    Fetch the address ``source``'s latest captured version was asked for again:
    :func:`version_capture`, so a new version only when the bytes changed. Its
    quotations are carried over once its text is read, which shows what was edited.
    """
    _require(
        actor,
        "sources.add_sourceversion",
        _("Only an editor can add a version to a source."),
    )
    captured = latest_capture(source)
    if captured is None:
        raise ValidationError(
            _("This source was not fetched from a web address, so there is nothing to fetch."),
            code="not_captured",
        )
    return version_capture(source=source, url=captured.requested_url, actor=actor)
