"""``{% word_diff old new as diff %}``: two wordings compared (sources.diffs.word_diff)."""

from django import template

from sources.diffs import word_diff as compare

register = template.Library()


@register.simple_tag
def word_diff(old, new):
    """
    ``old`` and ``new`` compared word by word, for a page that shows a changed
    quotation from rows it already read (a claim's flag): render it with
    ``sources/word_diff.html``.
    """
    return compare(old or "", new or "")
