"""``{{ count|thousands }}``: a count with its thousands grouped, as in 25,000 (in English)."""

from django import template
from django.utils.formats import number_format

register = template.Library()


@register.filter
def thousands(value):
    """
    ``value`` as a whole number with its thousands grouped in the active
    language's way (USE_THOUSAND_SEPARATOR is off, so Django groups no number
    unasked); anything else as it is. For text only, never an attribute's value.
    """
    try:
        return number_format(int(value), force_grouping=True)
    except (TypeError, ValueError):
        return value
