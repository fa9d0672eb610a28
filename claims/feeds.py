"""Atom and RSS feeds of the public corrections log (Django's syndication framework)."""

from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import linebreaks
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from claims.models import CorrectionKind
from claims.public import organisation, published_corrections
from factcheck.text import without_control_characters

FEED_ENTRIES = 50


class CorrectionsFeed(Feed):
    description = gettext_lazy(
        "Corrections, clarifications and updates to our published fact-checks."
    )

    # XML 1.0 has no control characters: an entry published with one (pasted from a
    # PDF before forms dropped them) must not take the whole feed down. The log and
    # its hash chain keep the text as it was published.

    def title(self):
        return without_control_characters(
            _("%(organisation)s: corrections") % {"organisation": organisation().name}
        )

    def author_name(self):
        # Atom requires an author for the feed (or for every entry): the desk's name.
        return without_control_characters(organisation().name)

    def link(self):
        return reverse("claims:corrections_log")

    def items(self):
        return published_corrections()[:FEED_ENTRIES]

    def item_title(self, item):
        return without_control_characters(
            _("%(kind)s: %(corrected)s")
            % {"kind": item.get_kind_display(), "corrected": item.claim or item.case}
        )

    def item_description(self, item):
        # What the log itself shows of an entry. Both formats carry the description
        # as HTML (Atom says type="html"), so a reader renders it: the editors'
        # words go in escaped, as text.
        parts = [
            _("What was wrong: %(text)s") % {"text": item.what_was_wrong},
            _("What is right now: %(text)s") % {"text": item.what_is_right},
        ]
        if item.reason:
            parts.append(_("Why: %(text)s") % {"text": item.reason})
        if item.new_verdict and item.old_verdict:
            parts.append(
                _("Verdict: was %(old)s, now %(new)s.")
                % {"old": item.old_verdict.label, "new": item.new_verdict.label}
            )
        elif item.new_verdict:
            parts.append(_("Verdict: was none, now %(new)s.") % {"new": item.new_verdict.label})
        elif item.kind == CorrectionKind.RETRACTION and item.old_verdict:
            parts.append(
                _("Verdict: %(old)s, withdrawn with the fact-check.")
                % {"old": item.old_verdict.label}
            )
        if item.supersedes:
            parts.append(
                _("Supersedes entry %(sequence)s.") % {"sequence": item.supersedes.sequence}
            )
        return linebreaks(without_control_characters("\n\n".join(parts)), autoescape=True)

    def item_link(self, item):
        return item.get_absolute_url()

    def item_pubdate(self, item):
        return item.published_at

    def item_updateddate(self, item):
        # Atom requires every entry's <updated>: a published entry is never changed.
        return item.published_at

    def item_guid(self, item):
        return f"urn:sha256:{item.sha256}"

    item_guid_is_permalink = False


class AtomCorrectionsFeed(CorrectionsFeed):
    feed_type = Atom1Feed
    subtitle = CorrectionsFeed.description
