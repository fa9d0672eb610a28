"""``{{ segment|white_space_shown }}``: a diff's added or removed white space, made visible."""

from django import template
from django.utils.html import format_html
from django.utils.translation import ngettext

register = template.Library()

#: What each white-space character is shown as: drawn, it would be nothing to see.
_MARKS = {" ": "␣", "\n": "↵", "\t": "⇥"}


@register.filter
def white_space_shown(segment):
    """
    ``segment`` of a diff as it is, unless it is white space only: then a mark
    for each character (a space ␣, a line break ↵), which the count of differing
    characters beside the diff counts too, with words for screen readers.
    """
    if not segment or not segment.isspace():
        return segment
    marks = "".join(_MARKS.get(character, "·") for character in segment)
    count = len(segment)
    said = ngettext("a white-space character", "%(count)s white-space characters", count) % {
        "count": count
    }
    return format_html(
        '<span class="diff__space" aria-hidden="true">{}</span>'
        '<span class="visually-hidden">{}</span>',
        marks,
        said,
    )
