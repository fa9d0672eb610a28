"""``{{ count|thousands }}``: a count with its thousands grouped, as in 25,000."""

from django import template

register = template.Library()


@register.filter
def thousands(value):
    """``value`` as a whole number with commas between its thousands; anything else as it is."""
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return value
