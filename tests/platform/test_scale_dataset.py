"""The scale dataset: bulk-inserted rows that are what the services would have made."""

import hashlib
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from bench.scale import BUSY_CASE_SLUG, BUSY_REVIEWER, ScaleOptions, make_scale_dataset
from bench.scale import main as scale_command_line
from claims.corrections import verify_chain
from claims.models import Case, Claim, ClaimStatus, Correction, Decision, ReviewAssignment
from claims.workflow import claim_digest
from factcheck.models import SearchEntry
from factcheck.roles import EDITOR, REVIEWER
from factcheck.search import chunk_text, search
from sources.models import QUOTATION_CONTEXT_CHARS, Quotation, SourceVersion

pytestmark = pytest.mark.django_db

SMALL = ScaleOptions(
    cases=3,
    claims=40,
    sources=10,
    users=10,
    quotations=90,
    corrections=30,
    large_sources=1,
    min_kb=2,
    max_kb=4,
    large_kb=24,
)


@pytest.fixture
def dataset():
    return make_scale_dataset(SMALL)


def test_the_counts_asked_for_are_written(dataset):
    assert dataset.counts["cases"] == Case.objects.count() == SMALL.cases
    assert dataset.counts["claims"] == Claim.objects.count() == SMALL.claims
    assert SourceVersion.objects.count() == SMALL.sources
    assert Quotation.objects.count() == SMALL.quotations
    assert Correction.objects.filter(status="published").count() == SMALL.corrections
    User = get_user_model()
    assert User.objects.filter(groups__name=EDITOR).count() >= 2
    assert User.objects.filter(groups__name=REVIEWER).count() >= 2


def test_every_quotation_is_its_versions_text_at_its_offsets(dataset):
    for quotation in Quotation.objects.select_related("version"):
        text = quotation.version.extracted_text
        quotation.check_matches_source()
        assert (
            quotation.prefix
            == text[max(0, quotation.start - QUOTATION_CONTEXT_CHARS) : quotation.start]
        )
        assert quotation.suffix == text[quotation.end : quotation.end + QUOTATION_CONTEXT_CHARS]


def test_claims_quote_their_piece_under_check_and_evidence_the_cited_sources(dataset):
    for claim in Claim.objects.select_related("case", "quotation__version"):
        assert claim.quotation.version.source_id == claim.case.source_under_check_id
        for item in claim.evidence.select_related("quotation__version"):
            assert item.quotation.version.source_id != claim.case.source_under_check_id


def test_every_stored_file_has_the_digest_and_text_its_version_records(dataset):
    sizes = []
    for version in SourceVersion.objects.all():
        with version.file.open("rb") as stored:
            content = stored.read()
        assert hashlib.sha256(content).hexdigest() == version.sha256
        assert len(content) == version.byte_size
        assert content.decode("utf-8") == version.extracted_text
        assert version.is_ready
        sizes.append(version.byte_size)
    assert max(sizes) >= SMALL.large_kb * 1024
    assert min(sizes) >= SMALL.min_kb * 1024


def test_the_published_corrections_form_a_chain_that_verifies(dataset):
    report = verify_chain()

    assert report.ok, report.problem
    assert report.checked == SMALL.corrections
    call_command("verify_corrections")


def test_reviews_in_every_state_and_sign_offs_carry_the_approved_digest(dataset):
    decisions = set(ReviewAssignment.objects.values_list("decision", flat=True))
    assert decisions == set(Decision.values)
    assert any(assignment.is_overdue for assignment in ReviewAssignment.objects.all())
    statuses = set(Claim.objects.values_list("status", flat=True))
    assert statuses == set(ClaimStatus.values)
    corrected = set(Correction.objects.exclude(new_verdict=None).values_list("claim", flat=True))
    approvals = ReviewAssignment.objects.filter(decision=Decision.APPROVED).exclude(
        claim__in=corrected
    )
    assert approvals.exists()
    for assignment in approvals.select_related(
        "claim__verdict", "claim__quotation__version__source"
    ):
        assert assignment.signed_digest == claim_digest(assignment.claim)
    per_reviewer = Counter(ReviewAssignment.objects.values_list("reviewer__username", flat=True))
    assert per_reviewer.most_common(1)[0][0] == BUSY_REVIEWER


def test_a_verdict_correction_leaves_the_claim_with_the_corrected_verdict(dataset):
    last = {}
    for correction in Correction.objects.exclude(new_verdict=None).order_by("sequence"):
        last[correction.claim_id] = correction.new_verdict_id
    assert last
    for claim_id, verdict_id in last.items():
        assert Claim.objects.get(pk=claim_id).verdict_id == verdict_id


def test_sources_and_claims_are_in_the_search_index(dataset):
    version = SourceVersion.objects.order_by("?").first()
    assert SearchEntry.objects.filter(kind="source", object_id=version.source_id).count() == len(
        list(chunk_text(version.extracted_text))
    )
    assert SearchEntry.objects.filter(kind="claim").count() == SMALL.claims
    claim = Claim.objects.first()
    words = [word for word in claim.statement.split() if word.isalpha() and len(word) > 3][:3]
    assert claim.pk in {
        hit.object_id for hit in search(" ".join(words))[0:500] if hit.kind == "claim"
    }


def test_each_cases_claims_are_numbered_in_the_order_the_piece_makes_them(dataset):
    for case in Case.objects.all():
        numbers = list(
            case.claims.order_by("quotation__start", "quotation__end", "id").values_list(
                "number", flat=True
            )
        )
        assert numbers == list(range(1, len(numbers) + 1))
        assert case.last_claim_number == len(numbers)


def test_the_busy_case_has_the_most_claims(dataset):
    busy = Case.objects.get(slug=BUSY_CASE_SLUG)
    assert busy.claims.count() == max(case.claims.count() for case in Case.objects.all())


def test_the_command_line_takes_small_flags_and_refuses_a_second_run(capsys):
    flags = ["--cases", "2", "--claims", "6", "--sources", "5", "--users", "6"]
    flags += ["--quotations", "12", "--corrections", "3", "--min-kb", "1", "--max-kb", "2"]
    flags += ["--large-kb", "8"]
    assert scale_command_line(flags) == 0
    assert Claim.objects.count() == 6
    assert "Scale dataset written" in capsys.readouterr().out

    assert scale_command_line(flags) == 2
    assert "already present" in capsys.readouterr().out
    assert scale_command_line([*flags, "--if-absent"]) == 0
    assert Claim.objects.count() == 6
