"""Quotations drawn on their page: the evidence where it stands (issue 39, in progress)."""

from django.http import Http404


def quotation_page_view(request, pk, quotation_pk):
    raise Http404


def quotation_page_image_view(request, pk, quotation_pk, page):
    raise Http404
