"""
Who may use which URL, proven from the URL resolver.

Every URL pattern the resolver knows is a row of ``MATRIX``; a pattern that is
missing from it fails ``test_every_url_declares_who_may_use_it``, so a new view
must say who may use it before the suite passes. Each row is requested with
real objects for its arguments, by each of six people, with GET and with POST,
and the answer must be the one the row declares. A refused request must leave
the database as it was.
"""

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.db.models import Max
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django_tasks_db.models import DBTaskResult, get_date_max

from claims.corrections import correction_approve, correction_draft, correction_publish
from claims.models import Case, Claim, Correction, ErrorReport, ReviewAssignment
from claims.reports import report_submit
from claims.selectors import case_claim_index
from claims.services import (
    claim_submit_for_review,
    comment_add,
    evidence_add,
    review_decide,
    reviewer_assign,
)
from claims.workflow import Action, claim_digest, claim_transition
from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent, Organisation, Preferences, SearchEntry
from factcheck.roles import can_sign_off, cases_visible_to, claims_visible_to
from sources.capture import source_capture
from sources.models import Reanchoring, Source
from sources.services import (
    find_span,
    quotation_create,
    source_version_create_from_text,
    source_version_upload,
)
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    ClaimFlagFactory,
    EditorFactory,
    PieceUnderCheckFactory,
    RatingFactory,
    ReviewerFactory,
    SourceFactory,
    SourceVersionFactory,
    UserFactory,
)
from tests.loopback import LoopbackServer
from tests.sample_files import make_text_pdf

#: The six people, in the order of each row's answers.
ROLES = ("anonymous", "nobody", "reviewer", "assigned", "editor", "superuser")

#: Answers: a status code, or ``L`` (302 to a login page, with ``next=``) or
#: ``R`` (302 anywhere else: the redirect after a form did its work).
LOGIN, REDIRECT = "L", "R"
REFUSED = {LOGIN, 403, 404, 405}


@dataclass
class Row:
    """Expected answers to GET and to POST, one per role in ``ROLES`` order."""

    get: str
    post: str
    #: URL arguments from the world: ``world -> kwargs``.
    args: object = None
    #: The POST payload (or GET query), from the world: ``world -> dict``.
    data: object = None
    query: object = None
    answers: dict = field(init=False)

    def __post_init__(self):
        def parse(line):
            answers = [word if word in {LOGIN, REDIRECT} else int(word) for word in line.split()]
            assert len(answers) == len(ROLES), line
            return dict(zip(ROLES, answers, strict=True))

        self.answers = {"get": parse(self.get), "post": parse(self.post)}


# Shorthands for the rows. A change sent without htmx is answered with the page
# again (R, a redirect); with htmx, with the part it redrew.
PUBLIC = "200 200 200 200 200 200"
POST_ONLY = "L 405 405 405 405 405"
BOTH_ROLES = "L 403 200 200 200 200"  # any desk role; nothing object-level
EDITORS = "L 403 403 403 200 200"
EDITORS_REDIRECT = "L 403 403 403 R R"
IN_REACH = "L 403 404 200 200 200"  # editors, and a reviewer assigned in the case
IN_REACH_REDIRECT = "L 403 404 R R R"


def claim_args(w):
    return {"slug": w.case.slug, "pk": w.claim.pk}


#: Who may use each URL of the app. Column order: anonymous, logged-in user
#: without a role ("nobody"), reviewer not assigned to the claim, the claim's
#: assigned reviewer, editor (staff, as the demo editors are), superuser.
#:
#: The rules, consistently:
#:
#: - Anonymous: every internal URL sends to the login page (L); public pages,
#:   the readers' report form and the login page answer everyone.
#: - No role: every internal URL is 403; nobody without a group sees anything.
#: - A role without the permission a view needs: 403 (a reviewer editing a
#:   claim, an editor signing off, a reviewer publishing a correction).
#: - A role with the permission but an object outside one's reach: 404, the
#:   same answer as an object that does not exist, so that nothing is revealed.
#:   Reach is ``factcheck.roles.cases_visible_to`` / ``claims_visible_to``:
#:   editors reach every case and claim; a reviewer reaches the claims assigned
#:   to them and the cases those claims are in; a review page belongs to its
#:   reviewer alone (a superuser included: nobody signs off for someone else).
#: - Sources, the corrections desk and search are desk-wide (both roles): the
#:   documents are what everybody checks against, and a reviewer may be the
#:   second person who approves a correction.
#: - A method a view does not take: 405.
#:
#: The admin (rows built by ``admin_rows`` from ``ADMIN_RIGHTS``) is for staff:
#: everyone else is sent to the admin's login page.
MATRIX = {
    "home": Row(get="L R R R R R", post="L R R R R R"),
    "login": Row(
        get=PUBLIC,
        post=PUBLIC,
        data=lambda w: {"username": "nobody", "password": "not the password"},
    ),
    "logout": Row(get="L 405 405 405 405 405", post="L R R R R R"),
    "healthz": Row(get=PUBLIC, post=PUBLIC),
    # The language menu, on every page: anyone may choose (a signed-in user's choice is
    # kept on their account), then goes back to the page they were on.
    "set-language": Row(
        get="405 405 405 405 405 405", post="R R R R R R", data=lambda w: {"language": "es"}
    ),
    "javascript-catalog": Row(get=PUBLIC, post="405 405 405 405 405 405"),
    "readyz": Row(get=PUBLIC, post=PUBLIC),
    # Two-factor authentication: one's own account, like the password. Without a device
    # the code, disable and new-codes pages send back to where one was going (R).
    "two_factor": Row(get="L 200 200 200 200 200", post="L 405 405 405 405 405"),
    "two_factor_setup": Row(get="L 200 200 200 200 200", post="L 200 200 200 200 200"),
    "two_factor_verify": Row(get="L R R R R R", post="L R R R R R"),
    "two_factor_recovery_codes": Row(get="L 405 405 405 405 405", post="L R R R R R"),
    "two_factor_disable": Row(get="L R R R R R", post="L R R R R R"),
    # One's own account: any logged-in person, with a role or without.
    "password_change": Row(get="L 200 200 200 200 200", post="L 200 200 200 200 200"),
    "password_change_done": Row(get="L 200 200 200 200 200", post="L 405 405 405 405 405"),
    "password_reset": Row(
        get=PUBLIC, post="R R R R R R", data=lambda w: {"email": "nobody@example.invalid"}
    ),
    "password_reset_done": Row(get=PUBLIC, post="405 405 405 405 405 405"),
    # With a token that is not valid: the page says so.
    "password_reset_confirm": Row(
        get=PUBLIC,
        post=PUBLIC,
        args=lambda w: {"uidb64": "MQ", "token": "not-a-valid-token"},
    ),
    "password_reset_complete": Row(get=PUBLIC, post="405 405 405 405 405 405"),
    "search": Row(get=BOTH_ROLES, post=BOTH_ROLES, query=lambda w: {"q": "tokens"}),
    "claims:case_list": Row(get=BOTH_ROLES, post=BOTH_ROLES),
    "claims:case_create": Row(
        get=EDITORS,
        post=EDITORS_REDIRECT,
        data=lambda w: {
            "title": "A new case",
            "slug": "a-new-case",
            "source_under_check": w.spare_piece.pk,
            "lead_editor": w.lead.pk,
        },
    ),
    "claims:case_detail": Row(get=IN_REACH, post=IN_REACH, args=lambda w: {"slug": w.case.slug}),
    "claims:claim_create": Row(
        get=EDITORS_REDIRECT,
        post=EDITORS_REDIRECT,
        args=lambda w: {"slug": w.case.slug},
        data=lambda w: (
            w.selection(w.piece_version, "3.7× higher throughput")
            | {"statement": "Up to 3.7 times the throughput.", "claimant": "Together AI"}
        ),
    ),
    "claims:case_language": Row(
        get=POST_ONLY,
        post=EDITORS_REDIRECT,
        args=lambda w: {"slug": w.case.slug},
        data=lambda w: {"language": "es"},
    ),
    "claims:claim_detail": Row(get=IN_REACH, post=IN_REACH, args=claim_args),
    "claims:claim_edit": Row(
        get=POST_ONLY,
        post=EDITORS_REDIRECT,
        args=claim_args,
        data=lambda w: {
            "statement": "The compiler reached 1,111 tokens per second on one B200.",
            "claimant": "Together AI",
            "verdict": w.rating.pk,
            "rationale": "",
            "version": w.claim.version,
        },
    ),
    # Withdrawing is an editor's action; an assigned reviewer is refused (403),
    # a reviewer of other claims does not reach this one (404).
    "claims:claim_transition": Row(
        get=POST_ONLY,
        post="L 403 404 403 R R",
        args=claim_args,
        data=lambda w: {"action": Action.WITHDRAW},
    ),
    "claims:quotation_search": Row(
        get=EDITORS, post=EDITORS, args=claim_args, query=lambda w: {"q": "seconds"}
    ),
    "claims:evidence_add": Row(
        get=POST_ONLY,
        post=EDITORS_REDIRECT,
        args=claim_args,
        data=lambda w: {"quotation": w.spare_quotation.pk, "stance": "supports", "note": ""},
    ),
    # Quoting a source beside the claim: its sources, its text, its words, the attach.
    "claims:evidence_sources": Row(
        get=EDITORS, post=EDITORS, args=claim_args, query=lambda w: {"q": "source"}
    ),
    "claims:evidence_reader": Row(
        get=EDITORS, post=EDITORS, args=lambda w: claim_args(w) | {"source_pk": w.primary.pk}
    ),
    "claims:evidence_find": Row(
        get=EDITORS,
        post=EDITORS,
        args=lambda w: claim_args(w) | {"source_pk": w.primary.pk},
        query=lambda w: {"q": "467 seconds", "version": w.primary_version.number},
    ),
    "claims:evidence_quote": Row(
        get=POST_ONLY,
        post=EDITORS_REDIRECT,
        args=lambda w: claim_args(w) | {"source_pk": w.primary.pk},
        data=lambda w: (
            w.selection(w.primary_version, "Start-up took 467 seconds")
            | {"version": w.primary_version.number, "via": "selection", "stance": "supports"}
        ),
    ),
    "claims:claim_flags_clear": Row(get=POST_ONLY, post=EDITORS_REDIRECT, args=claim_args),
    "claims:evidence_remove": Row(
        get=POST_ONLY,
        post=EDITORS_REDIRECT,
        args=lambda w: claim_args(w) | {"evidence_pk": w.evidence.pk},
    ),
    "claims:reviewer_assign": Row(
        get=POST_ONLY,
        post=EDITORS_REDIRECT,
        args=claim_args,
        data=lambda w: {"reviewer": w.users["reviewer"].pk, "due_on": ""},
    ),
    # The claim's discussion: editors and its own reviewers.
    "claims:comment_add": Row(
        get=POST_ONLY,
        post=IN_REACH_REDIRECT,
        args=claim_args,
        data=lambda w: {"body": "Which table does the figure come from?"},
    ),
    "claims:my_reviews": Row(get=BOTH_ROLES, post=BOTH_ROLES),
    # Only the assignment's own reviewer: an editor lacks the role (403), anyone
    # else with it does not reach another person's review (404).
    "claims:review": Row(
        get="L 403 404 200 403 404",
        post="L 403 404 R 403 404",
        args=lambda w: {"assignment_pk": w.assignment.pk},
        data=lambda w: {"decision": "approved", "comment": "", "digest": claim_digest(w.claim)},
    ),
    "claims:corrections_desk": Row(get=BOTH_ROLES, post=BOTH_ROLES),
    # A GET of a form's address (a reload after a refusal) goes back to the desk.
    "claims:correction_draft": Row(
        get=EDITORS_REDIRECT,
        post=EDITORS_REDIRECT,
        data=lambda w: {
            "case": w.case.pk,
            "claim": w.published.pk,
            "kind": "clarification",
            "what_was_wrong": "We left out the batch size.",
            "what_is_right": "The figure is for a batch of one.",
            "reason": "",
            "new_verdict": "",
            "supersedes": "",
            "report": "",
        },
    ),
    # The second person who approves may be a reviewer; publishing is an editor's.
    "claims:correction_approve": Row(
        get="L 403 R R R R", post="L 403 R R R R", args=lambda w: {"pk": w.draft_correction.pk}
    ),
    "claims:correction_publish": Row(
        get="L 403 R R R R",
        post=EDITORS_REDIRECT,
        args=lambda w: {"pk": w.approved_correction.pk},
    ),
    "claims:correction_discard": Row(
        get="L 403 R R R R", post=EDITORS_REDIRECT, args=lambda w: {"pk": w.draft_correction.pk}
    ),
    "claims:reports_inbox": Row(get=EDITORS, post=EDITORS),
    "claims:report_close": Row(
        get=POST_ONLY,
        post=EDITORS_REDIRECT,
        args=lambda w: {"pk": w.report.pk},
        data=lambda w: {"reply": "Thank you: corrected."},
    ),
    # Public: the readers' side of the site.
    "claims:report_error": Row(
        get=PUBLIC,
        post="R R R R R R",
        data=lambda w: {
            "message": "The second figure is wrong.",
            "email": "",
            "website": "",
            "page_url": reverse("claims:public_case", args=[w.case.slug]),
            "case": w.case.slug,
            "claim": w.published.pk,
        },
    ),
    "claims:corrections_log": Row(get=PUBLIC, post=PUBLIC),
    "claims:correction_detail": Row(
        get=PUBLIC, post=PUBLIC, args=lambda w: {"pk": w.published_correction.pk}
    ),
    "claims:corrections_json": Row(get=PUBLIC, post=PUBLIC),
    "claims:corrections_atom": Row(get=PUBLIC, post=PUBLIC),
    "claims:corrections_rss": Row(get=PUBLIC, post=PUBLIC),
    "claims:public_case": Row(get=PUBLIC, post=PUBLIC, args=lambda w: {"slug": w.case.slug}),
    "claims:public_case_export": Row(get=PUBLIC, post=PUBLIC, args=lambda w: {"slug": w.case.slug}),
    "claims:public_claim": Row(
        get=PUBLIC, post=PUBLIC, args=lambda w: {"slug": w.case.slug, "pk": w.published.pk}
    ),
    # Sources: the documents everyone on the desk checks against.
    "sources:source_list": Row(get=BOTH_ROLES, post=BOTH_ROLES),
    "sources:source_create": Row(
        get=EDITORS,
        post=EDITORS_REDIRECT,
        data=lambda w: {"title": "A new source", "role": "primary", "pasted_text": "Some words."},
    ),
    "sources:source_detail": Row(
        get=BOTH_ROLES, post=BOTH_ROLES, args=lambda w: {"pk": w.primary.pk}
    ),
    # An editor puts right the language detection guessed (issue 38).
    "sources:version_language": Row(
        get=POST_ONLY,
        post=EDITORS_REDIRECT,
        args=lambda w: {"pk": w.primary.pk, "number": w.primary_version.number},
        data=lambda w: {"language": "es"},
    ),
    "sources:version_upload": Row(
        get=POST_ONLY,
        post=EDITORS_REDIRECT,
        args=lambda w: {"pk": w.primary.pk},
        data=lambda w: {"file": SimpleUploadedFile("v2.txt", b"A second version of the text.")},
    ),
    "sources:version_download": Row(
        get=BOTH_ROLES,
        post=BOTH_ROLES,
        args=lambda w: {"pk": w.primary.pk, "number": w.primary_version.number},
    ),
    "sources:quotation_create": Row(
        get=POST_ONLY,
        post="L 403 R R R R",
        args=lambda w: {"pk": w.primary.pk, "number": w.primary_version.number},
        data=lambda w: w.selection(w.primary_version, "Start-up took 467 seconds"),
    ),
    "sources:quote_finder": Row(
        get=BOTH_ROLES,
        post=BOTH_ROLES,
        args=lambda w: {"pk": w.primary.pk, "number": w.primary_version.number},
        query=lambda w: {"q": "467 seconds"},
    ),
    "sources:version_diff": Row(
        get=BOTH_ROLES,
        post=POST_ONLY,
        args=lambda w: {"pk": w.reanchoring.version.source_id, "old": 1, "new": 2},
    ),
    # Sources from a web address (issue 39): editors add them, which fetches the page now;
    # a GET of a form's address (a reload after a refusal) goes back to the form's page.
    "sources:source_capture": Row(
        get=EDITORS_REDIRECT,
        post=EDITORS_REDIRECT,
        data=lambda w: {
            "capture-url": w.server.url("/new-page"),
            "capture-title": "A page",
            "capture-role": "primary",
        },
    ),
    "sources:version_capture": Row(
        get=EDITORS_REDIRECT,
        post=EDITORS_REDIRECT,
        args=lambda w: {"pk": w.primary.pk},
        data=lambda w: {"capture-url": w.server.url("/new-page")},
    ),
    "sources:version_fetch_again": Row(
        get=EDITORS_REDIRECT, post=EDITORS_REDIRECT, args=lambda w: {"pk": w.captured.pk}
    ),
    # A captured version's archived page, the stored bytes it frames, and its WARC record:
    # read like any version, by both roles.
    "sources:version_archive": Row(
        get=BOTH_ROLES, post=POST_ONLY, args=lambda w: {"pk": w.captured.pk, "number": 1}
    ),
    "sources:version_archive_raw": Row(
        get=BOTH_ROLES, post=POST_ONLY, args=lambda w: {"pk": w.captured.pk, "number": 1}
    ),
    "sources:version_warc": Row(
        get=BOTH_ROLES, post=POST_ONLY, args=lambda w: {"pk": w.captured.pk, "number": 1}
    ),
    # A quotation drawn on its page: the page that shows it, and the image itself.
    "sources:quotation_page": Row(
        get=BOTH_ROLES, post=POST_ONLY, args=lambda w: {"pk": w.pdf.pk, "quotation_pk": w.drawn.pk}
    ),
    "sources:quotation_page_image": Row(
        get=BOTH_ROLES,
        post=POST_ONLY,
        args=lambda w: {"pk": w.pdf.pk, "quotation_pk": w.drawn.pk, "page": 2},
    ),
    # Public once the claim it is evidence of is published; GET only.
    "claims:public_evidence_page": Row(
        get=PUBLIC,
        post="405 405 405 405 405 405",
        args=lambda w: {
            "slug": w.case.slug,
            "pk": w.published.pk,
            "quotation_pk": w.drawn.pk,
            "page": 2,
        },
    ),
    # GET: the old and new words compared in full, with the button that confirms them.
    "sources:reanchoring_confirm": Row(
        get="L 403 200 200 200 200",
        post="L 403 R R R R",
        args=lambda w: {"pk": w.reanchoring.version.source_id, "reanchoring_pk": w.reanchoring.pk},
    ),
}

#: What staff may do with each registered model in the admin: (the editor's
#: rights, the superuser's rights), each a subset of "vacd" (view, add, change,
#: delete). Claims, their flags, evidence, assignments, corrections, comments, readers'
#: reports, versions, re-anchorings and the audit trail are read-only for
#: everyone: they change only through the services, which keep the workflow's
#: rules and the audit trail. What the admin may change, it audits.
ADMIN_RIGHTS = {
    "auth.group": ("", "vacd"),
    "auth.user": ("", "vacd"),
    "claims.case": ("vac", "vacd"),
    "claims.claim": ("v", "v"),
    "claims.claimflag": ("", "v"),
    "claims.comment": ("v", "v"),
    "claims.correction": ("v", "v"),
    "claims.errorreport": ("v", "v"),
    "claims.evidence": ("v", "v"),
    "claims.rating": ("vac", "vacd"),
    "claims.reviewassignment": ("v", "v"),
    "django_tasks_database.dbtaskresult": ("", "v"),
    "factcheck.auditevent": ("", "v"),
    "factcheck.organisation": ("", "vc"),
    "factcheck.preferences": ("", "vacd"),
    "factcheck.searchentry": ("", "vd"),
    "sources.quotation": ("va", "va"),
    "sources.quotationpageimage": ("", "v"),
    "sources.reanchoring": ("", "v"),
    "sources.source": ("vac", "vacd"),
    "sources.sourceversion": ("v", "v"),
}

NOT_STAFF = "L L L L"  # anonymous, nobody, reviewer, assigned: to the admin's login


def admin_rows():
    """The admin's rows of the matrix: its own pages, then five per registered model."""
    rows = {
        "admin:index": Row(get=f"{NOT_STAFF} 200 200", post=f"{NOT_STAFF} 200 200"),
        "admin:login": Row(get="200 200 200 200 R R", post=PUBLIC),
        # Not staff: back to the admin's index, which sends them to its login.
        "admin:logout": Row(get="L R R R 405 405", post="L R R R R R"),
        "admin:password_change": Row(get=f"{NOT_STAFF} 200 200", post=f"{NOT_STAFF} 200 200"),
        "admin:password_change_done": Row(get=f"{NOT_STAFF} 200 200", post=f"{NOT_STAFF} 405 405"),
        "admin:jsi18n": Row(get=f"{NOT_STAFF} 200 200", post=f"{NOT_STAFF} 405 405"),
        # Without a model's field the autocomplete view refuses the request.
        "admin:autocomplete": Row(get=f"{NOT_STAFF} 403 403", post=f"{NOT_STAFF} 405 405"),
        "admin:view_on_site": Row(
            get=f"{NOT_STAFF} R R",
            post=f"{NOT_STAFF} R R",
            args=lambda w: {
                "content_type_id": ContentType.objects.get_for_model(Claim).pk,
                "object_id": w.claim.pk,
            },
        ),
        # The editor has no rights on auth's models: the app's index is a 404 for them.
        "admin:app_list": Row(
            get=f"{NOT_STAFF} 404 200",
            post=f"{NOT_STAFF} 404 200",
            args=lambda w: {"app_label": "auth"},
        ),
        "admin:<unnamed admin/(?P<url>.*)$>": Row(
            get=f"{NOT_STAFF} 404 404",
            post=f"{NOT_STAFF} 404 404",
            args=lambda w: {"url": "no-such-page/"},
        ),
    }
    for label, (editor, superuser) in ADMIN_RIGHTS.items():
        app_label, model_name = label.split(".")
        prefix = f"admin:{app_label}_{model_name}"
        on_row = lambda w, label=label: {"object_id": w.admin_object(label).pk}  # noqa: E731

        def answers(need, yes, no=403, staff=(editor, superuser)):
            return f"{NOT_STAFF} " + " ".join(
                str(yes if need in rights else no) for rights in staff
            )

        rows |= {
            f"{prefix}_changelist": Row(get=answers("v", 200), post=answers("v", 200)),
            f"{prefix}_add": Row(get=answers("a", 200), post=answers("a", 200)),
            f"{prefix}_change": Row(get=answers("v", 200), post=answers("c", 200), args=on_row),
            f"{prefix}_delete": Row(
                get=answers("d", 200),
                post=answers("d", REDIRECT),
                args=on_row,
                data=lambda w: {"post": "yes"},
            ),
            f"{prefix}_history": Row(get=answers("v", 200), post=answers("v", 200), args=on_row),
            # The short address of a row redirects (to its change page) for any staff.
            f"admin:<unnamed admin/{app_label}/{model_name}/<path:object_id>/>": Row(
                get=f"{NOT_STAFF} R R", post=f"{NOT_STAFF} R R", args=on_row
            ),
        }
    if "auth.user" in ADMIN_RIGHTS:
        editor, superuser = ADMIN_RIGHTS["auth.user"]
        rows["admin:auth_user_password_change"] = Row(
            get=f"{NOT_STAFF} 403 200",
            post=f"{NOT_STAFF} 403 200",
            args=lambda w: {"id": w.admin_object("auth.user").pk},
        )
    return rows


MATRIX |= admin_rows()


# The resolver's side: every pattern, with a key that names it.


def walk(patterns, prefix="", namespace=""):
    for entry in patterns:
        route = prefix + str(entry.pattern).lstrip("^")
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from walk(entry.url_patterns, route, inner)
        elif isinstance(entry, URLPattern):
            key = f"{namespace}{entry.name}" if entry.name else f"{namespace}<unnamed {route}>"
            yield key, route


RESOLVED = dict(walk(get_resolver().url_patterns))


def path_for(key, kwargs):
    if "<unnamed " not in key:
        return reverse(key, kwargs=kwargs or None)
    route = RESOLVED[key]
    path = re.sub(
        r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)",
        lambda match: str(kwargs[match[1] or match[2]]),
        route,
    )
    return "/" + path.rstrip("$")


# The world every row is requested in.


class World:
    """A desk with one of everything, each made through the services the app uses."""

    def __init__(self, server):
        #: Serves the pages the capture rows fetch (127.0.0.1, which the test settings allow).
        self.server = server
        self.lead = EditorFactory(username="lead-editor", is_staff=True)
        self.users = {
            "anonymous": None,
            "nobody": UserFactory(username="nobody"),
            "reviewer": ReviewerFactory(username="other-reviewer"),
            "assigned": ReviewerFactory(username="assigned-reviewer"),
            "editor": EditorFactory(username="desk-editor", is_staff=True),
            "superuser": UserFactory(username="root", is_staff=True, is_superuser=True),
        }
        signer = ReviewerFactory(username="signer")
        self.rating = RatingFactory()
        piece = PieceUnderCheckFactory()
        self.piece_version = SourceVersionFactory(source=piece)
        self.primary = SourceFactory()
        self.primary_version = SourceVersionFactory(source=self.primary)
        self.case = CaseFactory(source_under_check=piece, lead_editor=self.lead)
        # A PDF whose quotation (on page 2) is drawn on its page, evidence of the published claim.
        self.pdf = SourceFactory(title="Matrix report (PDF)")
        self.pdf_version, _created = source_version_upload(
            source=self.pdf,
            content=make_text_pdf(
                ["Matrix world, page one.", "Start-up took 467 seconds in the matrix world."]
            ),
            filename="matrix.pdf",
            actor=None,
        )
        self.pdf_version.refresh_from_db()
        self.drawn = self.quote(self.pdf_version, "467 seconds")

        # The claim under review, assigned to "assigned".
        self.claim = self.claim_in_review("1,111 tokens per second", self.users["assigned"])
        self.evidence = self.claim.evidence.get()
        self.assignment = self.claim.assignments.get()
        comment_add(claim=self.claim, author=self.lead, body="Is this the B200 figure?")
        self.spare_quotation = self.quote(self.primary_version, "9.0 seconds after")

        # A published claim in the same case, signed off by another reviewer.
        self.published = self.claim_in_review(
            "Start-up took 467 seconds", signer, also_quoting=self.drawn
        )
        review_decide(
            assignment=self.published.assignments.get(),
            reviewer=signer,
            decision="approved",
            digest_seen=claim_digest(self.published),
        )
        # Published by another editor than the lead, who wrote it (the separation of duties).
        self.published = claim_transition(
            claim=self.published,
            action=Action.PUBLISH,
            actor=EditorFactory(username="publishing-editor"),
        )

        # "reviewer" works on a claim of another case only.
        elsewhere = ClaimFactory(author=self.lead)
        reviewer_assign(claim=elsewhere, reviewer=self.users["reviewer"], editor=self.lead)

        # Corrections at each step.
        self.published_correction = self.correction()
        correction_approve(correction=self.published_correction, approver=signer)
        correction_publish(correction=self.published_correction, editor=self.lead)
        self.approved_correction = self.correction()
        correction_approve(correction=self.approved_correction, approver=signer)
        self.draft_correction = self.correction()

        self.report = report_submit(
            page_url="/corrections/", message="A typo.", address="192.0.2.1", case=self.case
        )

        # A quotation whose words changed in a new version: a re-anchoring to confirm.
        changing = SourceVersionFactory(source=SourceFactory(), text="Alpha says 2.6 times.")
        self.quote(changing, "Alpha says 2.6 times.")
        source_version_create_from_text(
            source=changing.source, text="Alpha says 2.7 times.", actor=None
        )
        self.reanchoring = Reanchoring.objects.get(
            version__source=changing.source, status="changed"
        )

        # A source captured from a web address; its page has not changed since.
        server.page(
            "/captured", b"<html><body><p>A page captured for the matrix.</p></body></html>"
        )
        server.page(
            "/new-page", b"<html><body><p>Another page, fetched by a row.</p></body></html>"
        )
        self.captured = source_capture(
            actor=self.lead, url=server.url("/captured"), title="Captured page"
        )

        # Rows nothing depends on, for the admin's delete pages.
        self.spare_piece = PieceUnderCheckFactory()
        self.spare = {
            "auth.group": Group.objects.create(name="Spare group"),
            "auth.user": UserFactory(username="spare-user"),
            "claims.case": CaseFactory(lead_editor=self.lead),
            "claims.rating": RatingFactory(label="Spare rating", order=9, value=9),
            "sources.source": SourceFactory(),
            "django_tasks_database.dbtaskresult": DBTaskResult.objects.create(
                args_kwargs={"args": [], "kwargs": {}},
                task_path="tests.worker_tasks.record_worker_heartbeat",
                backend_name="default",
                run_after=get_date_max(),
                exception_class_path="",
                traceback="",
            ),
            "factcheck.organisation": Organisation.current(),
            "factcheck.preferences": Preferences.objects.create(
                user=UserFactory(username="spare-preferences"), language="fr"
            ),
            "factcheck.searchentry": SearchEntry.objects.first(),
            "factcheck.auditevent": AuditEvent.objects.first(),
            "claims.claim": self.claim,
            "claims.claimflag": ClaimFlagFactory(claim=self.claim),
            "claims.comment": self.claim.comments.first(),
            "claims.correction": self.draft_correction,
            "claims.errorreport": self.report,
            "claims.evidence": self.evidence,
            "claims.reviewassignment": self.assignment,
            "sources.quotation": self.evidence.quotation,
            "sources.reanchoring": self.reanchoring,
            "sources.quotationpageimage": self.drawn.page_images.get(),
            "sources.sourceversion": self.primary_version,
        }

    def quote(self, version, exact):
        start, end = find_span(version.extracted_text, exact)
        return quotation_create(version=version, start=start, end=end, actor=self.lead)[0]

    def selection(self, version, exact):
        start, end = find_span(version.extracted_text, exact)
        return {"start": start, "end": end, "selected_text": exact}

    def claim_in_review(self, exact, reviewer, also_quoting=None):
        claim = ClaimFactory(
            case=self.case,
            quotation=self.quote(self.piece_version, exact),
            statement=f"The article says: {exact}.",
            verdict=self.rating,
            author=self.lead,
        )
        evidence_add(
            claim=claim,
            quotation=self.quote(self.primary_version, exact),
            stance="supports",
            editor=self.lead,
        )
        if also_quoting is not None:
            evidence_add(claim=claim, quotation=also_quoting, stance="supports", editor=self.lead)
        reviewer_assign(claim=claim, reviewer=reviewer, editor=self.lead)
        return claim_submit_for_review(claim=claim, editor=self.lead)

    def correction(self):
        return correction_draft(
            case=self.case,
            claim=self.published,
            editor=self.lead,
            kind="correction",
            what_was_wrong="We said 467 seconds in total.",
            what_is_right="The listed steps add up to 460 seconds.",
        )

    def admin_object(self, label):
        row = self.spare[label]
        assert row is not None, f"the world has no {label}"
        return row


def snapshot():
    """What a refused request must not change: row counts, the audit trail, key fields."""
    state = {
        model._meta.label: model._default_manager.count()
        for app_label in ("auth", "claims", "sources", "factcheck", "django_tasks_database")
        for model in apps.get_app_config(app_label).get_models()
    }
    state["audit_head"] = AuditEvent.objects.aggregate(head=Max("id"))["head"]
    state["claims"] = list(
        Claim.objects.order_by("pk").values_list(
            "pk", "status", "version", "statement", "verdict_id", "updated_at"
        )
    )
    state["assignments"] = list(
        ReviewAssignment.objects.order_by("pk").values_list("pk", "decision", "signed_digest")
    )
    state["corrections"] = list(
        Correction.objects.order_by("pk").values_list("pk", "status", "approved_by")
    )
    state["reports"] = list(ErrorReport.objects.order_by("pk").values_list("pk", "status"))
    state["reanchorings"] = list(
        Reanchoring.objects.order_by("pk").values_list("pk", "confirmed_at")
    )
    state["sources"] = list(Source.objects.order_by("pk").values_list("pk", "title", "role"))
    state["cases"] = list(Case.objects.order_by("pk").values_list("pk", "title", "status"))
    return state


def audit_trail():
    """Every audit event as stored, to prove that no request changes or removes one."""
    return list(
        AuditEvent.objects.order_by("pk").values_list(
            "pk", "actor_id", "action", "target_type_id", "target_id", "changes", "created_at"
        )
    )


def answer_of(response):
    if response.status_code == 302:
        location = urlsplit(response["Location"])
        login_paths = {reverse("login"), reverse("admin:login")}
        if location.path in login_paths and "next=" in location.query:
            return LOGIN
        return REDIRECT
    return response.status_code


def ask(world, role, method, key, row):
    """Request ``key`` as ``role`` in a savepoint that is rolled back afterwards."""
    cache.clear()  # readers' reports are rate-limited per address
    with transaction.atomic():
        client = Client()
        if world.users[role] is not None:
            client.force_login(world.users[role])
        kwargs = row.args(world) if row.args else {}
        path = path_for(key, kwargs)
        if "<unnamed" not in key:
            assert resolve(path).view_name == key, f"{path} reaches another view"
        payload = row.data if method == "post" else row.query
        before, trail = snapshot(), audit_trail()
        response = getattr(client, method)(path, payload(world) if payload else None)
        answer = answer_of(response)
        changed = answer in REFUSED and snapshot() != before
        rewritten = audit_trail()[: len(trail)] != trail
        transaction.set_rollback(True)
    return path, answer, changed, rewritten


def test_every_url_declares_who_may_use_it():
    missing = sorted(set(RESOLVED) - set(MATRIX))
    stale = sorted(set(MATRIX) - set(RESOLVED))
    assert not missing, f"URLs without a row in MATRIX (say who may use them): {missing}"
    assert not stale, f"MATRIX rows for URLs that no longer exist: {stale}"


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """
    One world for the module, built once inside a transaction that is rolled
    back at its end; every request runs in a savepoint of its own on top.
    """
    with LoopbackServer() as server, django_db_blocker.unblock(), transaction.atomic():
        yield World(server)
        transaction.set_rollback(True)


@pytest.mark.django_db
@pytest.mark.parametrize("key", sorted(RESOLVED))
def test_each_role_gets_the_declared_answer_and_a_refusal_changes_nothing(world, key):
    """
    ...and no request, allowed or refused, changes or removes an audit event
    already written: no URL of the app, the admin's included, edits the trail.
    """
    if key not in MATRIX:
        pytest.fail(f"{key} has no row in MATRIX: declare who may use it")
    row = MATRIX[key]
    wrong = []
    for method in ("get", "post"):
        for role in ROLES:
            path, answer, changed, rewritten = ask(world, role, method, key, row)
            expected = row.answers[method][role]
            if answer != expected:
                wrong.append(f"{method.upper()} {path} as {role}: {answer}, expected {expected}")
            if changed:
                wrong.append(f"{method.upper()} {path} as {role} was refused but changed data")
            if rewritten:
                wrong.append(f"{method.upper()} {path} as {role} changed or removed audit events")
    assert not wrong, "\n".join(wrong)


# The object-level rules, directly.


@pytest.mark.django_db
def test_editors_reach_every_case_and_claim_a_reviewer_only_their_assigned_ones(world):
    every_claim = set(Claim.objects.values_list("pk", flat=True))
    reach = {
        role: set(claims_visible_to(user).values_list("pk", flat=True))
        for role, user in world.users.items()
        if user is not None
    }
    assert reach["editor"] == reach["superuser"] == every_claim
    assert reach["assigned"] == {world.claim.pk}
    assert world.claim.pk not in reach["reviewer"] and len(reach["reviewer"]) == 1
    assert reach["nobody"] == set()
    assert world.case in cases_visible_to(world.users["assigned"])
    assert world.case not in cases_visible_to(world.users["reviewer"])
    assert not cases_visible_to(world.users["nobody"]).exists()


@pytest.mark.django_db
def test_a_reviewer_sees_only_their_claims_in_a_case_with_their_place_in_the_article(world):
    everyone = case_claim_index(world.case)
    theirs = case_claim_index(world.case, world.users["assigned"])

    assert [row["pk"] for row in theirs] == [world.claim.pk]
    assert theirs[0]["number"] == next(r["number"] for r in everyone if r["pk"] == world.claim.pk)
    assert len(case_claim_index(world.case, world.users["editor"])) == len(everyone) == 2


@pytest.mark.django_db
def test_only_the_assigned_reviewer_may_sign_off(world):
    assert can_sign_off(world.users["assigned"], world.assignment)
    for role in ("nobody", "reviewer", "editor", "superuser"):
        assert not can_sign_off(world.users[role], world.assignment), role


@pytest.mark.django_db
def test_nobody_signs_off_their_own_claim_even_if_assigned_around_the_form(world):
    author = world.users["assigned"]
    author.groups.add(Group.objects.get(name="Editor"))
    claim = ClaimFactory(case=world.case, author=author, quotation=world.claim.quotation)
    # Past the model's own check: the service refuses it too.
    assignment = ReviewAssignment.objects.create(claim=claim, reviewer=author)
    Claim.objects.filter(pk=claim.pk).update(status="in_review")

    assert not can_sign_off(author, assignment)
    with pytest.raises(NotAllowed) as refused:
        review_decide(
            assignment=assignment,
            reviewer=author,
            decision="approved",
            digest_seen=claim_digest(claim),
        )
    assert refused.value.code == "own_work"


@pytest.mark.django_db
def test_a_reviewer_who_lost_the_role_can_no_longer_sign_off(world):
    reviewer = world.users["assigned"]
    reviewer.groups.clear()

    with pytest.raises(NotAllowed) as refused:
        review_decide(
            assignment=world.assignment,
            reviewer=reviewer,
            decision="approved",
            digest_seen=claim_digest(world.claim),
        )
    assert refused.value.code == "not_assigned"
    assert ReviewAssignment.objects.get(pk=world.assignment.pk).decision == "pending"


@pytest.mark.django_db
def test_no_one_but_an_assigned_reviewer_takes_a_reviewers_transition(world):
    for role in ("reviewer", "editor", "superuser"):
        with pytest.raises(NotAllowed) as refused:
            claim_transition(
                claim=world.claim, action=Action.REQUEST_CHANGES, actor=world.users[role]
            )
        assert refused.value.code == "not_assigned", role
