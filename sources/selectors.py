"""Reads for the sources app."""

import hashlib

from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce

from sources import anchoring
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


def source_reader(source, *, at=0):
    """
    Everything the source page shows: the versions, the part of the current
    version's text that holds the offset ``at``, split into marked segments, its
    quotations, and what became of the previous version's quotations when this
    one arrived.
    """
    versions = list(
        SourceVersion.objects.filter(source=source)
        .without_text()
        .select_related("uploaded_by")
        .order_by("-number")
    )
    readable = [version for version in versions if version.extraction_status not in UNREADABLE]
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
        "carried_from": carried_from,
        # Uploads after the current version whose text could not be read.
        "unreadable_newer": [v for v in versions if current and v.number > current.number],
        "extracting": any(not version.is_settled for version in versions),
    }


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
