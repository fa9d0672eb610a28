"""Pagination of the app's lists."""

from django.core import paginator


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
