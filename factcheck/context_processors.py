import functools

from django.urls import get_script_prefix, reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from factcheck.roles import SIGN_OFF_CLAIM, role_names
from factcheck.templatetags.numbers import thousands

#: ``(label, URL name, names of other pages of its section)``.
NAVIGATION = [
    (_("Cases"), "claims:case_list", ()),
    (_("Sources"), "sources:source_list", ()),
    (_("My reviews"), "claims:my_reviews", ()),
    # The desk's side of corrections is reached from the log, and belongs with it.
    (
        _("Corrections"),
        "claims:corrections_log",
        ("claims:corrections_desk", "claims:reports_inbox"),
    ),
    (_("Search"), "search", ()),
]


@functools.lru_cache(maxsize=16)
def _navigation_urls(script_prefix):
    """
    ``[(label, URL name, URL, URLs its section starts with)]`` under
    ``script_prefix``: reversed once, not on each page.
    """
    return [
        (label, url_name, url, (url, *(reverse(name) for name in section)))
        for label, url_name, section in NAVIGATION
        for url in [reverse(url_name)]
    ]


def open_reviews_of(request):
    """
    ``claims.selectors.open_review_count`` of the request's user, read once a
    request: the navigation shows it, and My reviews pages by it.
    """
    from claims.selectors import open_review_count

    if not hasattr(request, "_open_review_count"):
        request._open_review_count = open_review_count(request.user)
    return request._open_review_count


def open_reports_for(request):
    """
    How many readers' reports are open, for a user who handles them (None for
    anyone else), read once a request.
    """
    from claims.reports import open_report_count

    if not request.user.has_perm("claims.view_errorreport"):
        return None
    if not hasattr(request, "_open_report_count"):
        request._open_report_count = open_report_count()
    return request._open_report_count


def menu_counts(request):
    """
    ``{URL name: (count, what it counts)}``: what the menu counts as waiting for
    the request's user ("3 waiting"). Reviews only for a reviewer (who can decide
    them): an editor's pages skip the query. Reports only for those who handle them.
    """
    counts = {}
    if request.user.has_perm(SIGN_OFF_CLAIM):
        reviews = open_reviews_of(request)
        # Translators: how many reviews wait for the user, read out after "My reviews".
        waiting = ngettext("%(count)s waiting", "%(count)s waiting", reviews)
        counts["claims:my_reviews"] = (reviews, waiting % {"count": thousands(reviews)})
    if (reports := open_reports_for(request)) is not None:
        open_reports = ngettext(
            "%(count)s reader's report open", "%(count)s readers' reports open", reports
        )
        counts["claims:corrections_log"] = (reports, open_reports % {"count": thousands(reports)})
    return counts


def navigation(request):
    """
    The main navigation, with the current section marked, and the user's roles;
    an item's ``count`` is what waits there (``counted``: the count with what it
    counts, for screen readers).
    """
    counts = menu_counts(request)
    items = []
    for label, url_name, url, section in _navigation_urls(get_script_prefix()):
        item = {"label": label, "url": url, "current": request.path.startswith(section)}
        if url_name in counts:
            item["count"], item["counted"] = counts[url_name]
        items.append(item)
    return {"navigation": items, "user_roles": role_names(request.user)}
