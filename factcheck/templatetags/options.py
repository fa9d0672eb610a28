"""``{% options choices selected %}``: the options of a long ``<select>`` (see ``options_html``)."""

from django import template

from factcheck.widgets import options_html

register = template.Library()
register.simple_tag(options_html, name="options")
