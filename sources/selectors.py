"""Reads for the sources app."""

from django.db.models import Count, Max

from sources.models import Source


def source_list():
    """Every source with how many versions it has and when it last changed."""
    return Source.objects.annotate(
        version_count=Count("versions"), last_upload=Max("versions__uploaded_at")
    ).order_by("title", "id")
