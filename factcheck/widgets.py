"""Form widgets shared by the apps."""

from django import forms
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe


class LongSelect(forms.Select):
    """
    A ``<select>`` for long lists (every reviewer of a desk, every source),
    written out in Python. Django renders each ``<option>`` through its own
    template, some 0.1 ms apiece: 180 reviewers made a claim page 20 ms slower.
    The markup is the same as ``forms.Select``'s, optgroups included.
    """

    def render(self, name, value, attrs=None, renderer=None):
        widget = self.get_context(name, value, attrs)["widget"]
        groups = []
        for group_name, options, _index in widget["optgroups"]:
            rendered = format_html_join(
                "",
                '<option value="{}"{}>{}</option>',
                (
                    (option["value"], flatatt(option["attrs"]), option["label"])
                    for option in options
                ),
            )
            if group_name:
                rendered = format_html('<optgroup label="{}">{}</optgroup>', group_name, rendered)
            groups.append(rendered)
        return format_html(
            '<select name="{}"{}>{}</select>',
            widget["name"],
            flatatt(widget["attrs"]),
            mark_safe("".join(groups)),  # noqa: S308 - each piece built by format_html
        )
