"""
User content comes out inert everywhere it is shown.

Every payload below goes into every field a person types (source metadata, a
version's text and file name, quotations and their context, claim fields,
evidence notes, comments and review comments, corrections, display names,
case titles, readers' reports, the organisation's texts) and into the query
strings the pages echo. Each page that shows them is parsed and checked for
structure, not for the payload's absence: no script but ours, no event handler
attribute, no javascript: address, no embedding element, no htmx attribute we
did not write, and the payload's words shown as text. The ClaimReview JSON-LD
must parse and give back the payload exactly, with no ``<`` in the raw block;
the feeds' HTML content is checked the same way. A browser then loads the pages
with and without the Content-Security-Policy and finds that nothing ran.
"""

import html
import json
import os
import re
from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlencode

import feedparser
import lxml.etree
import lxml.html
import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from claims.corrections import correction_approve, correction_draft, correction_publish
from claims.models import Correction, Decision, Evidence
from claims.reports import report_submit
from claims.services import (
    case_create,
    claim_create,
    claim_submit_for_review,
    claim_update,
    comment_add,
    evidence_add,
    review_decide,
    reviewer_assign,
)
from claims.templatetags.claims_extras import render_markdown
from claims.workflow import Action, claim_digest, claim_transition
from factcheck.models import Organisation
from factcheck.search import Passage, replace_entries, search
from sources.capture import version_capture
from sources.models import Source
from sources.services import quotation_create, source_version_create_from_text
from tests.factories import (
    SAMPLE_TEXT,
    EditorFactory,
    RatingFactory,
    ReviewerFactory,
    SourceFactory,
)
from tests.loopback import LoopbackServer
from tests.migrated_rows import restore_data_migrations

PAYLOADS = {
    "script-element": "<script>window.__xss=1</script>",
    "attribute-breakout-img": '"><img src=x onerror="window.__xss=1">',
    "script-close": "</script><script>window.__xss=1</script>",
    "svg-onload": "<svg onload=window.__xss=1>",
    "javascript-url": "javascript:window.__xss=1",
    "javascript-url-mixed-case": " JaVaScRiPt:window.__xss=1",
    "javascript-url-with-tab": "java\tscript:window.__xss=1",
    "markdown-javascript-link": "[x](javascript:window.__xss=1)",
    "iframe-srcdoc": '<iframe srcdoc="<script>window.__xss=1</script>"></iframe>',
    "template-syntax": "{{ 7*7 }} {% now 'Y' %} {# __xss #}",
    "cdata-end": "]]><x>window.__xss=1</x><![CDATA[",
    "html-comment": "<!-- window.__xss=1 --> <!--",
    "line-separators": "a\u2028b\u2029c window.__xss=1",
    "single-quote-breaker": "' onmouseover='window.__xss=1' x='",
    "double-quote-breaker": '" autofocus onfocus="window.__xss=1" x="',
    "pre-escaped": "&lt;script&gt;window.__xss=1&lt;/script&gt;",
    "meta-refresh": '<meta http-equiv="refresh" content="0;url=javascript:window.__xss=1">',
    "htmx-attributes": '<div hx-on:htmx:load="window.__xss=1" hx-get="/logout/">x</div>',
    "style-element": "<style>body{background:url(javascript:window.__xss=1)}</style>",
    "alert-dialog": "<img src=x onerror=alert(1)><script>alert(2)</script>",
}

#: Markdown-only ways to smuggle a script address into a rationale's link.
MARKDOWN_LINKS = {
    "inline": "[x](javascript:window.__xss=1)",
    "mixed-case": "[x](JaVaScRiPt:window.__xss=1)",
    "entity-encoded": "[x](&#106;avascript:window.__xss=1)",
    "hex-entities": "[x](&#x6A;&#x61;vascript:window.__xss=1)",
    "angle-brackets": "[x](<javascript:window.__xss=1>)",
    "reference": "[x][1]\n\n[1]: javascript:window.__xss=1",
    "autolink": "<javascript:window.__xss=1>",
    "image": "![x](javascript:window.__xss=1)",
    "vbscript": "[x](vbscript:window.__xss=1)",
    "data-url": "[x](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==)",
    "raw-anchor": '<a href="javascript:window.__xss=1">x</a>',
    "raw-anchor-newline": '<a href="java\nscript:window.__xss=1">x</a>',
    "title-breakout": '[x](https://example.org "a\\" onmouseover=\\"window.__xss=1")',
}

# --- what "inert" means, checked on the parsed page -------------------------

#: Elements none of our templates write: from user content they would embed or run something.
FORBIDDEN_TAGS = {
    "iframe", "frame", "frameset", "object", "embed", "applet", "svg", "math", "base",
    "style", "img", "video", "audio", "source", "portal", "template", "noembed", "xmp",
}  # fmt: skip
URL_ATTRIBUTES = {
    "href", "src", "action", "formaction", "xlink:href", "data", "poster", "background",
    "ping", "srcset", "cite", "codebase", "lowsrc", "dynsrc",
}  # fmt: skip
DANGEROUS_SCHEMES = ("javascript:", "vbscript:", "data:")
#: The htmx attributes our templates use; any other (hx-on:*, hx-vals…) is injected.
OUR_HTMX_ATTRIBUTES = {
    "hx-get", "hx-post", "hx-target", "hx-swap", "hx-trigger", "hx-push-url", "hx-headers",
    "hx-encoding", "hx-include", "hx-swap-oob", "hx-indicator", "hx-disabled-elt",
}  # fmt: skip
OUR_META_NAMES = {"viewport", "htmx-config"}
OUR_LINK_RELS = {"stylesheet", "icon", "alternate"}
STATIC_PREFIX = "/" + settings.STATIC_URL.strip("/") + "/"
#: The JavaScript catalogue, our own view, in the page's language.
CATALOGUE_PREFIX = reverse("javascript-catalog") + "?language="
#: The one frame we write: a captured page's archived copy, from our own address.
ARCHIVE_FRAME_SRC = re.compile(r"^/sources/\d+/versions/\d+/archive/page/$")
LD_JSON_BLOCK = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.DOTALL)


def _as_browser_reads(url):
    """
    The address as a browser's URL parser sees it (WHATWG URL): leading and
    trailing controls and spaces stripped, tabs and newlines removed anywhere,
    so "java\tscript:" is javascript:. Lowercased for the scheme test.
    """
    controls = "".join(map(chr, range(0x21)))
    return re.sub(r"[\t\n\r]", "", url.strip(controls)).lower()


def _our_archive_frame(element):
    """
    The archived page's frame as we write it: sandboxed with nothing allowed (no script,
    its own origin), showing our own address of the stored page, and nothing inline.
    """
    return (
        element.tag.lower() == "iframe"
        and element.get("sandbox") == ""
        and bool(ARCHIVE_FRAME_SRC.match(element.get("src", "")))
        and element.get("srcdoc") is None
        and not len(element)
        and not (element.text or "").strip()
    )


def html_problems(html, *, ld_json_blocks=0):
    """Everything in ``html`` that could run or embed something we did not write."""
    problems = []
    tree = lxml.html.document_fromstring(html or "<p></p>")
    scripts = tree.xpath("//script")
    raw_scripts = len(re.findall(r"<script\b", html, re.IGNORECASE))
    if raw_scripts != len(scripts):
        problems.append(f"{raw_scripts} '<script' in the markup but {len(scripts)} elements")
    if "<!--" in html:
        problems.append("an HTML comment opener in the markup")
    found_ld = 0
    for element in tree.iter():
        if not isinstance(element.tag, str):
            problems.append(f"a comment or processing instruction: {element!r}")
            continue
        tag = element.tag.lower()
        snippet = lxml.html.tostring(element, encoding="unicode")[:160]
        if tag == "script":
            src = element.get("src")
            if src is None and element.get("type") == "application/ld+json":
                found_ld += 1
            elif not (
                src
                and src.startswith((STATIC_PREFIX, CATALOGUE_PREFIX))
                and not (element.text or "").strip()
            ):
                problems.append(f"a script that is not ours: {snippet}")
        elif tag in FORBIDDEN_TAGS and not _our_archive_frame(element):
            problems.append(f"a <{tag}> element: {snippet}")
        elif tag == "meta" and not (
            element.get("charset") or element.get("name") in OUR_META_NAMES
        ):
            problems.append(f"a meta element that is not ours: {snippet}")
        elif tag == "link" and not (
            (element.get("rel") in OUR_LINK_RELS and element.get("href", "").startswith("/"))
            # The public claim page's one address is absolute, on our own host.
            or (
                element.get("rel") == "canonical"
                and element.get("href", "").startswith("http://testserver/")
            )
        ):
            problems.append(f"a link element that is not ours: {snippet}")
        for name, value in element.attrib.items():
            name = name.lower()
            if name.startswith("on"):
                problems.append(f"an event handler attribute {name}: {snippet}")
            elif name.startswith(("hx-", "data-hx-")) and name not in OUR_HTMX_ATTRIBUTES:
                problems.append(f"an htmx attribute we never write, {name}: {snippet}")
            elif name in {"hx-get", "hx-post"} and not value.startswith("/"):
                problems.append(f"an htmx request to {value!r}: {snippet}")
            elif name == "srcdoc":
                problems.append(f"a srcdoc attribute: {snippet}")
            elif name in URL_ATTRIBUTES and _as_browser_reads(value).startswith(DANGEROUS_SCHEMES):
                problems.append(f"a {name} that runs script: {value!r}")
    if found_ld != ld_json_blocks:
        problems.append(f"{found_ld} JSON-LD blocks, expected {ld_json_blocks}")
    return problems


def page_text(html):
    """The page's text, and what its form fields hold (an input shows its value)."""
    tree = lxml.html.document_fromstring(html)
    return "\n".join([tree.text_content(), *tree.xpath("//input/@value")])


# --- a desk whose every typed field holds the payload ------------------------


@dataclass
class World:
    """A case worked through the real services, with ``payload`` in every field."""

    payload: str
    editor: object = None
    reviewer: object = None
    piece: object = None
    cited: object = None
    piece_version: object = None
    cited_version: object = None
    case: object = None
    published: object = None
    in_review: object = None
    draft: object = None
    correction: object = None
    draft_correction: object = None
    report: object = None
    claim_span: tuple = ()
    assignments: dict = field(default_factory=dict)
    #: A source fetched from a web address, through a redirect (with ``server`` only).
    captured: object = None

    def text(self, tag):
        """What a field holding ``tag`` shows: the tag, then the payload."""
        return f"{tag} {self.payload}"


def _span(text, first, last):
    start = text.index(first)
    return start, text.index(last, start) + len(last)


def build_world(payload, index=0, server=None):
    """The world of ``payload``; with ``server`` (a LoopbackServer), a captured source too."""
    world = World(payload)
    text = world.text
    Organisation.objects.update_or_create(
        pk=1,
        defaults={
            "name": text("Forganisation")[:200],
            "corrections_policy": text("Fpolicy"),
            "corrections_policy_url": payload[:200],
        },
    )
    world.editor = EditorFactory(
        username=f"editor{index}-{payload}"[:150],
        email=f"editor{index}@example.invalid",
        first_name=text("Feditorname")[:150],
        last_name=payload[:150],
    )
    world.reviewer = ReviewerFactory(
        username=f"reviewer{index}-{payload}"[:150],
        email=f"reviewer{index}@example.invalid",
        first_name=text("Freviewername")[:150],
        last_name=payload[:150],
    )
    rating = RatingFactory(
        label=f"Frating{index} {payload}"[:60], order=200 + index, value=3, meaning=text("Fmeaning")
    )
    # Model fields, not forms: a URL field holds what any import or script could store.
    world.piece = SourceFactory(
        title=text("Fpiecetitle"),
        publisher=text("Fpiecepublisher"),
        authors=text("Fpieceauthors"),
        url=payload,
        notes=text("Fpiecenotes"),
        role=Source.Role.UNDER_CHECK,
    )
    world.cited = SourceFactory(
        title=text("Fcitedtitle"),
        publisher=text("Fcitedpublisher"),
        authors=text("Fcitedauthors"),
        url=payload,
        notes=text("Fcitednotes"),
        published_on=date(2026, 1, 2),
        role=Source.Role.PRIMARY,
    )
    world.piece_version, _ = source_version_create_from_text(
        source=world.piece,
        text=(
            f"Fpiecetext {payload}\nFbefore {payload} Fqexact {payload} Fqend {payload} "
            f"Fafter\n{SAMPLE_TEXT}"
        ),
        actor=world.editor,
        # The name is cut to what follows its last slash, so the tag goes last.
        original_filename=f"{payload} Ffilename"[-255:],
    )
    world.cited_version, _ = source_version_create_from_text(
        source=world.cited,
        text=f"Fcitedtext {payload}\nFevbefore {payload} Fevexact {payload} Fevend {payload}",
        actor=world.editor,
        original_filename=f"{payload} Fcitedfilename"[-255:],
    )
    world.claim_span = _span(world.piece_version.extracted_text, "Fqexact", "Fqend")
    piece_quotation, _ = quotation_create(
        version=world.piece_version,
        start=world.claim_span[0],
        end=world.claim_span[1],
        actor=world.editor,
    )
    cited_start, cited_end = _span(world.cited_version.extracted_text, "Fevexact", "Fevend")
    cited_quotation, _ = quotation_create(
        version=world.cited_version, start=cited_start, end=cited_end, actor=world.editor
    )
    world.case = case_create(
        title=text("Fcasetitle"),
        slug=f"xss-{index}",
        source_under_check=world.piece,
        lead_editor=world.editor,
        actor=world.editor,
    )
    claims = {}
    for state in ("published", "in_review", "draft"):
        claim = claim_create(
            case=world.case,
            quotation=piece_quotation,
            statement=text("Fstatement"),
            claimant=text("Fclaimant")[:300],
            rationale=f"Frationale {payload}\n\n*{payload}* [Flink]({payload}) {payload}",
            author=world.editor,
        )
        claim = claim_update(
            claim=claim, editor=world.editor, expected_version=claim.version, verdict=rating
        )
        evidence_add(
            claim=claim,
            quotation=cited_quotation,
            stance=Evidence.Stance.SUPPORTS,
            note=text("Fevidencenote"),
            editor=world.editor,
        )
        comment_add(claim=claim, author=world.editor, body=text("Fcomment"))
        if state != "draft":
            world.assignments[state] = reviewer_assign(
                claim=claim, reviewer=world.reviewer, editor=world.editor, due_on=date(2026, 1, 1)
            )
            claim = claim_submit_for_review(claim=claim, editor=world.editor)
        if state == "published":
            review_decide(
                assignment=world.assignments[state],
                reviewer=world.reviewer,
                decision=Decision.APPROVED,
                comment=text("Freviewcomment"),
                digest_seen=claim_digest(claim),
            )
            # Nobody publishes their own work: another editor does.
            claim = claim_transition(claim=claim, action=Action.PUBLISH, actor=EditorFactory())
        claims[state] = claim
    world.published, world.in_review, world.draft = (
        claims["published"],
        claims["in_review"],
        claims["draft"],
    )
    correction = correction_draft(
        case=world.case,
        editor=world.editor,
        kind=Correction.Kind.CORRECTION,
        what_was_wrong=text("Fwrong"),
        what_is_right=text("Fright"),
        reason=text("Freason"),
        claim=world.published,
    )
    correction_approve(correction=correction, approver=world.reviewer)
    world.correction = correction_publish(correction=correction, editor=world.editor)
    case_correction = correction_draft(
        case=world.case,
        editor=world.editor,
        kind=Correction.Kind.UPDATE,
        what_was_wrong=text("Fcasewrong"),
        what_is_right=text("Fcaseright"),
    )
    correction_approve(correction=case_correction, approver=world.reviewer)
    correction_publish(correction=case_correction, editor=world.editor)
    world.draft_correction = correction_draft(
        case=world.case,
        editor=world.editor,
        kind=Correction.Kind.CLARIFICATION,
        what_was_wrong=text("Fdraftwrong"),
        what_is_right=text("Fdraftright"),
        claim=world.published,
    )
    world.report = report_submit(
        page_url=payload,
        message=text("Freport"),
        email=payload,
        address=f"192.0.2.{index + 1}",
        case=world.case,
        claim=world.published,
    )
    if server is not None:
        world.captured = capture_with_payload(world, server, index)
    return world


def capture_with_payload(world, server, index):
    """
    A source whose version was fetched through a redirect from an address holding the
    payload: the address asked for is kept as typed, and shown. (The guard refuses control
    characters in an address, so those are left out of it.)
    """
    payload, text = world.payload, world.text
    source = SourceFactory(
        title=text("Fcapturedtitle"),
        publisher=text("Fcapturedpublisher"),
        role=Source.Role.SECONDARY,
    )
    server.redirect(f"/asked-{index}", f"/captured-{index}")
    server.page(
        f"/captured-{index}",
        (
            f"<!doctype html><html><head><title>{html.escape(text('Fcapturedpage'))}</title>"
            f"</head><body><p>{html.escape(text('Fcapturedtext'))}</p></body></html>"
        ).encode(),
    )
    asked = server.url(f"/asked-{index}?q=") + re.sub(r"[\x00-\x1f\x7f]", "", payload)
    version_capture(source=source, url=asked, actor=world.editor)
    return source


# --- the pages that show it ---------------------------------------------------


@dataclass(frozen=True)
class Page:
    name: str
    who: str  # "editor", "reviewer" or "public"
    url: str
    #: Field tags the page must show as text: proof the field is on the page at all.
    shows: tuple = ()
    ld_json: int = 0
    htmx: bool = False


def pages(world):
    case, claim, payload = world.case, world.published, world.payload
    piece, cited = world.piece, world.cited
    case_url = case.get_absolute_url()
    start, end = world.claim_span
    public_claim = reverse("claims:public_claim", args=[case.slug, claim.pk])
    claim_shows = (
        "Fcasetitle", "Fqexact", "Fpiecetitle", "Fstatement", "Fclaimant", "Frating",
        "Frationale", "Fcitedtitle", "Fevidencenote", "Fevexact", "Fcomment",
    )  # fmt: skip
    review_shows = (
        "Fstatement", "Fclaimant", "Frating", "Fqexact", "Fpiecetitle", "Frationale",
        "Fcitedtitle", "Fcitedpublisher", "Fevidencenote", "Fevexact",
    )  # fmt: skip
    quote_finder = reverse("sources:quote_finder", args=[cited.pk, world.cited_version.number])
    captured = []
    if world.captured is not None:
        captured = [
            Page(
                "source reader (captured source)",
                "editor",
                world.captured.get_absolute_url(),
                ("Fcapturedtitle", "Fcapturedpublisher"),
            ),
            Page(
                "archived page",
                "editor",
                reverse("sources:version_archive", args=[world.captured.pk, 1]),
                ("Fcapturedtitle",),
            ),
        ]
    return [
        *captured,
        Page(
            "case list",
            "editor",
            reverse("claims:case_list"),
            ("Fcasetitle", "Fpiecetitle", "Feditorname"),
        ),
        Page(
            "case page",
            "editor",
            case_url,
            (
                "Fcasetitle",
                "Fpiecetitle",
                "Feditorname",
                "Fpiecetext",
                "Fqexact",
                "Fstatement",
                "Fclaimant",
                "Frationale",
                "Frating",
                "Freviewername",
            ),
        ),
        Page(
            "case page, passage finder",
            "editor",
            f"{case_url}?{urlencode({'passage': 'Fqexact'})}",
            ("Fqexact", "Fbefore"),
        ),
        Page(
            "case page, claim from a selection",
            "editor",
            f"{case_url}?{urlencode({'start': start, 'end': end})}",
            ("Fqexact",),
        ),
        Page(
            "case page, echoed filters",
            "editor",
            f"{case_url}?{urlencode({'status': payload, 'verdict': payload, 'reviewer': payload})}",
            ("Fcasetitle",),
        ),
        Page("claim page (published)", "editor", claim.get_absolute_url(), claim_shows),
        Page("claim page (in review)", "editor", world.in_review.get_absolute_url(), claim_shows),
        Page(
            "claim page (draft, edit form)",
            "editor",
            world.draft.get_absolute_url(),
            ("Fstatement", "Frationale", "Fevidencenote", "Fcomment"),
        ),
        Page(
            "claim page, quotation search",
            "editor",
            reverse("claims:quotation_search", args=[case.slug, world.draft.pk])
            + "?"
            + urlencode({"q": "Fevexact"}),
            ("Fevexact", "Fcitedtitle"),
            htmx=True,
        ),
        Page(
            "claim page, quotation search echoing the query",
            "editor",
            reverse("claims:quotation_search", args=[case.slug, world.draft.pk])
            + "?"
            + urlencode({"q": f"Fnothing {payload}"}),
            htmx=True,
        ),
        Page(
            "source list",
            "editor",
            reverse("sources:source_list"),
            ("Fpiecetitle", "Fpiecepublisher", "Fcitedtitle", "Fcitedpublisher"),
        ),
        Page(
            "source reader (piece under check)",
            "editor",
            piece.get_absolute_url(),
            (
                "Fpiecetitle",
                "Fpiecepublisher",
                "Fpieceauthors",
                "Fpiecenotes",
                "Fpiecetext",
                "Ffilename",
                "Fqexact",
            ),
        ),
        Page(
            "source reader (cited source)",
            "editor",
            cited.get_absolute_url(),
            ("Fcitedtitle", "Fcitedpublisher", "Fcitedauthors", "Fcitednotes", "Fevexact"),
        ),
        Page(
            "quote finder, exact occurrence",
            "editor",
            f"{quote_finder}?{urlencode({'q': 'Fevexact'})}",
            ("Fevexact", "Fevbefore"),
        ),
        Page(
            "quote finder, closest passages",
            "editor",
            f"{quote_finder}?{urlencode({'q': f'Fevexact {payload} Fevendd'})}",
            ("Fevexact",),
        ),
        # Searched by the first word of the title: PostgreSQL's parser reads "<!--" in the
        # indexed text as markup and drops the words it encloses (the snippet is still shown).
        Page(
            "search, source text",
            "editor",
            f"{reverse('search')}?{urlencode({'q': 'Fpiecetitle'})}",
            ("Fpiecetitle",),
        ),
        Page(
            "search, claims",
            "editor",
            f"{reverse('search')}?{urlencode({'q': 'Fstatement'})}",
            ("Fstatement",),
        ),
        Page(
            "search, htmx results",
            "editor",
            f"{reverse('search')}?{urlencode({'q': 'Fcitedtitle'})}",
            ("Fcitedtitle",),
            htmx=True,
        ),
        Page(
            "search, echoed query",
            "editor",
            f"{reverse('search')}?{urlencode({'q': f'Fnomatch {payload}'})}",
        ),
        Page(
            "corrections desk",
            "editor",
            reverse("claims:corrections_desk"),
            ("Fdraftwrong", "Fdraftright", "Fcasetitle", "Fstatement"),
        ),
        Page("readers' reports", "editor", reverse("claims:reports_inbox"), ("Freport",)),
        Page("my reviews", "reviewer", reverse("claims:my_reviews"), ("Fstatement", "Fcasetitle")),
        Page(
            "review page (in review)",
            "reviewer",
            reverse("claims:review", args=[world.assignments["in_review"].pk]),
            review_shows,
        ),
        Page(
            "review page (approved and published)",
            "reviewer",
            reverse("claims:review", args=[world.assignments["published"].pk]),
            review_shows,
        ),
        Page(
            "public case",
            "public",
            reverse("claims:public_case", args=[case.slug]),
            (
                "Fcasetitle",
                "Fcaseright",
                "Fstatement",
                "Frating",
                "Fclaimant",
                "Fpiecetitle",
                "Fpiecepublisher",
                "Forganisation",
            ),
        ),
        Page(
            "public claim",
            "public",
            public_claim,
            (
                "Fcasetitle",
                "Fstatement",
                "Frating",
                "Fmeaning",
                "Forganisation",
                "Fclaimant",
                "Fright",
                "Fqexact",
                "Fpiecetitle",
                "Frationale",
                "Fcitedtitle",
                "Fcitedpublisher",
                "Fevidencenote",
                "Fevexact",
            ),
            ld_json=1,
        ),
        Page(
            "public claim, echoed query string",
            "public",
            f"{public_claim}?{urlencode({'ref': payload})}",
            ("Fstatement",),
            ld_json=1,
        ),
        Page(
            "corrections log",
            "public",
            reverse("claims:corrections_log"),
            (
                "Forganisation",
                "Fcasetitle",
                "Fwrong",
                "Fright",
                "Freason",
                "Fcasewrong",
                "Fcaseright",
                "Fpolicy",
            ),
        ),
        Page(
            "correction entry",
            "public",
            world.correction.get_absolute_url(),
            ("Fwrong", "Fright", "Freason", "Fstatement", "Fcasetitle"),
        ),
        Page(
            "report-an-error form, echoed parameters",
            "public",
            reverse("claims:report_error")
            + "?"
            + urlencode({"page_url": payload, "case": payload, "claim": payload}),
        ),
    ]


def clients(world):
    editor, reviewer = Client(), Client()
    editor.force_login(world.editor)
    reviewer.force_login(world.reviewer)
    return {"editor": editor, "reviewer": reviewer, "public": Client()}


def get(client, page):
    headers = {"HX-Request": "true"} if page.htmx else {}
    response = client.get(page.url, headers=headers)
    assert response.status_code == 200, f"{page.name}: {response.status_code}"
    return response.content.decode("utf-8")


@pytest.fixture(autouse=True)
def fresh_public_pages():
    # Public pages are cached by URL; each world's must be rendered from its own rows.
    cache.clear()


@pytest.mark.django_db
@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_every_page_shows_the_payload_as_inert_text(payload):
    with LoopbackServer() as server:
        world = build_world(payload, server=server)
    by_role = clients(world)
    failures = []
    for page in pages(world):
        html = get(by_role[page.who], page)
        failures += [
            f"{page.name}: {problem}"
            for problem in html_problems(html, ld_json_blocks=page.ld_json)
        ]
        text = page_text(html)
        missing = [tag for tag in page.shows if tag not in text]
        if missing:
            failures.append(f"{page.name}: does not show {', '.join(missing)}")
        if page.shows and world.text(page.shows[0]) not in text and payload not in text:
            failures.append(f"{page.name}: the payload is not shown word for word")
    assert not failures, "\n".join(failures)


@pytest.mark.django_db
@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_the_claim_review_json_ld_cannot_close_its_script_and_gives_back_the_payload(payload):
    world = build_world(payload)
    claim = world.published
    html = get(Client(), Page("public claim", "public", claim.get_public_url()))

    blocks = LD_JSON_BLOCK.findall(html)
    assert len(blocks) == 1
    # No "<" at all: so no "</script", "<!--" or "<script" can end or re-open the element.
    assert "<" not in blocks[0]
    assert "</script" not in blocks[0].lower()
    review = json.loads(blocks[0])
    assert review["claimReviewed"] == claim.statement
    assert review["itemReviewed"]["author"]["name"] == claim.claimant
    appearance = review["itemReviewed"]["appearance"][0]
    assert appearance["headline"] == world.piece.title
    # Only a web address is offered as where the claim appeared.
    assert "url" not in appearance
    assert review["author"]["name"] == Organisation.current().name
    assert review["reviewRating"]["alternateName"] == claim.verdict.label
    assert [entry["text"] for entry in review["correction"]] == [world.correction.what_is_right]


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_json_ld_markup_holds_any_text_in_one_script_element(payload):
    from claims.public import json_ld

    data = {"claimReviewed": payload, "nested": [{"text": f"</SCRIPT >{payload}<!--"}]}
    markup = str(json_ld(data))

    tree = lxml.html.fragment_fromstring(markup, create_parent="div")
    (script,) = tree.xpath("//script")
    assert script.get("type") == "application/ld+json"
    assert json.loads(script.text) == data
    assert markup.count("<") == 2  # the element's own start and end tags


FEEDS = {"atom": "claims:corrections_atom", "rss": "claims:corrections_rss"}
ATOM = {"atom": "http://www.w3.org/2005/Atom"}


@pytest.mark.django_db
@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
@pytest.mark.parametrize("feed", FEEDS)
def test_feed_entries_carry_the_corrections_as_text_inside_their_html(payload, feed):
    world = build_world(payload)
    content = Client().get(reverse(FEEDS[feed])).content

    root = lxml.etree.fromstring(content)  # well-formed XML, whatever the payload
    if feed == "atom":
        entries = root.xpath("//atom:entry", namespaces=ATOM)
        summaries = [entry.xpath("atom:summary", namespaces=ATOM)[0] for entry in entries]
        assert {summary.get("type") for summary in summaries} == {"html"}
        titles = [entry.xpath("atom:title/text()", namespaces=ATOM)[0] for entry in entries]
    else:
        entries = root.xpath("//item")
        summaries = [entry.find("description") for entry in entries]
        titles = [entry.findtext("title") for entry in entries]
    assert len(entries) == 2
    # A feed reader renders the summary as HTML: it must hold the words as text.
    for summary in summaries:
        assert html_problems(summary.text) == []
    texts = [page_text(summary.text) for summary in summaries]
    assert any(world.text("Fwrong") in text and world.text("Fright") in text for text in texts)
    assert any(world.text("Fcaseright") in text for text in texts)
    # Titles are plain text in both formats; XML escaping alone keeps them intact.
    assert f"Correction: {world.published}" in titles
    # What a feedparser user gets when they turn its sanitiser off.
    parsed = feedparser.parse(content, sanitize_html=False)
    assert not parsed.bozo
    assert len(parsed.entries) == 2
    for entry in parsed.entries:
        assert html_problems(entry.summary) == []


@pytest.mark.django_db
@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_json_exports_are_served_as_json_and_give_back_the_payload(payload):
    world = build_world(payload)
    client = Client()
    export = client.get(reverse("claims:public_case_export", args=[world.case.slug]))
    log = client.get(reverse("claims:corrections_json"))

    for response in (export, log):
        assert response["Content-Type"].startswith("application/json")
        assert response["X-Content-Type-Options"] == "nosniff"
    case = json.loads(export.content)
    assert case["case"] == world.case.title
    (claim,) = case["claims"]
    assert claim["statement"] == world.published.statement
    assert claim["rationale"] == world.published.rationale
    assert claim["evidence"][0]["note"] == world.text("Fevidencenote")
    entries = json.loads(log.content)["entries"]
    assert world.text("Fright") in [entry["what_is_right"] for entry in entries]


@pytest.mark.django_db
@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_search_snippets_escape_the_text_before_marking_the_matches(payload):
    body = f"Fsnippet {payload} Fsnippet"
    replace_entries(kind="source", object_id=1, passages=[Passage(title="t", body=body, url="/")])

    (hit,) = search("Fsnippet")[0:1]

    tree = lxml.html.fragment_fromstring(str(hit.snippet), create_parent="div")
    assert [mark.text for mark in tree.xpath("//mark")] == ["Fsnippet", "Fsnippet"]
    assert [element.tag for element in tree.iter()] == ["div", "mark", "mark"]
    assert tree.text_content() == body


@pytest.mark.parametrize("source", MARKDOWN_LINKS.values(), ids=MARKDOWN_LINKS.keys())
def test_a_rationale_link_never_points_at_a_script(source):
    html = str(render_markdown(source))

    assert html_problems(f"<div>{html}</div>") == []


def test_a_rationale_keeps_its_web_links():
    html = str(render_markdown("See [the table](https://example.org/t?a=1&b=2 'Table 2')."))

    (link,) = lxml.html.fragment_fromstring(html, create_parent="div").xpath("//a")
    assert link.get("href") == "https://example.org/t?a=1&b=2"
    assert link.get("title") == "Table 2"


#: Each payload written into the markup unescaped, where it would do harm: the checker's control.
UNESCAPED = {
    "script-element": "<p>{}</p>",
    "attribute-breakout-img": '<p title="{}"></p>',
    "script-close": "<p>{}</p>",
    "svg-onload": "<p>{}</p>",
    "javascript-url": '<a href="{}">x</a>',
    "javascript-url-mixed-case": '<a href="{}">x</a>',
    "javascript-url-with-tab": '<a href="{}">x</a>',
    "iframe-srcdoc": "<p>{}</p>",
    "cdata-end": "<p>{}</p>",
    "html-comment": "<p>{}</p>",
    "single-quote-breaker": "<p title='{}'></p>",
    "double-quote-breaker": '<p title="{}"></p>',
    "meta-refresh": "<p>{}</p>",
    "htmx-attributes": "<p>{}</p>",
    "style-element": "<p>{}</p>",
    "alert-dialog": "<p>{}</p>",
}


@pytest.mark.parametrize("name", UNESCAPED)
def test_the_checker_finds_each_payload_left_unescaped(name):
    markup = UNESCAPED[name].format(PAYLOADS[name])

    assert html_problems(f"<!doctype html><html><body>{markup}</body></html>")


@pytest.mark.parametrize(
    "frame",
    [
        '<iframe src="/sources/1/versions/1/archive/page/"></iframe>',
        '<iframe sandbox="allow-scripts" src="/sources/1/versions/1/archive/page/"></iframe>',
        '<iframe sandbox src="https://example.org/"></iframe>',
        '<iframe sandbox src="/sources/1/versions/1/archive/page/" srcdoc="x"></iframe>',
    ],
    ids=["without sandbox", "scripts allowed", "elsewhere", "with srcdoc"],
)
def test_the_checker_allows_only_our_sandboxed_archive_frame(frame):
    ours = '<iframe sandbox src="/sources/1/versions/1/archive/page/"></iframe>'

    assert html_problems(f"<!doctype html><html><body>{ours}</body></html>") == []
    assert html_problems(f"<!doctype html><html><body>{frame}</body></html>")


def test_the_checker_finds_a_markdown_script_link_left_unsanitised():
    import markdown

    assert html_problems(markdown.markdown(PAYLOADS["markdown-javascript-link"]))


# --- in a real browser ----------------------------------------------------------

#: The pages each world is loaded on; the shared lists (log, inbox) once per run.
BROWSER_PAGES = (
    "case page",
    "claim page (published)",
    "claim page (draft, edit form)",
    "source reader (piece under check)",
    "source reader (cited source)",
    "search, echoed query",
    "review page (in review)",
    "public case",
    "public claim",
    "correction entry",
)
SHARED_BROWSER_PAGES = ("search, source text", "readers' reports", "corrections log")

#: What ran or was built in the page, as the browser sees it after its scripts ran.
INSPECT = """() => {
  const problems = [];
  const ours = (script) => (script.type === 'application/ld+json' && !script.src)
    || ((script.src.startsWith(location.origin + '/static/')
        || script.src.startsWith(location.origin + '/jsi18n/?language='))
        && !script.text.trim());
  for (const script of document.scripts) {
    if (!ours(script)) problems.push('script: ' + script.outerHTML.slice(0, 120));
  }
  const forbidden = new Set(['iframe', 'frame', 'object', 'embed', 'svg', 'math', 'img', 'style',
    'base', 'video', 'audio', 'template']);
  for (const element of document.querySelectorAll('*')) {
    const tag = element.localName;
    if (forbidden.has(tag)) problems.push('element: ' + element.outerHTML.slice(0, 120));
    if (tag === 'meta' && !element.hasAttribute('charset')
        && !['viewport', 'htmx-config'].includes(element.name)) {
      problems.push('meta: ' + element.outerHTML);
    }
    for (const attribute of element.attributes) {
      const name = attribute.name.toLowerCase();
      if (name.startsWith('on') || name.startsWith('hx-on') || name.startsWith('data-hx-on')) {
        problems.push('handler: ' + name + ' on ' + tag);
      }
      if (['href', 'src', 'action', 'formaction', 'xlink:href'].includes(name)) {
        let protocol = '';
        try { protocol = new URL(attribute.value, document.baseURI).protocol; } catch (e) {}
        if (['javascript:', 'vbscript:', 'data:'].includes(protocol)) {
          problems.push(name + ' runs script: ' + attribute.value);
        }
      }
    }
  }
  const ld = document.querySelector('script[type="application/ld+json"]');
  return {
    xss: typeof window.__xss,
    problems,
    claimReviewed: ld ? JSON.parse(ld.textContent).claimReviewed : null,
  };
}"""


@pytest.fixture(scope="module")
def chromium():
    # Imported here so that without Chromium only the browser test is skipped
    # (tests/browser/support.py skips the module that imports it, or fails in CI).
    from tests.browser import support as helpers

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with helpers.sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=helpers.CHROMIUM, args=helpers.CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


def _session_cookie(user, base):
    client = Client()
    client.force_login(user)
    value = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": value, "url": base}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("csp", ["enforced", "off"])
def test_in_chromium_no_payload_runs_or_opens_a_dialog(chromium, live_server, settings, csp):
    if csp == "off":
        # Escaping alone must hold: the policy is the second line, not the only one.
        settings.SECURE_CSP = {}
    restore_data_migrations()
    worlds = [build_world(payload, index) for index, payload in enumerate(PAYLOADS.values())]
    cache.clear()
    base = live_server.url
    browsers = {}
    dialogs = []
    for who in ("editor", "reviewer", "public"):
        context = chromium.new_context()
        context.set_default_timeout(15_000)
        if who != "public":
            context.add_cookies([_session_cookie(getattr(worlds[0], who), base)])
        tab = context.new_page()
        tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        browsers[who] = tab
    visits = [
        (world, page)
        for world in worlds
        for page in pages(world)
        if page.name in BROWSER_PAGES or (world is worlds[0] and page.name in SHARED_BROWSER_PAGES)
    ]
    failures = []
    for world, page in visits:
        # The first world's editor and reviewer see every case (editors) or their own reviews.
        if page.who == "reviewer" and world is not worlds[0]:
            continue
        tab = browsers[page.who]
        response = tab.goto(base + page.url, wait_until="load")
        assert response.ok, f"{page.name}: {response.status}"
        assert ("content-security-policy" in response.headers) == (csp == "enforced")
        tab.wait_for_timeout(30)  # a failed image's onerror, an autofocus's onfocus
        seen = tab.evaluate(INSPECT)
        where = f"{page.name} [{world.payload!r}]"
        if seen["xss"] != "undefined":
            failures.append(f"{where}: window.__xss is {seen['xss']}")
        failures += [f"{where}: {problem}" for problem in seen["problems"]]
        if page.ld_json and seen["claimReviewed"] != world.published.statement:
            failures.append(f"{where}: the JSON-LD reads {seen['claimReviewed']!r}")
    failures += [f"a dialog opened: {message!r}" for message in dialogs]
    assert not failures, "\n".join(failures)
    assert len(visits) >= len(worlds) * len(BROWSER_PAGES)


def test_a_rationale_shown_again_is_served_as_first_sanitised(monkeypatch):
    from claims.templatetags import claims_extras

    text = "A rationale seen on three pages <script>alert(1)</script> [x](javascript:alert(1))"
    first = render_markdown(text)
    calls = []
    monkeypatch.setattr(
        claims_extras.markdown_lib, "markdown", lambda *a, **k: calls.append(a) or ""
    )

    again = render_markdown(text)

    assert again == first
    assert calls == []  # not parsed again
    assert html_problems(f"<div>{again}</div>") == []
    assert "<script" not in again


def test_a_fenced_block_in_a_rationale_is_a_code_block_and_stays_inert():
    html = str(render_markdown("The log says:\n\n```\n<script>alert(1)</script>\nok\n```\n"))

    assert "<pre><code>" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\nok" in html
    assert "<script>" not in html
