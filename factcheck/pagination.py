"""Pagination of the app's lists."""

from django.core import paginator
from django.utils.functional import cached_property


class Paginator(paginator.Paginator):
    """
    Django's Paginator, except that a page number below 1 (``?page=0``, an
    edited link) gives the first page: Django's ``get_page`` answers any number
    out of range with the last page, which for a number below the first lands
    the reader at the far end of a long list.
    """

    def get_page(self, number):
        try:
            if int(number) < 1:
                number = 1
        except (TypeError, ValueError):
            pass
        return super().get_page(number)


class CountedPaginator(Paginator):
    """
    A Paginator that takes its total from ``count()``: a count of the same rows
    without the annotations, joins and column choices that a page of them
    needs. Counting the annotated queryset builds and compiles all of those only
    to strip them again, which costs more than the count itself (about a
    millisecond on the case list).
    """

    def __init__(self, object_list, per_page, *, count, **kwargs):
        self._count = count
        super().__init__(object_list, per_page, **kwargs)

    @cached_property
    def count(self):
        return self._count()
