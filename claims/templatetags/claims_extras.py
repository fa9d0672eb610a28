import functools
import re

import markdown as markdown_lib
import nh3
from django import template
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy, pgettext

register = template.Library()

#: What a rationale may use: text structure and links, nothing that runs or embeds.
ALLOWED_TAGS = {
    "p", "br", "strong", "em", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h3", "h4", "hr", "del", "sup", "sub",
}  # fmt: skip


@register.filter
def render_markdown(text):
    """Markdown rendered to HTML, then sanitised with nh3 so no markup the author typed runs."""
    return _rendered_markdown(text or "")


# The same rationale is shown again and again (its claim page, the review, the public
# page), and rendering it takes a millisecond or more: keep the most recent ones.
@functools.lru_cache(maxsize=2048)
def _rendered_markdown(text):
    html = markdown_lib.markdown(
        text, extensions=["sane_lists", "fenced_code"], output_format="html"
    )
    # Safe: nh3 has removed every tag and attribute outside the allow-list.
    return mark_safe(  # noqa: S308
        nh3.clean(
            html,
            tags=ALLOWED_TAGS,
            attributes={"a": {"href", "title"}},
            url_schemes={"http", "https", "mailto"},
            link_rel="noopener noreferrer nofollow",
        )
    )


#: What the claim page's history says an audit event's action was; others are spelt out.
ACTIONS_SAID = {
    "claim.create": gettext_lazy("made the claim"),
    "claim.update": gettext_lazy("edited the claim"),
    "claim.submit": gettext_lazy("sent it to review"),
    # Beside the reviewer's own "asked for changes": what became of the claim.
    "claim.request_changes": gettext_lazy("sent it back for changes"),
    "claim.approve": gettext_lazy("approved it (every reviewer had signed off)"),
    "claim.reopen": gettext_lazy("put it back in review"),
    "claim.publish": gettext_lazy("published it"),
    "claim.withdraw": gettext_lazy("withdrew it"),
    "claim.flag": gettext_lazy("flagged it for review"),
    "claim.flags_cleared": gettext_lazy("cleared its review flag"),
    "claim.retracted": gettext_lazy("retracted its fact-check"),
    "claim.verdict_corrected": gettext_lazy("corrected its verdict"),
    "comment.add": gettext_lazy("commented"),
    "evidence.add": gettext_lazy("added evidence"),
    "evidence.remove": gettext_lazy("removed evidence"),
    "assignment.create": gettext_lazy("assigned a reviewer"),
    "assignment.approved": gettext_lazy("approved the content"),
    "assignment.changes_requested": gettext_lazy("asked for changes"),
    "assignment.voided": gettext_lazy("voided a sign-off"),
}


@register.filter
def action_said(action):
    """An audit event's action (``"claim.update"``) as the history reads it."""
    return ACTIONS_SAID.get(action, action.replace(".", ": ").replace("_", " "))


#: A code value recorded in a change, such as a status.
CODE_WORD = re.compile(r"[a-z]+(?:_[a-z]+)+")


@register.filter
def field_said(name):
    """A recorded field's name as words: ``needs_attention`` reads "Needs attention"."""
    return name.replace("_", " ").capitalize()


@register.filter
def change_said(value):
    """A recorded change as text: ``[old, new]`` as "old → new", nothing as "none"."""

    def said(item):
        if item is None or item == "":
            # Translators: a recorded value that was empty, as in "none → Accurate".
            return pgettext("no value", "none")
        if isinstance(item, str) and CODE_WORD.fullmatch(item):
            return item.replace("_", " ")  # a status: "in_review" reads "in review"
        return str(item)

    if isinstance(value, list) and len(value) == 2:
        return f"{said(value[0])} → {said(value[1])}"
    if isinstance(value, list):
        return ", ".join(said(item) for item in value)
    return said(value)
