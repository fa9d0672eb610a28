"""Reads for the claims app: what the pages list, with their queries bounded."""

import hashlib
from collections import Counter

from django.contrib.auth import get_user_model
from django.db.models import (
    Count,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Subquery,
    prefetch_related_objects,
)
from django.db.models.functions import Coalesce, Lower
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from claims.models import (
    Claim,
    ClaimFlag,
    ClaimStatus,
    Comment,
    Correction,
    Evidence,
    Rating,
    ReviewAssignment,
    own_passage_carried_on,
)
from factcheck.audit import latest_history_for
from factcheck.people import display_name
from factcheck.roles import (
    cases_in_reach,
    claim_reach,
    claims_in_reach,
    sees_every_case,
)
from factcheck.text_match import containing_words
from sources.highlighting import cached_marked_part
from sources.models import AnchoringStatus, Quotation, Reanchoring, Source, SourceVersion
from sources.page_images import drawn_pages, drawn_pages_of
from sources.selectors import source_reader


def case_list(user):
    """Every case ``user`` may open, with its claim counts, newest first."""
    # Counted per listed case (a subquery each, run for the page's rows only),
    # not by grouping every claim of the desk before the page is cut; COUNT(*)
    # is answered from the (case, status) index without reading the claims.
    claims = Claim.objects.filter(case=OuterRef("pk")).order_by().values("case")
    return (
        cases_in_reach(claim_reach(user), user.pk)
        .select_related("source_under_check", "lead_editor")
        # What a row of the case list shows (claims/case_list.html#case-row).
        .only(
            "slug",
            "title",
            "status",
            "created_at",
            "updated_at",
            "source_under_check__title",
            "lead_editor__username",
            "lead_editor__first_name",
            "lead_editor__last_name",
        )
        .annotate(
            # A case without claims has no group: its subquery is NULL, so Coalesce to 0.
            claim_count=Coalesce(Subquery(claims.annotate(n=Count("*")).values("n")), 0),
            published_count=Coalesce(
                Subquery(
                    claims.filter(status=ClaimStatus.PUBLISHED).annotate(n=Count("*")).values("n")
                ),
                0,
            ),
        )
        .order_by("-created_at", "-id")
    )


def case_in_reach(slug, user):
    """
    The case ``slug`` with its piece under check and its lead editor, if
    ``user`` may open it (``cases_visible_to``); else Case.DoesNotExist.
    """
    return (
        cases_in_reach(claim_reach(user), user.pk or 0)
        .select_related("source_under_check", "lead_editor")
        .get(slug=slug)
    )


def case_with_piece_in_reach(slug, user):
    """
    ``(case, version)``: ``case_in_reach``, and the piece's current version
    (``SourceVersionQuerySet.current_first``; None before an upload), its text
    left in the database.
    """
    case = case_in_reach(slug, user)
    version = (
        SourceVersion.objects.filter(source_id=case.source_under_check_id)
        .current_first()
        .without_text()
        .first()
    )
    return case, version


def case_claim_index(case, user=None):
    """
    Every claim of ``case`` in the order the article makes them, as light
    rows (dicts of ``pk``, ``number``, ``statement``, ``status``,
    ``verdict_id`` and the quotation's ``start``, ``end`` and ``version_id``):
    enough to filter the list, number it and mark the article without loading
    the claims themselves. With ``user``, only the claims within their reach
    (``claims_visible_to``) are listed.
    """
    rows = (
        Claim.objects.filter(case=case)
        .order_by("quotation__start", "quotation__end", "id")
        .values(
            "pk",
            "number",
            "statement",
            "status",
            "verdict_id",
            "updated_at",
            "quotation_id",
            verdict_changed=F("verdict__updated_at"),
            start=F("quotation__start"),
            end=F("quotation__end"),
            version_id=F("quotation__version_id"),
        )
    )
    if user is not None and not sees_every_case(user):
        rows = rows.filter(pk__in=claims_in_reach(claim_reach(user), user.pk).values("pk"))
    return list(rows)


def claims_reviewed_by(case, reviewer_id):
    """The ids of ``case``'s claims that ``reviewer_id`` is assigned to review."""
    return set(
        ReviewAssignment.objects.filter(claim__case=case, reviewer_id=reviewer_id).values_list(
            "claim_id", flat=True
        )
    )


def claims_for_rows(case, rows):
    """
    The claims of ``case`` that ``rows`` (from ``case_claim_index``) list, in
    that order, with what a row of the case page shows of each.
    """
    place = {row["pk"]: index for index, row in enumerate(rows)}
    claims = list(
        Claim.objects.filter(pk__in=place)
        # Sorted here, in the index's order: the model's ordering would join the
        # case and the quotation into a sort that is thrown away.
        .order_by()
        .select_related("quotation", "verdict")
        .only(
            "number",
            "case_id",
            "statement",
            "claimant",
            "status",
            "rationale",
            "quotation__exact",
            "verdict__label",
        )
        .prefetch_related(_open_flags())
    )
    for claim in claims:
        claim.case = case
    claims.sort(key=lambda claim: place[claim.pk])
    return claims


def claim_rows_key(case, rows):
    """
    A digest of everything the case page shows of the claims that ``rows``
    (from ``case_claim_index``) list: a ``{% cache %}`` key that changes
    whenever one of them is edited, moves on in the workflow, gets a new verdict
    wording, or gains or loses a flag (whose message names its source's title).
    Read without loading the claims, so that a page whose rows are kept loads none.
    """
    flags = (
        ClaimFlag.objects.open()
        .filter(claim_id__in=[row["pk"] for row in rows])
        .order_by("pk")
        .values_list("claim_id", "pk", "version__source__updated_at")
    )
    shown = [
        (row["pk"], row["number"], row["updated_at"], row["quotation_id"], row["verdict_changed"])
        for row in rows
    ]
    # The case's language is the quotations' ``lang``.
    key = (case.pk, case.slug, case.language, shown, list(flags))
    return hashlib.sha256(repr(key).encode()).hexdigest()


def case_marked_part(case, version, rows, *, at=0):
    """
    The part of the piece under check (``version``) that holds the offset
    ``at`` (a ``TextPart``, see ``cached_marked_part``), each claim's quotation
    marked and preceded by a link to the claim, numbered by its ``number``;
    cached per version and set of claims, so a visit reads one part. A
    withdrawn claim is no longer part of the check: it stays in the list, not
    in the piece.
    """
    rows = [
        row
        for row in rows
        if row["version_id"] == version.pk and row["status"] != ClaimStatus.WITHDRAWN
    ]

    def spans():
        return [
            (
                row["start"],
                row["end"],
                format_html(
                    '<a class="claim-ref" href="{}" aria-label="{}" title="{}">{}</a>',
                    reverse("claims:claim_detail", args=[case.slug, row["pk"]]),
                    _("Claim %(number)s") % {"number": row["number"]},
                    row["statement"],
                    row["number"],
                ),
            )
            for row in rows
        ]

    # The links' labels are in the reader's language: a part cached in one is not for another.
    key = (
        get_language(),
        case.slug,
        [(r["start"], r["end"], r["pk"], r["number"], r["statement"]) for r in rows],
    )
    return cached_marked_part(version, spans, mark_class="claim-mark", at=at, key=key)


def claim_status_summary(case, *, index=None):
    """
    ``[(status, label, count)]`` for every claim status, in workflow order.
    ``index``, if given, is the case's whole ``case_claim_index`` (every claim):
    counted from it instead of by a query.
    """
    if index is not None:
        counts = Counter(row["status"] for row in index)
    else:
        counts = dict(
            Claim.objects.filter(case=case)
            .order_by()  # the model's ordering would join quotations into the GROUP BY
            .values_list("status")
            .annotate(count=Count("id"))
            .values_list("status", "count")
        )
    return [(value, label, counts.get(value, 0)) for value, label in ClaimStatus.choices]


def reviews_for(user, *, awaiting_only=False):
    """
    The review assignments of ``user``: undecided ones first (overdue ones at
    the top, as they have the earliest due dates), then decided ones. With
    ``awaiting_only``, only those awaiting their decision (undecided, of a
    claim in review), the ones ``open_review_count`` counts.
    """
    assignments = ReviewAssignment.objects.filter(reviewer=user)
    # Undecided first, by due date. Not "in review first": ordering by the claim's
    # status sorts all of a busy reviewer's assignments on every page, where the
    # assignments' own index hands out one page; the ones in review have a list of
    # their own, read in the order of the index on undecided assignments
    # (assignment_awaiting_by_due).
    order = [F("due_on").asc(nulls_last=True), "assigned_at", "id"]
    if awaiting_only:
        assignments = assignments.filter(
            decided_at__isnull=True, claim__status=ClaimStatus.IN_REVIEW
        )
    else:
        order.insert(0, F("decided_at").desc(nulls_first=True))
    return (
        assignments.select_related("claim__case")
        # What a row of My reviews shows (claims/my_reviews.html#assignment-row).
        .only("due_on", "decision", "claim__statement", "claim__status", "claim__case__title")
        .order_by(*order)
    )


def open_review_count(user):
    """How many claims in review wait for ``user``'s decision (the menu shows it)."""
    if not user.is_authenticated:
        return 0
    # Undecided is decided_at null (a constraint says so): a partial index answers it.
    return ReviewAssignment.objects.filter(
        reviewer=user, decided_at__isnull=True, claim__status=ClaimStatus.IN_REVIEW
    ).count()


def _claims_shown(user):
    """The claims within ``user``'s reach (all without one), with what their page shows."""
    claims = Claim.objects.all() if user is None else claims_in_reach(claim_reach(user), user.pk)
    return (
        claims.select_related("quotation__version__source", "verdict", "author")
        # The versions' texts (up to megabytes each) are not shown: never fetch them.
        .defer("quotation__version__extracted_text")
        .annotate(
            # Whether to read its retraction (Claim.retraction): rarely, so not by a join.
            is_retracted=Exists(
                Correction.objects.published_retractions().filter(claim=OuterRef("pk"))
            ),
            passage_out_of_date=Exists(own_passage_carried_on(OuterRef("quotation_id"))),
        )
        .prefetch_related(
            Prefetch(
                "evidence",
                queryset=Evidence.objects.select_related("quotation__version__source", "added_by")
                .defer("quotation__version__extracted_text")
                .order_by("added_at", "id"),
            ),
            Prefetch(
                "assignments",
                queryset=ReviewAssignment.objects.select_related(
                    "reviewer", "assigned_by"
                ).order_by("assigned_at", "id"),
            ),
            Prefetch(
                "comments",
                queryset=Comment.objects.select_related("author").order_by("created_at", "id"),
            ),
            _open_flags(),
        )
    )


def _open_flags():
    """A claim's open review flags as ``claim.open_flags``, with what their messages name."""
    return Prefetch(
        "flags",
        queryset=ClaimFlag.objects.open()
        .select_related("quotation", "version__source", "reanchoring__new_quotation")
        .defer("version__extracted_text"),
        to_attr="open_flags",
    )


def claim_for_page(case, pk, user=None):
    """
    The claim ``pk`` of ``case`` with everything its page shows, in a fixed
    number of queries; with ``user``, Claim.DoesNotExist unless it is within
    their reach. ``case`` becomes ``claim.case``.
    """
    claim = _claims_shown(user).get(case=case, pk=pk)
    claim.case = case
    return claim


def with_evidence_pages(claim):
    """
    ``claim`` with the pages its evidence quotations are drawn on, as each
    quotation's ``drawn_pages`` (``sources.page_images``): one query for all.
    """
    prefetch_related_objects([claim], drawn_pages_of("evidence__quotation"))
    return claim


def published_evidence_page(slug, pk, quotation_pk, page):
    """
    The drawn page ``page`` of the quotation ``quotation_pk``, if it is evidence
    of the claim ``pk`` of the case ``slug`` and that claim is published; else
    QuotationPageImage.DoesNotExist. What the public claim page shows, and no more.
    """
    relied_on = Evidence.objects.filter(
        quotation_id=OuterRef("quotation_id"),
        claim_id=pk,
        claim__case__slug=slug,
        claim__status=ClaimStatus.PUBLISHED,
    )
    return drawn_pages().filter(Exists(relied_on)).get(quotation_id=quotation_pk, page=page)


def claim_at(slug, pk, user):
    """
    ``claim_for_page`` for the claim ``pk`` of the case ``slug``, its case (with
    its piece under check and lead editor) read with it; Claim.DoesNotExist
    unless ``user`` may open it.
    """
    # A claim within reach is of a case within reach (factcheck.roles.cases_in_reach).
    return (
        _claims_shown(user)
        .select_related("case__source_under_check", "case__lead_editor")
        .get(case__slug=slug, pk=pk)
    )


def claim_history(claim):
    """The claim's audit events, newest first."""
    return latest_history_for(claim, 200)


def quotations_for_evidence(case, query, limit=20):
    """
    ``(quotations, more)``: up to ``limit`` quotations whose words contain
    ``query``, of any source but the piece under check, and whether more match.
    Those of the sources that ``case`` already cites (evidence of any of its
    claims) come first, marked ``cited_in_case``; then the rest, each by source
    title and place. Left out: a quotation carried on to a newer version of its
    source (or gone from it), whose current form is listed instead, and a
    changed passage that nobody has confirmed yet, which nothing may rely on.
    """
    cited = set(
        Evidence.objects.filter(claim__case=case)
        .order_by()
        .values_list("quotation__version__source_id", flat=True)
        .distinct()
    )
    matching = (
        containing_words(
            Quotation.objects.exclude(version__source=case.source_under_check_id), "exact", query
        )
        .exclude(Exists(Reanchoring.objects.filter(quotation_id=OuterRef("pk"))))
        .exclude(
            Exists(
                Reanchoring.objects.filter(
                    new_quotation_id=OuterRef("pk"),
                    status=AnchoringStatus.CHANGED,
                    confirmed_at__isnull=True,
                )
            )
        )
        .select_related("version__source")
        .defer("version__extracted_text")
        .order_by("version__source__title", "version__source_id", "start", "id")
    )
    # Two reads, each in the order an index of titles can give, so that each stops
    # at the rows it needs: sorting every match by "cited" first read them all.
    found = list(matching.filter(version__source_id__in=cited)[: limit + 1]) if cited else []
    for quotation in found:
        quotation.cited_in_case = True
    if len(found) <= limit:
        found += matching.exclude(version__source_id__in=cited)[: limit + 1 - len(found)]
    return found[:limit], len(found) > limit


def case_filter_choices(case, *, reviewers=True):
    """
    The verdicts and the reviewers (``(id as text, name)``, by username, as
    the filter's options carry them) that ``case``'s claim list can be
    filtered by; no reviewers without ``reviewers`` (a reviewer's list holds
    only their claims).
    """
    choices = {"verdicts": list(Rating.objects.order_by("order")), "reviewers": []}
    if reviewers:
        people = (
            get_user_model()
            .objects.filter(
                pk__in=ReviewAssignment.objects.filter(claim__case=case).values("reviewer_id")
            )
            .order_by(Lower("username"), "pk")
        )
        choices["reviewers"] = [(str(person.pk), display_name(person)) for person in people]
    return choices


def sources_for_evidence(case, query="", *, limit=20):
    """
    ``(sources, more)``: up to ``limit`` sources that a claim of ``case`` may
    quote as evidence (any but its piece under check), whose title contains the
    words ``query`` (all of them without it), and whether more match. Those the
    case already cites come first, marked ``cited_in_case``; then the rest by title.
    """
    cited = set(
        Evidence.objects.filter(claim__case=case)
        .order_by()
        .values_list("quotation__version__source_id", flat=True)
        .distinct()
    )
    candidates = Source.objects.exclude(pk=case.source_under_check_id).order_by("title", "pk")
    if query.split():
        candidates = containing_words(candidates, "title", query)
    found = list(candidates.filter(pk__in=cited)[: limit + 1]) if cited else []
    for source in found:
        source.cited_in_case = True
    if len(found) <= limit:
        found += candidates.exclude(pk__in=cited)[: limit + 1 - len(found)]
    return found[:limit], len(found) > limit


def evidence_reader(case, source, *, at=0):
    """
    A source's current text as the claim page shows it beside a claim of
    ``case``, to quote evidence from: the source page's reader (``source_reader``:
    the current version and the part holding the offset ``at``). ``None`` for
    the piece under check itself, which is never evidence.
    """
    if source.pk == case.source_under_check_id:
        return None
    reader = source_reader(source, at=at)
    return {
        "source": source,
        "version": reader["current"],
        "part": reader["part"],
        "marked_text": reader["marked_text"],
    }
