"""Form fields, widgets and the form renderer shared by the apps: long choice lists, fast inputs."""

import functools

from django import forms
from django.forms.renderers import DjangoTemplates
from django.forms.utils import flatatt
from django.utils.html import conditional_escape, escape, format_html
from django.utils.safestring import mark_safe


class LongModelChoiceIterator(forms.models.ModelChoiceIterator):
    """
    The choices of a ``ModelChoiceField`` read with the queryset's one query.
    Django's iterator reads them through ``QuerySet.iterator()``, which on
    PostgreSQL opens a server-side cursor: three more round trips to the
    database for a list that a page shows whole anyway.
    """

    def __iter__(self):
        if self.field.empty_label is not None:
            yield ("", self.field.empty_label)
        for instance in self.field.rows():
            yield self.choice(instance)

    def __len__(self):
        return len(self.field.rows()) + (self.field.empty_label is not None)


class LongSelect(forms.Select):
    """
    A ``<select>`` for long lists (every reviewer of a desk, every source),
    written out in Python straight from the choices. Django builds a dict and
    renders a template for each ``<option>``, some 0.1 ms apiece: 180
    reviewers made a claim page 20 ms slower. The markup is the same as
    ``forms.Select``'s, optgroups included; like it, at most one option is
    selected.
    """

    def render(self, name, value, attrs=None, renderer=None):
        wanted = {str(item) for item in self.format_value(value)}
        parts = []
        for group_value, group_label in self.choices:
            if isinstance(group_label, (list, tuple)):
                parts.append(format_html('<optgroup label="{}">', group_value))
                for option_value, option_label in group_label:
                    parts.append(_option(option_value, option_label, wanted))
                parts.append("</optgroup>")
            else:
                parts.append(_option(group_value, group_label, wanted))
        return format_html(
            '<select name="{}"{}>{}</select>',
            name,
            flatatt(self.build_attrs(self.attrs, attrs)),
            mark_safe("".join(parts)),  # noqa: S308 - each piece escaped as it is built
        )


def _option(value, label, wanted):
    value = "" if value is None else str(value)
    selected = value in wanted
    if selected:
        wanted.clear()  # the first match only, as forms.Select does
    # The escaping format_html() does, at half its cost, which counts two hundred
    # times a page.
    marked = " selected" if selected else ""
    return f'<option value="{escape(value)}"{marked}>{conditional_escape(label)}</option>'


def options_html(choices, selected):
    """
    The ``<option>`` elements of ``choices`` (``(value, label)`` pairs) with
    the first whose value is ``selected`` (compared as text) marked selected,
    for a ``<select>`` written in a template: built in Python, as
    ``LongSelect`` builds its options. The case page's 143 reviewers take
    0.4 ms so, against 1.1 ms in a template loop, and the last 256 lists are
    kept, so the same one costs only the lookup.
    """
    selected = "" if selected is None else str(selected)
    try:
        return _remembered_options(tuple(choices), selected)
    except TypeError:  # a choice that cannot be a key (unhashable): built each time
        return _built_options(choices, selected)


def _built_options(choices, selected):
    wanted = {selected}
    return mark_safe(  # noqa: S308 - each option escaped by _option
        "".join(_option(value, label, wanted) for value, label in choices)
    )


#: The same list shown again (a case's reviewers on each visit) is not built again.
_remembered_options = functools.lru_cache(maxsize=256)(_built_options)


class LongModelChoiceField(forms.ModelChoiceField):
    """A choice of one row of a table: read in one query, written out by ``LongSelect``."""

    iterator = LongModelChoiceIterator
    widget = LongSelect

    def rows(self):
        """
        The queryset's rows, read once while it stays the same: a form (which
        has its own copy of the field) that asks whether there is any choice
        and then lists them reads them once.
        """
        remembered = getattr(self, "_rows", None)
        if remembered is None or remembered[0] is not self.queryset:
            remembered = self._rows = (self.queryset, list(self.queryset.all()))
        return remembered[1]


def _attributes(attrs):
    """``attrs`` written as django/forms/widgets/attrs.html writes them."""
    return "".join(
        ""
        if value is False
        else f" {conditional_escape(name)}"
        if value is True
        else f' {conditional_escape(name)}="{conditional_escape(str(value))}"'
        for name, value in attrs.items()
    )


def _input(widget):
    """django/forms/widgets/input.html, and every template that only includes it."""
    value = widget["value"]
    shown = "" if value is None else f' value="{conditional_escape(str(value))}"'
    kind, name = conditional_escape(widget["type"]), conditional_escape(widget["name"])
    return f'<input type="{kind}" name="{name}"{shown}{_attributes(widget["attrs"])}>'


def _textarea(widget):
    """django/forms/widgets/textarea.html."""
    value = widget["value"]
    return (
        f'<textarea name="{conditional_escape(widget["name"])}"{_attributes(widget["attrs"])}>\n'
        f"{conditional_escape(value) if value else ''}</textarea>"
    )


#: Django's widget templates that are written out in Python instead (the same markup).
_WRITTEN_IN_PYTHON = {
    **{
        f"django/forms/widgets/{name}.html": _input
        for name in (
            "input", "text", "email", "url", "number", "password", "search",
            "tel", "date", "hidden", "checkbox",
        )
    },
    "django/forms/widgets/textarea.html": _textarea,
}  # fmt: skip


class FormRenderer(DjangoTemplates):
    """
    Django's form renderer, with the plain inputs and the textarea written out in
    Python: rendered from templates, each widget cost some 0.25 ms (its attributes
    a template loop of their own), a millisecond on a page with a form or two.
    Other widgets are rendered from Django's templates as before.
    """

    def render(self, template_name, context, request=None):
        write = _WRITTEN_IN_PYTHON.get(template_name)
        if write is None or "widget" not in context:
            return super().render(template_name, context, request=request)
        return write(context["widget"])
