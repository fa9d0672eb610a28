"""factory-boy factories for the test suite. Rows go through the real models."""

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from claims.models import (
    Case,
    Claim,
    ClaimFlag,
    Comment,
    Correction,
    Evidence,
    Rating,
    ReviewAssignment,
)
from factcheck.roles import EDITOR, REVIEWER
from sources.models import Quotation, Source, SourceVersion
from sources.services import find_span, quotation_create, source_version_create_from_text

SAMPLE_TEXT = (
    "The compiler reached 1,111 tokens per second on a B200.\n"
    "Start-up took 467 seconds before and 9.0 seconds after.\n"
    "The page description says up to 3.7× higher throughput."
)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    first_name = factory.Faker("first_name")
    last_name = factory.Faker("last_name")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.invalid")
    password = factory.django.Password("correct horse battery staple")


def in_group(role):
    """A post-generation step that puts the new user in the ``role`` group."""

    def add_to_group(user, create, extracted, **kwargs):
        if create:
            user.groups.add(Group.objects.get(name=role))

    return factory.PostGeneration(add_to_group)


class EditorFactory(UserFactory):
    username = factory.Sequence(lambda n: f"editor{n}")
    role = in_group(EDITOR)


class ReviewerFactory(UserFactory):
    username = factory.Sequence(lambda n: f"reviewer{n}")
    role = in_group(REVIEWER)


class SourceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Source

    title = factory.Sequence(lambda n: f"Source document {n}")
    publisher = "Together AI"
    role = Source.Role.PRIMARY


class PieceUnderCheckFactory(SourceFactory):
    title = factory.Sequence(lambda n: f"Article under check {n}")
    role = Source.Role.UNDER_CHECK


class SourceVersionFactory(factory.django.DjangoModelFactory):
    """A plain-text version, stored through the same service the app uses."""

    class Meta:
        model = SourceVersion

    source = factory.SubFactory(SourceFactory)
    text = SAMPLE_TEXT
    #: None: detected in the text, as the service does; or a code of factcheck.languages.
    language = None

    @classmethod
    def _create(cls, model_class, source, text, language, **kwargs):
        version, _created = source_version_create_from_text(
            source=source, text=text, actor=None, original_filename="sample.txt", language=language
        )
        return version


class QuotationFactory(factory.django.DjangoModelFactory):
    """A quotation of ``exact`` (its first occurrence) in ``version``'s text."""

    class Meta:
        model = Quotation

    version = factory.SubFactory(SourceVersionFactory)
    exact = "1,111 tokens per second"

    @classmethod
    def _create(cls, model_class, version, exact, **kwargs):
        start, end = find_span(version.extracted_text, exact)
        quotation = model_class.for_span(version, start, end, **kwargs)
        quotation.save()
        return quotation


class RatingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Rating
        django_get_or_create = ["label"]

    label = "Accurate"
    order = 5
    value = 5
    meaning = "The claim is accurate."


class CaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Case

    title = factory.Sequence(lambda n: f"Case {n}")
    slug = factory.Sequence(lambda n: f"case-{n}")
    source_under_check = factory.SubFactory(PieceUnderCheckFactory)
    lead_editor = factory.SubFactory(EditorFactory)
    language = "en"


class ClaimFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Claim

    case = factory.SubFactory(CaseFactory)
    quotation = factory.LazyAttribute(
        lambda claim: QuotationFactory(
            version=SourceVersionFactory(source=claim.case.source_under_check)
        )
    )
    statement = "The compiler reached 1,111 tokens per second."
    claimant = "Together AI"
    author = factory.SubFactory(EditorFactory)


class EvidenceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Evidence

    claim = factory.SubFactory(ClaimFactory)
    quotation = factory.SubFactory(QuotationFactory)
    stance = Evidence.Stance.SUPPORTS


class ReviewAssignmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ReviewAssignment

    claim = factory.SubFactory(ClaimFactory)
    reviewer = factory.SubFactory(ReviewerFactory)
    assigned_by = factory.LazyAttribute(lambda assignment: assignment.claim.author)


class CorrectionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Correction

    case = factory.SubFactory(CaseFactory)
    kind = Correction.Kind.CORRECTION
    what_was_wrong = "We said the start-up took 467 seconds in total."
    what_is_right = "The six listed steps add up to 460 seconds."
    reason = "Arithmetic error found by a reader."


class CommentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Comment

    claim = factory.SubFactory(ClaimFactory)
    author = factory.SubFactory(EditorFactory)
    body = "Which table does the 2.6× come from?"


class PublishedCorrectionFactory(CorrectionFactory):
    """A correction taken through the real workflow: drafted, approved, published."""

    @classmethod
    def _create(cls, model_class, case, **kwargs):
        from claims.corrections import correction_approve, correction_draft, correction_publish

        editor = EditorFactory()
        if not case.claims.filter(status="published").exists():
            # A correction is of published work: the case gets a published claim.
            ClaimFactory(case=case, status="published", published_at=timezone.now())
        drafted = ("kind", "what_was_wrong", "what_is_right", "reason", "claim")
        drafted += ("new_verdict", "supersedes")
        draft = correction_draft(
            case=case, editor=editor, **{name: kwargs[name] for name in drafted if name in kwargs}
        )
        correction_approve(correction=draft, approver=ReviewerFactory())
        return correction_publish(correction=draft, editor=editor)


#: Passages of SAMPLE_TEXT that do not overlap: one claim each.
SAMPLE_PASSAGES = ["1,111 tokens per second", "467 seconds", "9.0 seconds after", "3.7× higher"]


def case_with_claims(count):
    """A case with ``count`` claims (at most 4) made in its piece under check, read afresh."""
    case = CaseFactory()
    version = SourceVersionFactory(source=case.source_under_check)
    for exact in SAMPLE_PASSAGES[:count]:
        ClaimFactory(case=case, quotation=QuotationFactory(version=version, exact=exact))
    return Case.objects.select_related("source_under_check", "lead_editor").get(pk=case.pk)


def long_source_text(paragraphs=600):
    """About 240,000 characters in paragraphs that each name their number: three parts."""
    return "\n".join(
        f"Paragraph {number}: " + " ".join(["turbine"] * 50) for number in range(paragraphs)
    )


def make_case_with_claims(count, reviewer):
    """
    A case of ``count`` claims, each quoting its own sentence, reviewed by
    ``reviewer`` and with one piece of evidence; the case and the claims.
    """
    case = CaseFactory()
    text = " ".join(f"Sentence number {n} says {n}.{n} times more." for n in range(count))
    version, _ = source_version_create_from_text(
        source=case.source_under_check, text=text, actor=None
    )
    claims = []
    for n in range(count):
        start, end = find_span(text, f"Sentence number {n} says")
        quotation, _ = quotation_create(version=version, start=start, end=end, actor=None)
        claim = Claim.objects.create(case=case, quotation=quotation, statement=f"Claim {n}")
        ReviewAssignmentFactory(claim=claim, reviewer=reviewer)
        EvidenceFactory(claim=claim, quotation=QuotationFactory(exact="9.0 seconds"))
        claims.append(claim)
    return case, claims


def flagged(claim):
    """The reasons of ``claim``'s open review flags, one a line ("" for none)."""
    return "\n".join(flag.reason for flag in ClaimFlag.objects.open().filter(claim_id=claim.pk))


class ClaimFlagFactory(factory.django.DjangoModelFactory):
    """A flag written as a sentence (kind "other"), as one raised for any reason."""

    class Meta:
        model = ClaimFlag

    claim = factory.SubFactory(ClaimFactory)
    kind = ClaimFlag.Kind.OTHER
    note = "A reason to look at the claim again."
