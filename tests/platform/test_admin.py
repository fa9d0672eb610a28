import pytest
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from claims.models import (
    Case,
    Claim,
    ClaimFlag,
    Comment,
    Correction,
    ErrorReport,
    Evidence,
    Rating,
    ReviewAssignment,
)
from factcheck.models import AuditEvent, Organisation, Preferences, SearchEntry
from sources.models import Quotation, QuotationPageImage, Reanchoring, Source, SourceVersion
from sources.services import source_version_create_from_text
from tests.factories import (
    ClaimFlagFactory,
    CommentFactory,
    CorrectionFactory,
    EvidenceFactory,
    PublishedCorrectionFactory,
    QuotationFactory,
    ReviewAssignmentFactory,
    SourceFactory,
    SourceVersionFactory,
    UserFactory,
)

#: Models whose rows only the app's own service functions create: the audit
#: trail (append-only), source versions (uploads go through extraction), what
#: re-anchoring made, the search index and the task queue; and the organisation's
#: settings, which have one row (the fixture makes it). The claims' workflow
#: records (claims, evidence, assignments, corrections, comments, readers'
#: reports) are read-only in the admin: they change only through the services.
ADD_DISABLED = {
    AuditEvent,
    SourceVersion,
    DBTaskResult,
    SearchEntry,
    Reanchoring,
    QuotationPageImage,
    Organisation,
    Claim,
    ClaimFlag,
    Evidence,
    ReviewAssignment,
    Correction,
    Comment,
    ErrorReport,
}

REGISTERED = sorted(admin.site._registry, key=lambda model: model._meta.label)


@pytest.fixture
def admin_client(client, db, first_case):
    claim = first_case.claims.first()
    EvidenceFactory(claim=claim, quotation=QuotationFactory())
    ReviewAssignmentFactory(claim=claim)
    CorrectionFactory(case=first_case, claim=claim)
    CommentFactory(claim=claim)
    ClaimFlagFactory(claim=claim)
    Organisation.current()
    Preferences.objects.create(user=UserFactory(username="prefers-french"), language="fr")
    ErrorReport.objects.create(page_url="/corrections/", message="A typo.", sender_key="k")
    carried = QuotationFactory(exact="1,111 tokens per second")
    source_version_create_from_text(
        source=carried.version.source, text="It reached 1,111 tokens per second.", actor=None
    )
    # A drawing that failed: no file to make, and the admin shows its reason.
    QuotationPageImage.objects.create(quotation=carried, page=1, error="Not drawn: a test row.")
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def admin_url(model, view, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def test_every_project_model_is_registered_in_the_admin():
    from django.apps import apps

    project_models = [
        model
        for app_label in ("factcheck", "sources", "claims")
        for model in apps.get_app_config(app_label).get_models()
    ]
    assert set(project_models) <= set(REGISTERED)


@pytest.mark.parametrize("model", REGISTERED, ids=lambda model: model._meta.label)
def test_the_changelist_loads_and_searches(admin_client, model):
    response = admin_client.get(admin_url(model, "changelist"))
    assert response.status_code == 200

    if admin.site._registry[model].search_fields:
        response = admin_client.get(admin_url(model, "changelist"), {"q": "2.6"})
        assert response.status_code == 200


@pytest.mark.parametrize("model", REGISTERED, ids=lambda model: model._meta.label)
def test_the_add_page_loads_or_is_deliberately_disabled(admin_client, model):
    response = admin_client.get(admin_url(model, "add"))
    assert response.status_code == (403 if model in ADD_DISABLED else 200)


@pytest.mark.parametrize("model", REGISTERED, ids=lambda model: model._meta.label)
def test_the_change_page_of_a_seeded_row_loads(admin_client, model):
    row = model._default_manager.first()
    if row is None:
        assert model is DBTaskResult, f"the fixture makes no {model._meta.verbose_name}"
        return
    response = admin_client.get(admin_url(model, "change", row.pk))
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("start", "end", "field", "message"),
    [
        ("", "12", "start", "This field is required."),
        ("12", "4", "end", "must end after it starts: it ends at 4 and starts at 12"),
        ("7", "7", "end", "must end after it starts"),
        ("0", "999999", "start", "outside the source text, which has"),
    ],
)
def test_a_quotation_added_with_bad_offsets_says_which_and_why(
    admin_client, start, end, field, message
):
    version = source_version_create_from_text(
        source=Source.objects.first(), text="The engine ran at 9.0 seconds.", actor=None
    )[0]
    before = Quotation.objects.count()

    response = admin_client.post(
        reverse("admin:sources_quotation_add"),
        {"version": version.pk, "start": start, "end": end, "exact": "The engine"},
    )

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert message in " ".join(errors[field])
    assert Quotation.objects.count() == before


def test_a_quotation_of_a_version_without_text_says_so_in_the_admin(admin_client):
    version = SourceVersionFactory()
    SourceVersion.objects.filter(pk=version.pk).update(extraction_status="failed")

    response = admin_client.post(
        reverse("admin:sources_quotation_add"),
        {"version": version.pk, "start": "0", "end": "4", "exact": "Some"},
    )

    assert "has no text to quote yet (text extraction: failed)" in " ".join(
        response.context["adminform"].form.errors["version"]
    )


# What the public record has named keeps its name.


def published(claim, verdict):
    Claim.objects.filter(pk=claim.pk).update(
        status="published", published_at="2026-11-05T10:00:00Z", verdict=verdict
    )


def test_a_rating_that_is_a_published_verdict_keeps_its_label_in_the_admin(
    admin_client, first_case
):
    rating = Rating.objects.get(label="Misleading")
    published(first_case.claims.first(), rating)

    response = admin_client.post(
        admin_url(Rating, "change", rating.pk),
        {"label": "Mostly right", "order": rating.order, "value": "", "meaning": "Changed too."},
    )

    assert response.status_code == 200
    assert "keeps its label" in " ".join(response.context["adminform"].form.errors["label"])
    assert Rating.objects.get(pk=rating.pk).label == "Misleading"


def test_a_rating_named_only_by_a_published_correction_keeps_its_label(first_case):
    old, new = Rating.objects.order_by("order")[:2]
    claim = first_case.claims.first()
    published(claim, old)
    claim.refresh_from_db()
    PublishedCorrectionFactory(case=first_case, claim=claim, new_verdict=new)
    old.refresh_from_db()
    assert not Claim.objects.filter(verdict=old).exists()  # only the entry names it now
    old.label = "Renamed"

    with pytest.raises(ValidationError, match="keeps its label"):
        old.full_clean()


def test_a_rating_nobody_published_is_renamed_and_every_rating_keeps_its_meaning_editable(
    first_case,
):
    used, unused = Rating.objects.order_by("order")[:2]
    published(first_case.claims.first(), used)
    unused.label = "A better word"
    used.meaning = "Clearer wording of what it means."

    unused.full_clean()
    used.full_clean()


def test_a_published_case_keeps_its_address_and_any_case_with_claims_its_piece(
    first_case,
):
    published(first_case.claims.first(), Rating.objects.first())
    first_case.slug = "renamed-case"
    first_case.source_under_check = SourceFactory()

    with pytest.raises(ValidationError) as refused:
        first_case.full_clean()

    assert "no link given out breaks" in " ".join(refused.value.message_dict["slug"])
    assert "Open a new case" in " ".join(refused.value.message_dict["source_under_check"])


def test_an_unpublished_case_may_take_a_new_address(first_case):
    first_case.slug = "a-better-address"

    first_case.full_clean()


def test_deleting_a_case_with_claims_is_refused_for_the_claims_not_for_permissions(
    admin_client, first_case
):
    response = admin_client.get(admin_url(Case, "delete", first_case.pk))

    assert "protected related objects" in response.text
    assert "doesn't have permission to delete" not in response.text
