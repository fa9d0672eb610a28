"""A case has a language: its piece's by default, chosen or put right by an editor, and used."""

import lxml.html
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from claims.models import Case
from claims.services import case_create, case_set_language, claim_create, index_claim
from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent, SearchEntry
from sources.services import version_set_language
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    EvidenceFactory,
    PieceUnderCheckFactory,
    QuotationFactory,
    ReviewerFactory,
    SourceVersionFactory,
)

pytestmark = pytest.mark.django_db

SPANISH = (
    "El ministro dijo que la inflación subió al 3,2 % en octubre. "
    "Fueron 1.234 las empresas que cerraron, según el instituto de estadística."
)


def spanish_piece():
    piece = PieceUnderCheckFactory()
    SourceVersionFactory(source=piece, text=SPANISH)
    return piece


def test_a_new_case_takes_the_language_detected_in_its_piece(editor):
    case = case_create(
        title="IPC", slug="ipc", source_under_check=spanish_piece(), lead_editor=None, actor=editor
    )

    assert case.language == "es"
    assert AuditEvent.objects.get(action="case.create").changes["language"] == "es"


def test_a_language_put_right_on_the_piece_is_the_one_a_new_case_takes(editor):
    piece = spanish_piece()
    version_set_language(version=piece.latest_version, language="pt", actor=editor)

    case = case_create(
        title="IPC", slug="ipc", source_under_check=piece, lead_editor=None, actor=editor
    )

    assert case.language == "pt"


def test_a_language_chosen_when_the_case_is_opened_wins_over_the_pieces(editor):
    case = case_create(
        title="IPC",
        slug="ipc",
        source_under_check=spanish_piece(),
        lead_editor=None,
        actor=editor,
        language="fr",
    )

    assert Case.objects.get(pk=case.pk).language == "fr"


def test_a_case_opened_in_an_unknown_language_is_refused(editor):
    with pytest.raises(ValidationError):
        case_create(
            title="IPC",
            slug="ipc",
            source_under_check=spanish_piece(),
            lead_editor=None,
            actor=editor,
            language="xx",
        )

    assert not Case.objects.exists()


def test_the_new_case_form_offers_the_language_and_opens_the_case_in_it(editor_client):
    piece = spanish_piece()
    form = lxml.html.fromstring(editor_client.get(reverse("claims:case_create")).text)
    offered = form.xpath("//select[@id='id_language']/option/@value")
    assert offered[0] == ""
    assert {"en", "es", "pt", "fr", "ar"} <= set(offered)

    data = {"title": "IPC", "slug": "ipc", "source_under_check": piece.pk, "lead_editor": ""}
    editor_client.post(reverse("claims:case_create"), data | {"language": "ar"})
    editor_client.post(reverse("claims:case_create"), data | {"slug": "ipc-2", "language": ""})

    assert Case.objects.get(slug="ipc").language == "ar"
    assert Case.objects.get(slug="ipc-2").language == "es"


def test_a_claim_is_searched_in_its_cases_language(editor):
    case = CaseFactory(language="es", source_under_check=spanish_piece())
    quotation = QuotationFactory(version=case.source_under_check.latest_version, exact="3,2 %")

    claim = claim_create(case=case, quotation=quotation, statement="Subió al 3,2 %.", author=editor)

    assert SearchEntry.objects.get(kind="claim", object_id=claim.pk).language == "es"


def test_an_editor_changes_a_cases_language_and_its_claims_are_searched_in_it(editor):
    claim = ClaimFactory()
    index_claim(claim)
    case = claim.case
    assert SearchEntry.objects.get(kind="claim", object_id=claim.pk).language == "en"

    case_set_language(case=case, language="es", actor=editor)

    assert Case.objects.get(pk=case.pk).language == "es"
    assert SearchEntry.objects.get(kind="claim", object_id=claim.pk).language == "es"
    event = AuditEvent.objects.get(action="case.language")
    assert (event.actor, event.changes) == (editor, {"language": ["en", "es"]})


def test_a_cases_language_changes_only_by_an_editor_and_only_to_a_known_one(editor):
    case = CaseFactory(language="en")

    with pytest.raises(NotAllowed):
        case_set_language(case=case, language="es", actor=ReviewerFactory())
    with pytest.raises(ValidationError):
        case_set_language(case=case, language="english", actor=editor)

    assert Case.objects.get(pk=case.pk).language == "en"
    assert not AuditEvent.objects.filter(action="case.language").exists()


def case_language_url(case):
    return reverse("claims:case_language", args=[case.slug])


def test_the_case_page_lets_an_editor_change_the_language(editor_client):
    case = CaseFactory(language="en")
    page = lxml.html.fromstring(editor_client.get(case.get_absolute_url()).text)
    assert page.xpath("//select[@id='case-language']/option[@selected]/@value") == ["en"]

    response = editor_client.post(case_language_url(case), {"language": "fr"}, follow=True)

    assert Case.objects.get(pk=case.pk).language == "fr"
    assert "The case is now marked as written in French." in response.text


def test_an_unknown_language_posted_for_a_case_is_refused_with_a_message(editor_client):
    case = CaseFactory(language="en")

    response = editor_client.post(case_language_url(case), {"language": "xx"}, follow=True)

    assert Case.objects.get(pk=case.pk).language == "en"
    assert "The language was not changed" in response.text


def test_a_reviewer_may_not_change_a_cases_language(client):
    case = CaseFactory(language="en")
    client.force_login(ReviewerFactory())

    assert client.post(case_language_url(case), {"language": "es"}).status_code == 403
    assert Case.objects.get(pk=case.pk).language == "en"


def test_the_pieces_text_and_claims_are_marked_with_their_language(editor_client):
    claim = ClaimFactory(case=CaseFactory(language="ar"))
    page = lxml.html.fromstring(editor_client.get(claim.case.get_absolute_url()).text)

    (reader,) = page.xpath("//div[contains(@class, 'reader__text')]")
    # The piece's text is English (detected); the case says Arabic for its claims.
    assert reader.get("lang") == "en"
    (quote,) = page.xpath("//li[@class='claim']//blockquote")
    assert (quote.get("lang"), quote.get("dir")) == ("ar", "rtl")


def test_the_claim_page_marks_each_quotation_with_its_texts_language(editor_client):
    claim = ClaimFactory()
    EvidenceFactory(
        claim=claim,
        quotation=QuotationFactory(version=SourceVersionFactory(text=SPANISH), exact="3,2 %"),
    )

    page = lxml.html.fromstring(editor_client.get(claim.get_absolute_url()).text)

    assert page.xpath("//blockquote[contains(@class, 'claim__quote--large')]/span/@lang") == ["en"]
    assert page.xpath("//section[@id='evidence']//blockquote/@lang") == ["es"]


def claim_with_figure(case_language):
    """A claim stating "1.234" (Spanish for 1,234), with "1,234" quoted from an English source."""
    claim = ClaimFactory(case=CaseFactory(language=case_language), statement="Fueron 1.234.")
    english = SourceVersionFactory(
        text="The institute says that 1,234 companies closed in October, the report shows.",
        language="en",
    )
    EvidenceFactory(claim=claim, quotation=QuotationFactory(version=english, exact="1,234"))
    return claim


def test_the_figure_check_reads_the_statement_in_the_cases_language(editor_client):
    spanish = claim_with_figure("es")
    english = claim_with_figure("en")

    assert "Figure check:" not in editor_client.get(spanish.get_absolute_url()).text
    assert "Figure check:" in editor_client.get(english.get_absolute_url()).text


def test_the_figure_check_reads_a_quotation_in_its_own_texts_language(editor_client):
    claim = claim_with_figure("es")
    # The same words, were they Spanish, would say 1.234.
    version_set_language(version=claim.evidence.get().quotation.version, language="es", actor=None)

    assert "Figure check:" in editor_client.get(claim.get_absolute_url()).text


def test_a_case_in_an_unlisted_or_unknown_language_gives_no_lang_to_its_text():
    assert CaseFactory(language="und").language_tag == ""
    assert CaseFactory(language="").language_tag == ""
    assert (CaseFactory(language="ar").language_tag, CaseFactory(language="ar").right_to_left) == (
        "ar",
        True,
    )
