from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render

from sources.highlighting import mark_spans
from sources.models import Source
from sources.selectors import source_list

SOURCES_PER_PAGE = 25


def source_list_view(request):
    page = Paginator(source_list(), SOURCES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "sources/source_list.html", {"page": page})


def source_detail_view(request, pk):
    source = get_object_or_404(Source, pk=pk)
    versions = list(source.versions.select_related("uploaded_by").order_by("-number"))
    current = versions[0] if versions else None
    paragraphs = []
    if current and current.is_ready:
        spans = current.quotations.values_list("start", "end", "pk")
        paragraphs = mark_spans(current.extracted_text, spans)
    return render(
        request,
        "sources/source_detail.html",
        {"source": source, "versions": versions, "current": current, "paragraphs": paragraphs},
    )
