"""Reads for the claims app: what the pages list, with their queries bounded."""

import copy
import functools
from collections import Counter
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import (
    Count,
    Exists,
    F,
    FilteredRelation,
    OuterRef,
    Q,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.html import format_html

from claims.models import (
    Claim,
    ClaimStatus,
    Comment,
    Correction,
    Evidence,
    Rating,
    ReviewAssignment,
    own_passage_carried_on,
)
from factcheck.audit import latest_history_for
from factcheck.database import containing_words
from factcheck.prepared import PreparedRead, remember_related
from factcheck.reference_data import kept
from factcheck.roles import (
    EVERY_CLAIM,
    cases_in_reach,
    claim_reach,
    claims_in_reach,
    sees_every_case,
)
from sources.highlighting import cached_marked_part
from sources.models import AnchoringStatus, Quotation, Reanchoring, SourceVersion


class ClaimRow(NamedTuple):
    """
    What a claim's row on the case page shows (``claims/case_detail.html#claim-row``),
    as plain values: read as tuples, with no model instances to build, and keyed
    by the fragment cache (factcheck.fragments) without walking any. A value the
    row shows that is not here cannot be shown.
    """

    pk: int
    statement: str
    claimant: str
    status: str
    needs_attention: str
    rationale: str
    exact: str
    verdict_label: str | None
    #: The claim's number in its case (``Claim.number``), and its case's slug.
    number: int = 0
    case_slug: str = ""

    def get_absolute_url(self):
        return reverse("claims:claim_detail", args=[self.case_slug, self.pk])

    def get_status_display(self):
        # As the model's own: the stored value itself if it is not a choice.
        return _STATUS_LABELS.get(self.status, self.status)


_STATUS_LABELS = dict(ClaimStatus.choices)


def case_list(user=None):
    """Every case (or every case ``user`` may open) with its claim counts, newest first."""
    if user is None:
        return _case_list(EVERY_CLAIM, user_id=0)
    return _case_list(claim_reach(user), user_id=user.pk)


def case_list_rows(user):
    """``case_list(user)`` as a prepared read that ``CountedPaginator`` cuts pages from."""
    return _case_list_rows.sliced(claim_reach(user), user_id=user.pk)


def case_count(user):
    """How many cases ``user`` may open (the case list lists them all)."""
    return _cases_in_reach.count(claim_reach(user), user_id=user.pk)


_cases_in_reach = PreparedRead(
    lambda reach, *, user_id: cases_in_reach(reach, user_id).order_by().values("pk")
)


def _case_list(reach, *, user_id):
    cases = cases_in_reach(reach, user_id)
    # Counted per listed case (a subquery each, run for the page's rows only),
    # not by grouping every claim of the desk before the page is cut; COUNT(*)
    # is answered from the (case, status) index without reading the claims.
    claims = Claim.objects.filter(case=OuterRef("pk")).order_by().values("case")
    return (
        cases.select_related("source_under_check", "lead_editor")
        # What a row of the case list shows (claims/case_list.html#case-row).
        .only(
            "slug",
            "title",
            "status",
            "created_at",
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


_case_list_rows = PreparedRead(_case_list)


_case_with_people = PreparedRead(
    lambda reach, *, slug, user_id: (
        cases_in_reach(reach, user_id)
        .filter(slug=slug)
        .select_related("source_under_check", "lead_editor")
    )
)


def case_in_reach(slug, user):
    """
    The case ``slug`` with its piece under check and its lead editor, if
    ``user`` may open it (``cases_visible_to``); else Case.DoesNotExist.
    """
    return _case_with_people.one(claim_reach(user), slug=slug, user_id=user.pk or 0)


#: What the case page shows of the piece's current version: all but its text, which
#: can run to megabytes (a cached rendering stands in for it).
_PIECE_VERSION_FIELDS = tuple(
    field.attname for field in SourceVersion._meta.concrete_fields if field.name != "extracted_text"
)


def _case_with_piece(reach, *, slug, user_id):
    current = (
        SourceVersion.objects.filter(source_id=OuterRef("source_under_check_id"))
        .current_first()
        .values("pk")[:1]
    )
    # Django cannot defer a field through a FilteredRelation's select_related: the
    # version's columns are read as annotations instead, and made a version again.
    return _case_with_people.build(reach, slug=slug, user_id=user_id).annotate(
        piece_version=FilteredRelation(
            "source_under_check__versions",
            condition=Q(source_under_check__versions__pk=Subquery(current)),
        ),
        **{f"piece_version_{name}": F(f"piece_version__{name}") for name in _PIECE_VERSION_FIELDS},
    )


_case_with_piece_version = PreparedRead(_case_with_piece)


def case_with_piece_in_reach(slug, user):
    """
    ``(case, version)``: ``case_in_reach``, and the piece's current version
    (``SourceVersionQuerySet.current_first``; None before an upload), its text
    left in the database, read in the same query.
    """
    case = _case_with_piece_version.one(claim_reach(user), slug=slug, user_id=user.pk or 0)
    values = [case.__dict__.pop(f"piece_version_{name}") for name in _PIECE_VERSION_FIELDS]
    if values[_PIECE_VERSION_FIELDS.index(SourceVersion._meta.pk.attname)] is None:
        return case, None
    return case, SourceVersion.from_db(case._state.db, _PIECE_VERSION_FIELDS, values)


def case_claim_index(case, user=None):
    """
    Every claim of ``case`` in the order the article makes them, as light
    rows (dicts of ``pk``, ``number``, ``statement``, ``status``,
    ``verdict_id`` and the quotation's ``start``, ``end`` and ``version_id``):
    enough to filter the list, number it and mark the article without loading
    the claims themselves. With ``user``, only the claims within their reach
    (``claims_visible_to``) are listed.
    """
    rows = _claim_index_rows(case_id=case.pk)
    if user is not None and not sees_every_case(user):
        visible = set(_claim_ids_in_reach(claim_reach(user), case_id=case.pk, user_id=user.pk))
        rows = [row for row in rows if row["pk"] in visible]
    return rows


_claim_index_rows = PreparedRead(
    lambda *, case_id: (
        Claim.objects.filter(case_id=case_id)
        .order_by("quotation__start", "quotation__end", "id")
        .values(
            "pk",
            "number",
            "statement",
            "status",
            "verdict_id",
            start=F("quotation__start"),
            end=F("quotation__end"),
            version_id=F("quotation__version_id"),
        )
    )
)
_claim_ids_in_reach = PreparedRead(
    lambda reach, *, case_id, user_id: (
        claims_in_reach(reach, user_id).filter(case_id=case_id).values_list("pk", flat=True)
    )
)


def claims_reviewed_by(case, reviewer_id):
    """The ids of ``case``'s claims that ``reviewer_id`` is assigned to review."""
    return set(
        ReviewAssignment.objects.filter(claim__case=case, reviewer_id=reviewer_id).values_list(
            "claim_id", flat=True
        )
    )


def claims_for_rows(case, rows):
    """
    A ``ClaimRow`` for each claim of ``case`` that ``rows`` (from
    ``case_claim_index``) list, in that order, numbered.
    """
    place = {row["pk"]: (index, row["number"]) for index, row in enumerate(rows)}
    claims = [
        ClaimRow(*values, number=place[values[0]][1], case_slug=case.slug)
        for values in _claim_row_values(pks=tuple(place))
    ]
    claims.sort(key=lambda claim: place[claim.pk][0])
    return claims


_claim_row_values = PreparedRead(
    lambda *, pks: (
        Claim.objects.filter(pk__in=pks)
        # Sorted by the caller, in the index's order: the model's ordering would join the case and
        # the quotation into a sort that is thrown away (and planning it costs more
        # than the rows).
        .order_by()
        # In ClaimRow's order.
        .values_list(
            "pk",
            "statement",
            "claimant",
            "status",
            "needs_attention",
            "rationale",
            "quotation__exact",
            "verdict__label",
        )
    )
)


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
                    '<a class="claim-ref" href="{}" aria-label="Claim {}" title="{}">{}</a>',
                    reverse("claims:claim_detail", args=[case.slug, row["pk"]]),
                    row["number"],
                    row["statement"],
                    row["number"],
                ),
            )
            for row in rows
        ]

    key = (case.slug, [(r["start"], r["end"], r["pk"], r["number"], r["statement"]) for r in rows])
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


def assignment_count(user):
    """How many review assignments ``user`` has (My reviews lists them all with ``?show=all``)."""
    return _assignments_of.count(reviewer_id=user.pk)


_assignments_of = PreparedRead(
    lambda *, reviewer_id: (
        ReviewAssignment.objects.filter(reviewer_id=reviewer_id).order_by().values("pk")
    )
)


def reviews_for(user, *, awaiting_only=False):
    """
    The review assignments of ``user``: undecided ones first (overdue ones at
    the top, as they have the earliest due dates), then decided ones. With
    ``awaiting_only``, only those awaiting their decision (undecided, of a
    claim in review), the ones ``open_review_count`` counts.
    """
    return _reviews_for(awaiting_only, reviewer_id=user.pk)


def review_rows(user, *, awaiting_only=False):
    """``reviews_for(user)`` as a prepared read that ``CountedPaginator`` cuts pages from."""
    return _review_rows.sliced(awaiting_only, reviewer_id=user.pk)


def _reviews_for(awaiting_only, *, reviewer_id):
    assignments = ReviewAssignment.objects.filter(reviewer_id=reviewer_id)
    # Undecided first, by due date. Not "in review first": ordering by the claim's
    # status sorts all of a busy reviewer's assignments on every page (8 → 18 ms on
    # the scale dataset) where the assignments' own index hands out one page; the
    # ones in review have a list of their own, read in the order of the index on
    # undecided assignments (assignment_awaiting_by_due).
    order = [F("due_on").asc(nulls_last=True), "assigned_at", "id"]
    if awaiting_only:
        assignments = assignments.filter(
            decided_at__isnull=True, claim__status=ClaimStatus.IN_REVIEW
        )
    else:
        order.insert(0, F("decided_at").desc(nulls_first=True))
    return (
        assignments.select_related("claim__case")
        # What a row of My reviews shows (claims/my_reviews.html#assignment-row); the
        # assignment's columns are all in the index assignment_awaiting_by_due.
        .only("due_on", "decision", "claim__statement", "claim__status", "claim__case__title")
        .order_by(*order)
    )


_review_rows = PreparedRead(_reviews_for)


@functools.cache
def _open_review_count_sql():
    tables = {
        "assignment": connection.ops.quote_name(ReviewAssignment._meta.db_table),
        "claim": connection.ops.quote_name(Claim._meta.db_table),
    }
    # Undecided is decided_at null (a constraint says so): two partial indexes answer it.
    # The status is written into the text, not passed: a prepared statement's generic
    # plan cannot use the index on claims in review for a parameter, so PostgreSQL would
    # plan the query afresh on every page (1 ms, against 0.02 ms to run it). Only quoted
    # table names and that constant (a plain word of the model's choices) go into the text.
    return (  # noqa: S608
        "SELECT COUNT(*) FROM {assignment} a JOIN {claim} c ON c.id = a.claim_id "
        "WHERE a.reviewer_id = %s AND a.decided_at IS NULL AND c.status = '{in_review}'"
    ).format(**tables, in_review=ClaimStatus.IN_REVIEW.value)


def open_review_count(user):
    """
    How many claims in review wait for ``user``'s decision (shown in the
    navigation, so on every page: plain SQL, which costs a fraction of building
    the same query with the ORM each time).
    """
    if not user.is_authenticated:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(_open_review_count_sql(), [user.pk])
        return cursor.fetchone()[0]


def _claim_shown(reach, *, user_id, **lookup):
    """The claim ``lookup`` finds within ``reach``, with what its page shows of it."""
    return (
        claims_in_reach(reach, user_id)
        .filter(**lookup)
        .select_related("quotation__version__source", "verdict", "author")
        # The versions' texts (up to megabytes each) are not shown: never fetch them.
        .defer("quotation__version__extracted_text")
        # Whether to read its retraction (Claim.retraction): rarely, so not by a join.
        .annotate(
            is_retracted=Exists(
                Correction.objects.published_retractions().filter(claim=OuterRef("pk"))
            ),
            passage_out_of_date=Exists(own_passage_carried_on(OuterRef("quotation_id"))),
        )
    )


# The claim page's reads, the same on every request: compiled once (see
# factcheck.prepared), which saves most of the page's time in the ORM.
_claim_of_case = PreparedRead(
    lambda reach, *, case_id, pk, user_id: _claim_shown(
        reach, user_id=user_id, case_id=case_id, pk=pk
    )
)
# With its case, for the page opened by its address: one round trip fewer. A claim
# within reach is of a case within reach (factcheck.roles.cases_in_reach).
_claim_with_case = PreparedRead(
    lambda reach, *, slug, pk, user_id: _claim_shown(
        reach, user_id=user_id, case__slug=slug, pk=pk
    ).select_related("case__source_under_check", "case__lead_editor")
)
_evidence_of_claim = PreparedRead(
    lambda *, claim_id: (
        Evidence.objects.filter(claim_id=claim_id)
        .select_related("quotation__version__source", "added_by")
        .defer("quotation__version__extracted_text")
        .order_by("added_at", "id")
    )
)
_assignments_of_claim = PreparedRead(
    lambda *, claim_id: (
        ReviewAssignment.objects.filter(claim_id=claim_id)
        .select_related("reviewer", "assigned_by")
        .order_by("assigned_at", "id")
    )
)
_comments_on_claim = PreparedRead(
    lambda *, claim_id: (
        Comment.objects.filter(claim_id=claim_id)
        .select_related("author")
        .order_by("created_at", "id")
    )
)


def claim_for_page(case, pk, user=None):
    """
    The claim of ``case`` with everything its page shows, in a fixed number of
    queries; with ``user``, Claim.DoesNotExist unless it is within their reach.
    ``case`` becomes ``claim.case``: select its ``source_under_check`` with it.
    Its evidence, assignments and comments are read as ``prefetch_related``
    would keep them (``claim.evidence.all()`` runs no query).
    """
    reach = EVERY_CLAIM if user is None else claim_reach(user)
    user_id = 0 if user is None else user.pk
    claim = _claim_of_case.one(reach, case_id=case.pk, pk=pk, user_id=user_id)
    claim.case = case
    return _with_its_lists(claim)


def claim_at(slug, pk, user):
    """
    ``claim_for_page`` for the claim ``pk`` of the case ``slug``, its case (with
    its piece under check and lead editor) read with it; Claim.DoesNotExist
    unless ``user`` may open it.
    """
    reach = claim_reach(user)
    return _with_its_lists(_claim_with_case.one(reach, slug=slug, pk=pk, user_id=user.pk or 0))


def _with_its_lists(claim):
    remember_related(claim, "evidence", _evidence_of_claim(claim_id=claim.pk))
    remember_related(claim, "assignments", _assignments_of_claim(claim_id=claim.pk))
    remember_related(claim, "comments", _comments_on_claim(claim_id=claim.pk))
    return claim


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
    # Ratings and names seldom change: kept between their changes (factcheck/reference_data.py).
    choices = {
        "verdicts": [
            copy.copy(rating) for rating in kept("ratings", "in order", _verdicts, model=Rating)
        ],
        "reviewers": [],
    }
    if reviewers:
        names = kept("accounts", "names", _user_names, model=get_user_model())
        # One deleted since its assignments were read has none left.
        shown = sorted(
            (names[pk][0].casefold(), pk)
            for pk in _reviewer_ids_of_case(case_id=case.pk)
            if pk in names
        )
        choices["reviewers"] = [(str(pk), names[pk][1]) for _username, pk in shown]
    return choices


_reviewer_ids_of_case = PreparedRead(
    lambda *, case_id: (
        ReviewAssignment.objects.filter(claim__case_id=case_id)
        .order_by()
        .values_list("reviewer_id", flat=True)
        .distinct()
    )
)
_verdicts = PreparedRead(lambda: Rating.objects.order_by("order"))


def _user_names():
    """``{id: (username, name shown)}`` of every user: a few hundred at a national desk."""
    return {
        pk: (username, f"{first_name} {last_name}".strip() or username)
        for pk, username, first_name, last_name in get_user_model().objects.values_list(
            "pk", "username", "first_name", "last_name"
        )
    }
