import functools

import markdown as markdown_lib
import nh3
from django import template
from django.utils.safestring import mark_safe

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
    html = markdown_lib.markdown(text, extensions=["sane_lists"], output_format="html")
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
