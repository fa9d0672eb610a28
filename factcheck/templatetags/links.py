"""
Links to addresses people typed (a source's URL, the page a reader reported):
only a web address or a path on this site becomes a link, never javascript:,
data: or anything else a browser would run or render in the page's place.
"""

import re
from urllib.parse import urlsplit

from django import template

register = template.Library()

WEB_SCHEMES = {"http", "https"}
# What a browser's URL parser drops before it reads the scheme (the WHATWG URL
# standard): so "java\tscript:" and " javascript:" are both javascript:.
_EDGE = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")


def web_url(url):
    """
    ``url`` as a browser reads it, if that is an http(s) address with a host or
    a path on this site; otherwise "" (show it as text, not as a link).
    """
    cleaned = _TAB_OR_NEWLINE.sub("", (url or "").strip(_EDGE))
    if cleaned.startswith("/"):
        # "//host" and "/\host" are other sites' addresses; they must say so with a scheme.
        return cleaned if not cleaned.startswith(("//", "/\\")) else ""
    try:
        parts = urlsplit(cleaned)
    except ValueError:
        return ""
    return cleaned if parts.scheme.lower() in WEB_SCHEMES and parts.netloc else ""


register.filter("web_url", web_url)
