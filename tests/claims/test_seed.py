import hashlib
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import override_settings

from claims.models import Case, Claim, Evidence
from claims.seed import ARTICLE_PATH, article_text, seed_first_case
from claims.seed import first_case as seed_data
from factcheck.demo import DEMO_USERS, ensure_demo_users
from factcheck.models import AuditEvent
from sources.models import Quotation, Source, SourceRole, SourceVersion
from sources.services import source_version_create_from_text

pytestmark = pytest.mark.django_db

#: The shipped article is user data: it must stay byte for byte what was delivered.
ARTICLE_SHA256 = "ce2c53dc3a58a6b1973cec375ae4df323ab88aba264a9dba4a28a0d28c19ee95"
SHARED_ARTICLE = Path(__file__).resolve().parents[2] / "shared/seed/together-compiler-article.txt"


def row_counts():
    return {model._meta.label: model.objects.count() for model in apps.get_models()}


def test_the_article_fixture_is_the_delivered_file_byte_for_byte():
    content = ARTICLE_PATH.read_bytes()
    assert hashlib.sha256(content).hexdigest() == ARTICLE_SHA256
    if SHARED_ARTICLE.exists():
        assert content == SHARED_ARTICLE.read_bytes()


def test_seeding_twice_leaves_the_same_rows():
    call_command("seed_first_case", verbosity=0)
    after_first = row_counts()
    quotations_first = list(Quotation.objects.values_list("pk", "start", "end", "exact"))

    call_command("seed_first_case", verbosity=0)

    assert row_counts() == after_first
    assert list(Quotation.objects.values_list("pk", "start", "end", "exact")) == quotations_first
    assert Claim.objects.count() == len(seed_data.CLAIMS)


def test_seeding_again_after_a_new_version_of_the_piece_makes_no_second_claims():
    case = seed_first_case().case
    piece = case.source_under_check
    edited = article_text().replace("467 seconds in total", "about 460 seconds in total")
    source_version_create_from_text(source=piece, text=edited, actor=None)

    seed_first_case()

    assert case.claims.count() == len(seed_data.CLAIMS)


def test_every_seeded_quotation_is_the_article_text_at_its_offsets(first_case):
    text = article_text()
    quotations = Quotation.objects.all()
    assert quotations.exists()
    for quotation in quotations:
        assert quotation.version.extracted_text[quotation.start : quotation.end] == quotation.exact
        assert text[quotation.start : quotation.end] == quotation.exact


def test_the_article_is_the_piece_under_check_with_one_ready_text_version(first_case):
    article = first_case.source_under_check
    assert article.role == SourceRole.UNDER_CHECK
    version = article.versions.get()
    assert version.is_ready
    assert version.extracted_text == article_text()
    assert version.sha256 == ARTICLE_SHA256


def test_the_four_cited_sources_are_registered_and_await_upload(first_case):
    cited = Source.objects.exclude(role=SourceRole.UNDER_CHECK)
    assert sorted(cited.values_list("title", flat=True)) == sorted(
        entry["title"] for entry in seed_data.CITED_SOURCES
    )
    assert not SourceVersion.objects.filter(source__in=cited).exists()
    assert Source.objects.get(publisher="Unite.AI").role == SourceRole.SECONDARY


def test_seeded_claims_are_drafts_without_verdict_or_evidence(first_case):
    claims = first_case.claims.all()
    assert claims.count() == len(seed_data.CLAIMS)
    assert set(claims.values_list("status", flat=True)) == {Claim.Status.DRAFT}
    assert not claims.filter(verdict__isnull=False).exists()
    assert not Evidence.objects.exists()


def test_every_seeded_claim_quotes_the_article_itself(first_case):
    for claim in first_case.claims.select_related("quotation__version"):
        assert claim.quotation.version.source_id == first_case.source_under_check_id


def test_the_rationale_flags_the_start_up_sum_that_does_not_add_up(first_case):
    # 93 + 50 + 21 + 93 + 193 + 10 is 460, not the 467 the article states.
    assert 93 + 50 + 21 + 93 + 193 + 10 == 460
    sum_claims = Claim.objects.filter(quotation__exact__contains="467 seconds in total")
    assert sum_claims.exists()
    assert any("460" in claim.rationale for claim in sum_claims)


def test_seeding_writes_the_audit_trail_once(first_case):
    actions = list(AuditEvent.objects.values_list("action", flat=True))
    assert actions.count("claim.create") == first_case.claims.count()
    assert actions.count("case.create") == 1


@override_settings(DEBUG=True)
def test_demo_users_are_created_with_debug_on_and_hold_their_roles():
    ensure_demo_users()
    ensure_demo_users()

    users = get_user_model().objects.filter(username__in=[u[0] for u in DEMO_USERS])
    assert users.count() == len(DEMO_USERS)
    for username, _first, _last, role in DEMO_USERS:
        assert users.get(username=username).groups.filter(name=role).exists()


@override_settings(DEBUG=False)
def test_demo_users_are_refused_with_debug_off():
    with pytest.raises(CommandError, match="only created with DEBUG on"):
        call_command("seed_demo_users")
    assert not get_user_model().objects.exists()


def test_the_case_lead_editor_is_the_demo_editor_when_there_is_one(editor):
    case = seed_first_case(lead_editor=editor).case
    assert Case.objects.get(pk=case.pk).lead_editor == editor
