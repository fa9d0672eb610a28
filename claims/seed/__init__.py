"""
The first case that ships with the app, seeded by ``manage.py seed_first_case``.

Seeding is idempotent: every row is looked up by its natural key (the article's
SHA-256, a source's title, the case's slug, a quotation's span, a claim's
quotation and statement) before it is created, so running it again changes
nothing.
"""

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from claims.models import Case, Claim
from claims.seed import first_case
from claims.services import case_create, claim_create
from sources.models import Source, SourceRole, SourceVersion
from sources.services import (
    find_span,
    quotation_create,
    source_create,
    source_version_create_from_text,
)

ARTICLE_PATH = Path(__file__).with_name(first_case.ARTICLE_FILENAME)


@dataclass
class SeedResult:
    case: Case
    created_sources: int = 0
    created_claims: int = 0


def article_text():
    """The article exactly as shipped: read as bytes, decoded as UTF-8, no newline changes."""
    return ARTICLE_PATH.read_bytes().decode("utf-8")


@transaction.atomic
def seed_first_case(*, lead_editor=None):
    """
    Create the first case, its sources and its claims, unless they exist already.
    The claims' author is the case's lead editor (``lead_editor`` for a new case),
    or nobody (the system) for a case without one.
    """
    result_counts = {"sources": 0, "claims": 0}
    text = article_text()
    article_version = _article_version(text, result_counts)

    for cited in first_case.CITED_SOURCES:
        fields = {key: value for key, value in cited.items() if key != "key"}
        if not Source.objects.filter(title=fields["title"]).exists():
            source_create(actor=None, **fields)
            result_counts["sources"] += 1

    case = Case.objects.filter(slug=first_case.CASE["slug"]).first()
    if case is None:
        case = case_create(
            **first_case.CASE,
            source_under_check=article_version.source,
            lead_editor=lead_editor,
            actor=None,
        )

    for spec in first_case.CLAIMS:
        # By its statement: once the piece has a newer version, its claims quote that one.
        if Claim.objects.filter(case=case, statement=spec["statement"]).exists():
            continue
        start, end = find_span(text, spec["quote"], spec.get("occurrence", 1))
        quotation, _created = quotation_create(
            version=article_version, start=start, end=end, actor=None
        )
        claim_create(
            case=case,
            quotation=quotation,
            statement=spec["statement"],
            claimant=spec["claimant"],
            rationale=first_case.seeded_rationale(spec),
            # The lead editor answers for the seeded claims, so the separation of duties
            # (claims.workflow.own_work_refusal) treats them as their work: they do not
            # review or publish them. Without a lead editor, the system made them (no author).
            author=case.lead_editor,
        )
        result_counts["claims"] += 1

    return SeedResult(
        case=case,
        created_sources=result_counts["sources"],
        created_claims=result_counts["claims"],
    )


def _article_version(text, result_counts):
    existing = (
        SourceVersion.objects.filter(
            sha256=SourceVersion.digest(text.encode("utf-8")),
            source__role=SourceRole.UNDER_CHECK,
        )
        .select_related("source")
        .first()
    )
    if existing:
        return existing
    source = source_create(actor=None, role=SourceRole.UNDER_CHECK, **first_case.ARTICLE_SOURCE)
    result_counts["sources"] += 1
    version, _created = source_version_create_from_text(
        source=source, text=text, actor=None, original_filename=first_case.ARTICLE_FILENAME
    )
    return version
