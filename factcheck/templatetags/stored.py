"""
``{% stored "partial" name=value ... %}``: a partial of the same template,
rendered with those names only and stored under a digest of their values
(factcheck/fragments.py), as list rows are.

For the parts of a page that show only data (a header, a filter's choices):
after a write elsewhere they are the same as before, and a stored copy costs
less than rendering them. The partial sees nothing else: not ``user``,
``perms``, ``request`` or ``csrf_token``; pass what it shows, such as
``can_add=perms.claims.add_claim``.
"""

from django import template

from factcheck.fragments import render_fragments

register = template.Library()


class StoredPartialNode(template.Node):
    def __init__(self, partial, names):
        self.partial = partial
        self.names = names

    def render(self, context):
        values = {name: value.resolve(context) for name, value in self.names.items()}
        return render_fragments(f"{self.origin.template_name}#{self.partial}", [values])[0]


@register.tag
def stored(parser, token):
    partial, *assignments = token.split_contents()[1:] or [None]
    if partial is None or partial[0] not in "\"'" or partial[-1] != partial[0]:
        raise template.TemplateSyntaxError(
            '{% stored %} takes the name of a partial in quotes: {% stored "header" case=case %}'
        )
    names = template.base.token_kwargs(assignments, parser, support_legacy=False)
    if assignments:  # token_kwargs takes the pairs it reads off the list
        raise template.TemplateSyntaxError("{% stored %} takes name=value pairs after the partial.")
    return StoredPartialNode(partial[1:-1], names)
