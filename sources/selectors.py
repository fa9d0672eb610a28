"""Reads for the sources app."""

from django.db.models import Count, Max

from sources import anchoring
from sources.highlighting import mark_spans
from sources.models import AnchoringStatus, Source

# Characters of context shown either side of a found passage.
PASSAGE_CONTEXT_CHARS = 60


def source_list():
    """Every source with how many versions it has and when it last changed."""
    return Source.objects.annotate(
        version_count=Count("versions"), last_upload=Max("versions__uploaded_at")
    ).order_by("title", "id")


def source_reader(source):
    """
    Everything the source page shows: the versions, the current version's text
    split into marked segments, its quotations, and what became of the previous
    version's quotations when this one arrived.
    """
    versions = list(source.versions.select_related("uploaded_by").order_by("-number"))
    current = versions[0] if versions else None
    quotations, paragraphs, reanchorings = [], [], []
    if current is not None:
        quotations = list(current.quotations.select_related("created_by").order_by("start", "end"))
        if current.is_ready:
            paragraphs = mark_spans(
                current.extracted_text,
                [(q.start, q.end, q) for q in quotations],
                page_offsets=current.page_offsets,
            )
        reanchorings = list(
            current.reanchorings.select_related("quotation", "new_quotation", "confirmed_by")
        )
    summary = {status: 0 for status in AnchoringStatus.values}
    for reanchoring in reanchorings:
        summary[reanchoring.status] += 1
    return {
        "source": source,
        "versions": versions,
        "current": current,
        "quotations": quotations,
        "paragraphs": paragraphs,
        "reanchorings": reanchorings,
        "reanchoring_summary": summary,
        "extracting": any(not version.is_settled for version in versions),
    }


def passage_occurrences(version, passage, *, limit=50):
    """
    Where `passage` occurs word for word in a ready version's text: offsets,
    a little context either side, and the page for PDFs. The keyboard's way to
    pick a passage, where a mouse would select it.
    """
    text = version.extracted_text
    end_of = len(passage)
    return [
        {
            "start": start,
            "end": start + end_of,
            "before": text[max(0, start - PASSAGE_CONTEXT_CHARS) : start],
            "exact": passage,
            "after": text[start + end_of : start + end_of + PASSAGE_CONTEXT_CHARS],
            "page": version.page_at(start),
        }
        for start in anchoring.find_occurrences(text, passage)[:limit]
    ]
