"""
``{% stored "partial" name=value ... %}``: a partial of the same template,
rendered with those names only and stored under a digest of their values
(factcheck/fragments.py), as list rows are.

For the parts of a page that show only data (a header, a filter's choices):
after a write elsewhere they are the same as before, and a stored copy costs
less than rendering them. The partial sees nothing else: not ``user``,
``perms`` or ``request``; pass what it shows, such as
``can_add=perms.claims.add_claim``. It may hold a form's ``{% csrf_token %}``:
the token differs on every response, so the partial is stored with a
stand-in, which the page's own token replaces.

Names after the word ``constant`` are given to the partial but not keyed:
only for what is the same on every request, such as a blank form
(``{% stored "reader" part=part constant form=blank_form %}``), which the
digest cannot describe. The template must make sure of that (show the partial
with ``{% partial %}`` otherwise); as a last guard, a partial given a bound
form or one with initial values is rendered, never stored.
"""

import functools

from django import template
from django.forms import BaseForm
from django.template.loader import get_template
from django.utils.crypto import salted_hmac
from django.utils.html import escape
from django.utils.safestring import mark_safe

from factcheck.fragments import render_fragments

register = template.Library()


@functools.cache
def csrf_stand_in():
    """
    Where a stored partial's CSRF token goes: nothing anyone can type into what
    a partial shows (derived from SECRET_KEY, the same in every process), and
    nothing escaping changes.
    """
    return f"csrf-{salted_hmac('stored-partial-csrf', 'stand-in', algorithm='sha256').hexdigest()}"


class StoredPartialNode(template.Node):
    def __init__(self, partial, names, constants):
        self.partial = partial
        self.names = names
        self.constants = constants

    def render(self, context):
        partial = f"{self.origin.template_name}#{self.partial}"
        values = {name: value.resolve(context) for name, value in self.names.items()}
        constants = {name: value.resolve(context) for name, value in self.constants.items()}
        if any(_holds_input(value) for value in constants.values()):
            # Not the same for every request after all: never stored (see the module).
            token = {"csrf_token": context.get("csrf_token")}
            return get_template(partial).render(values | constants | token)
        stand_in = values["csrf_token"] = csrf_stand_in()
        html = render_fragments(partial, [values], constants=constants)[0]
        if stand_in in html:
            token = context.get("csrf_token")
            # As {% csrf_token %} writes nothing without a token.
            token = "" if token in (None, "NOTPROVIDED") else str(token)
            html = mark_safe(html.replace(stand_in, escape(token)))  # noqa: S308
        return html


def _holds_input(value):
    """Whether ``value`` is a form holding what someone typed or picked (or its errors)."""
    return isinstance(value, BaseForm) and (value.is_bound or bool(value.initial))


@register.tag
def stored(parser, token):
    partial, *assignments = token.split_contents()[1:] or [None]
    if partial is None or partial[0] not in "\"'" or partial[-1] != partial[0]:
        raise template.TemplateSyntaxError(
            '{% stored %} takes the name of a partial in quotes: {% stored "header" case=case %}'
        )
    constant_assignments = []
    if "constant" in assignments:
        at = assignments.index("constant")
        assignments, constant_assignments = assignments[:at], assignments[at + 1 :]
    names = template.base.token_kwargs(assignments, parser, support_legacy=False)
    constants = template.base.token_kwargs(constant_assignments, parser, support_legacy=False)
    if assignments or constant_assignments:  # token_kwargs takes the pairs it reads
        raise template.TemplateSyntaxError("{% stored %} takes name=value pairs after the partial.")
    return StoredPartialNode(partial[1:-1], names, constants)
