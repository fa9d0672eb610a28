"""Reads for the sources app."""

import hashlib

from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce

from factcheck.languages import LANGUAGE_CHOICES
from sources import anchoring
from sources.capture import was_redirected
from sources.diffs import version_diff, word_diff
from sources.highlighting import cached_marked_part
from sources.models import (
    UNREADABLE,
    AnchoringStatus,
    Quotation,
    Reanchoring,
    Source,
    SourceVersion,
)

# Characters of context shown either side of a found passage.
PASSAGE_CONTEXT_CHARS = 60


def source_list():
    """Every source, in title order, with what its row in the list shows and its version count."""
    # Counted per listed source (a subquery each, run for the page's rows only),
    # not by grouping every version of the desk before the page is cut; the
    # (title, id) index gives the page's rows without sorting every source.
    versions = (
        SourceVersion.objects.filter(source=OuterRef("pk"))
        .order_by()
        .values("source")
        .annotate(n=Count("*"))
        .values("n")
    )
    return (
        Source.objects.only("title", "publisher", "role", "published_on")
        .annotate(version_count=Coalesce(Subquery(versions), 0))
        .order_by("title", "id")
    )


def source_by_pk(pk):
    """The source ``pk``, or Source.DoesNotExist."""
    return Source.objects.get(pk=pk)


def source_reader(source, *, at=0, user=None):
    """
    Everything the source page shows: the versions, the part of the current
    version's text that holds the offset ``at``, split into marked segments, its
    quotations, and what became of the previous version's quotations when this
    one arrived: for a changed one, its words compared (``reanchoring.diff``);
    with ``user``, the claims in their reach that relied on a changed or lost
    one (``affected_claims``, and ``reanchoring.claims``); and the latest
    version fetched from the web, if any (``latest_capture``, fetched again).
    """
    versions = list(
        SourceVersion.objects.filter(source=source)
        .without_text()
        .select_related("uploaded_by")
        .order_by("-number")
    )
    readable = [version for version in versions if version.extraction_status not in UNREADABLE]
    # Each ready version is compared with the ready version before it (the versions table's link).
    earlier_ready = None
    for version in reversed(versions):
        version.compare_with = earlier_ready if version.is_ready else None
        if version.is_ready:
            earlier_ready = version
    # As SourceVersionQuerySet.current_first() orders them, from the list already read.
    current = (readable or versions or [None])[0]
    quotations, part, reanchorings = [], None, []
    # What the list of quotations shows, cheaply: quotations never change, so
    # their ids and their authors' names are enough to tell when the cached
    # list (`{% cache %}` in the template) is out of date.
    listed = []
    if current is not None:
        quotations = current.quotations.select_related("created_by").order_by("start", "end")
        listed = list(
            Quotation.objects.filter(version=current)
            .order_by("start", "end")
            .values_list("start", "end", "pk", "created_by__username")
        )
        if current.is_ready:
            part = cached_marked_part(
                current,
                [(start, end, "") for start, end, *_rest in listed],
                mark_class="quote-mark",
                at=at,
            )
        reanchorings = list(
            Reanchoring.objects.filter(version=current).select_related(
                "quotation", "new_quotation", "confirmed_by"
            )
        )
    for version in versions:
        version.redirected = version.captured and was_redirected(version)
    # Fetching again asks again for the address of the latest version fetched from the web.
    latest_capture = next((version for version in versions if version.captured), None)
    # Where the carried-over quotations came from: the version read before this one.
    carried_from = next(
        (v for v in versions if current and v.number < current.number and v.is_ready), None
    )
    summary = {status: 0 for status in AnchoringStatus.values}
    found_again = 0
    for reanchoring in reanchorings:
        # Text an older version had lost, back in this one: told apart from what was carried.
        reanchoring.found_again = reanchoring.quotation.version_id != getattr(
            carried_from, "pk", None
        )
        if reanchoring.found_again:
            found_again += 1
        else:
            summary[reanchoring.status] += 1
    if found_again:
        summary["found again"] = found_again
    for reanchoring in reanchorings:
        if reanchoring.status == AnchoringStatus.CHANGED:
            old, new = reanchoring.quotation.exact, reanchoring.new_quotation.exact
            reanchoring.diff = word_diff(old, new)
    affected = claims_affected(reanchorings, user) if user is not None else []
    return {
        "source": source,
        "versions": versions,
        "current": current,
        # Evaluated only when the template's cached list is missing.
        "quotations": quotations,
        "quotation_count": len(listed),
        "quotation_list_key": hashlib.sha256(repr(listed).encode()).hexdigest(),
        "part": part,
        "marked_text": part.html if part else "",
        "reanchorings": reanchorings,
        "reanchoring_summary": summary,
        "affected_claims": affected,
        "carried_from": carried_from,
        # Uploads after the current version whose text could not be read.
        "unreadable_newer": [v for v in versions if current and v.number > current.number],
        "extracting": any(not version.is_settled for version in versions),
        "latest_capture": latest_capture,
        # The current version's language form offers these (version_language_view).
        "language_choices": LANGUAGE_CHOICES,
    }


def captured_version(source_pk, number):
    """
    Version ``number`` of source ``source_pk`` (without its text, with its source) if it
    was fetched from the web, with ``redirected`` (reached by redirects);
    SourceVersion.DoesNotExist otherwise.
    """
    version = (
        SourceVersion.objects.without_text()
        .select_related("source")
        .exclude(final_url="")
        .get(source_id=source_pk, number=number)
    )
    version.redirected = was_redirected(version)
    return version


def passage_occurrences(version, passage, *, limit=50):
    """
    Where `passage` occurs word for word in a ready version's text (the white
    space between words may be any, capitals aside, from the start of a word:
    ``anchoring.find_words``): offsets, the text's own words there, a little
    context either side, and the page for PDFs. The keyboard's way to pick a
    passage, where a mouse would select it.
    """
    text = version.extracted_text
    return [
        {
            "start": start,
            "end": end,
            "before": text[max(0, start - PASSAGE_CONTEXT_CHARS) : start],
            "exact": text[start:end],
            "after": text[end : end + PASSAGE_CONTEXT_CHARS],
            "page": version.page_at(start),
        }
        for start, end in anchoring.find_words(
            text, passage, limit, ignore_case=True, from_word_start=True
        )
    ]


def earlier_version_with_same_bytes(version):
    """The latest version before ``version`` with the same bytes: the one it went back to."""
    return (
        version.source.versions.filter(sha256=version.sha256, number__lt=version.number)
        .order_by("-number")
        .first()
    )


def claims_affected(reanchorings, user):
    """
    The claims within ``user``'s reach that relied (by their own passage or by
    evidence) on a quotation that ``reanchorings`` found changed or gone: the
    claims flagged for it, whether or not the flag was cleared since. Each of
    ``reanchorings`` gets its own as ``reanchoring.claims``. One query.

    ``sources`` otherwise knows nothing of claims: the flags are the claims'
    record of what re-anchoring found, read here only for the source page.
    """
    from claims.models import ClaimFlag, FlagKind
    from factcheck.roles import claims_visible_to, sees_every_case

    for reanchoring in reanchorings:
        reanchoring.claims = []
    lost = {
        (reanchoring.quotation_id, reanchoring.version_id): reanchoring
        for reanchoring in reanchorings
        if reanchoring.status in {AnchoringStatus.CHANGED, AnchoringStatus.ORPHANED}
    }
    if not lost:
        return []
    versions = {version_id for _quotation_id, version_id in lost}
    flags = ClaimFlag.objects.filter(
        kind__in=[FlagKind.QUOTATION_CHANGED, FlagKind.QUOTATION_GONE],
        version_id__in=versions,
        quotation_id__in=[quotation_id for quotation_id, _version_id in lost],
    )
    if not sees_every_case(user):
        flags = flags.filter(claim__in=claims_visible_to(user))
    claims = {}
    for flag in (
        flags.select_related("claim__case")
        .only(
            "quotation_id",
            "version_id",
            "claim__number",
            "claim__statement",
            "claim__status",
            "claim__case__slug",
            "claim__case__title",
        )
        .order_by("claim__case__title", "claim__number", "pk")
    ):
        claim = claims.setdefault(flag.claim_id, flag.claim)
        reanchoring = lost.get((flag.quotation_id, flag.version_id))
        if reanchoring is not None and claim not in reanchoring.claims:
            reanchoring.claims.append(claim)
    return list(claims.values())


def version_pair(source, old_number, new_number):
    """
    Versions ``old_number`` and ``new_number`` of ``source`` (without their
    texts), or SourceVersion.DoesNotExist when either is not one of its
    versions or they are the same.
    """
    if old_number == new_number:
        raise SourceVersion.DoesNotExist
    found = {
        version.number: version
        for version in SourceVersion.objects.filter(
            source=source, number__in=[old_number, new_number]
        ).without_text()
    }
    if len(found) != 2:
        raise SourceVersion.DoesNotExist
    return found[old_number], found[new_number]


def version_comparison(old, new, *, page=1):
    """
    Ready versions ``old`` and ``new`` of one source compared
    (``sources.diffs.version_diff``, a page of changes at a time), each change
    with the quotations it touched: ``change.quotations``, a list of
    ``{"quotation", "side", "reanchoring"}`` (side "old" for a quotation of
    ``old`` whose words the change overlaps, with what re-anchoring made of it
    in ``new`` if it ran between them; "new" for a quotation made in ``new``
    since). Four queries: the two texts, the quotations, the re-anchorings.
    """
    texts = dict(
        SourceVersion.objects.filter(pk__in=[old.pk, new.pk]).values_list("pk", "extracted_text")
    )
    diff = version_diff(texts[old.pk], texts[new.pk], page=page)
    changes = [row for row in diff.rows if row.kind == "change"]
    if not changes:
        return diff
    quotations = list(
        Quotation.objects.filter(version__in=[old, new])
        .only("version_id", "start", "end", "exact", "page", "end_page")
        .order_by("start", "end")
    )
    reanchorings = {
        reanchoring.quotation_id: reanchoring
        for reanchoring in Reanchoring.objects.filter(version=new, quotation__version=old).only(
            "quotation_id", "version_id", "status", "new_quotation_id", "confirmed_at"
        )
    }
    carried = {r.new_quotation_id for r in reanchorings.values() if r.new_quotation_id}
    for change in changes:
        for quotation in quotations:
            if quotation.version_id == old.pk:
                side, start, end = "old", change.old_start, change.old_end
            elif quotation.pk in carried:
                continue  # listed with the quotation it was carried from
            else:
                side, start, end = "new", change.new_start, change.new_end
            if _overlaps(quotation, start, end):
                change.quotations.append(
                    {
                        "quotation": quotation,
                        "side": side,
                        "reanchoring": reanchorings.get(quotation.pk),
                    }
                )
    return diff


def _overlaps(quotation, start, end):
    """Whether ``quotation`` overlaps ``start``–``end`` (a point when equal: holds it inside)."""
    if start == end:
        return quotation.start < start < quotation.end
    return quotation.start < end and quotation.end > start
