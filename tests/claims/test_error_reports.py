"""Readers report errors; bots and floods are turned away; editors handle the inbox."""

import lxml.html
import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from claims.corrections import correction_draft_from_report
from claims.models import ClaimStatus, Correction, ErrorReport, ReportStatus
from claims.reports import REPORTS_PER_WINDOW, report_close, report_submit
from factcheck.models import AuditEvent
from tests.factories import CaseFactory, ClaimFactory, EditorFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    cache.clear()


def report(client, address="203.0.113.7", follow=False, **fields):
    data = {
        "page_url": reverse("claims:corrections_log"),
        "message": "The 467 seconds do not add up.",
        "email": "reader@example.org",
        "website": "",
    } | fields
    return client.post(reverse("claims:report_error"), data, REMOTE_ADDR=address, follow=follow)


def test_a_readers_report_reaches_the_inbox(client, editor):
    case = CaseFactory()

    response = report(client, case=case.slug)

    assert response.status_code == 302
    stored = ErrorReport.objects.get()
    assert (stored.case, stored.status) == (case, ReportStatus.OPEN)
    assert stored.sender_key != "203.0.113.7"
    client.force_login(editor)
    assert "The 467 seconds do not add up." in client.get(reverse("claims:reports_inbox")).text


def test_every_public_page_offers_the_report_form(client, first_case):
    assert "Report an error on this page" in client.get(reverse("claims:corrections_log")).text


def test_a_bot_filling_the_honeypot_is_turned_away(client):
    response = report(client, website="http://spam.example")

    assert response.status_code == 400
    assert not ErrorReport.objects.exists()


def test_a_flood_from_one_address_is_turned_away_and_others_still_get_through(client):
    for _ in range(REPORTS_PER_WINDOW):
        assert report(client).status_code == 302

    flooded = report(client)
    other = report(client, address="198.51.100.9")

    assert flooded.status_code == 429
    assert "several reports from your address" in flooded.text
    assert other.status_code == 302
    assert ErrorReport.objects.count() == REPORTS_PER_WINDOW + 1


def test_an_empty_report_is_refused_and_keeps_the_email(client):
    response = report(client, message="")

    assert response.status_code == 422
    assert "reader@example.org" in response.text
    assert not ErrorReport.objects.exists()


def published_case():
    """A case with a published claim: what a correction is drafted for."""
    case = CaseFactory()
    ClaimFactory(case=case, status=ClaimStatus.PUBLISHED, published_at=timezone.now())
    return case


def test_a_report_becomes_a_correction_draft(client, editor):
    case = published_case()
    report(client, case=case.slug)
    stored = ErrorReport.objects.get()
    client.force_login(editor)

    desk = client.get(reverse("claims:corrections_desk"), {"report": stored.pk})
    assert "The 467 seconds do not add up." in desk.text
    client.post(
        reverse("claims:correction_draft"),
        {
            "report": stored.pk,
            "case": case.pk,
            "kind": "correction",
            "what_was_wrong": stored.message,
            "what_is_right": "The parts add up to 460 seconds.",
        },
    )

    stored.refresh_from_db()
    assert stored.status == ReportStatus.CONVERTED
    assert stored.correction == Correction.objects.get()


def test_a_report_closed_with_a_reply_mails_the_reader(client, editor, mailoutbox):
    report(client)
    stored = ErrorReport.objects.get()
    client.force_login(editor)

    client.post(reverse("claims:report_close", args=[stored.pk]), {"reply": "Fixed, thanks."})

    stored.refresh_from_db()
    assert stored.status == ReportStatus.CLOSED
    assert mailoutbox[-1].to == ["reader@example.org"]
    assert "Fixed, thanks." in mailoutbox[-1].body


@pytest.mark.parametrize(
    "page_url", ["https://evil.example/phish", "//evil.example/x", "/\\evil.example/x"]
)
def test_a_reader_is_only_led_back_to_a_page_of_this_site(client, page_url):
    response = report(client, page_url=page_url, follow=True)

    assert "Thank you: your report reached our editors." in response.text
    assert f'href="{reverse("claims:corrections_log")}"' in response.text
    assert "evil.example" not in response.text


def draft_from(client, stored, what_is_right):
    return client.post(
        reverse("claims:correction_draft"),
        {
            "report": stored.pk,
            "case": stored.case_id,
            "kind": "correction",
            "what_was_wrong": stored.message,
            "what_is_right": what_is_right,
        },
    )


def test_a_report_another_editor_already_drafted_is_not_drafted_again_and_the_form_is_kept(
    client, editor
):
    report(client, case=published_case().slug)
    stored = ErrorReport.objects.get()
    client.force_login(editor)
    draft_from(client, stored, "The parts add up to 460 seconds.")
    first = Correction.objects.get()

    response = draft_from(client, stored, "My own careful wording.")

    assert response.status_code == 409
    assert "This report was turned into a correction" in response.text
    assert "My own careful wording." in response.text
    stored.refresh_from_db()
    assert (stored.correction, Correction.objects.count()) == (first, 1)

    # Saved again as the page now holds it: the draft is kept, without the report.
    html = lxml.html.fromstring(response.text)
    (form,) = html.xpath("//form[.//textarea[@name='what_is_right']]")
    again = client.post(reverse("claims:correction_draft"), dict(form.form_values()))
    assert again.status_code == 302
    kept = Correction.objects.exclude(pk=first.pk).get()
    assert kept.what_is_right == "My own careful wording."
    stored.refresh_from_db()
    assert stored.correction == first


def test_a_reply_to_a_report_closed_meanwhile_is_kept_and_not_sent(client, editor, mailoutbox):
    report(client)
    stored = ErrorReport.objects.get()
    other = EditorFactory(username="olga")
    report_close(report=stored, editor=other, reply="Fixed, thanks.")
    client.force_login(editor)

    response = client.post(
        reverse("claims:report_close", args=[stored.pk]), {"reply": "My longer reply."}
    )

    assert response.status_code == 409
    assert "This report was closed with a reply by olga meanwhile." in response.text
    assert "My longer reply." in response.text
    stored.refresh_from_db()
    assert stored.reply == "Fixed, thanks."
    assert [message.body.endswith("Fixed, thanks.") for message in mailoutbox] == [True]


def test_a_blank_reply_is_refused_without_an_empty_quote_and_the_report_stays_open(client, editor):
    report(client)
    stored = ErrorReport.objects.get()
    client.force_login(editor)

    response = client.post(reverse("claims:report_close", args=[stored.pk]), {"reply": "   "})

    assert response.status_code == 422
    assert "Write a reply before closing the report." in response.text
    assert "What you wrote:" not in response.text
    stored.refresh_from_db()
    assert stored.status == ReportStatus.OPEN


@pytest.mark.parametrize(
    "query", [{"report": "abc"}, {"report": "1.5"}, {"claim": "x"}, {"report": "1" * 5000}]
)
def test_a_mangled_link_to_the_corrections_desk_opens_it_empty(client, editor, query):
    client.force_login(editor)

    response = client.get(reverse("claims:corrections_desk"), query)

    assert response.status_code == 200


def test_behind_the_proxy_each_reader_is_limited_by_their_own_address(client, settings):
    settings.TRUST_X_FORWARDED_FOR = True
    proxy = "10.0.0.2"
    for number in range(REPORTS_PER_WINDOW + 2):
        response = client.post(
            reverse("claims:report_error"),
            {"page_url": "/corrections/", "message": "Wrong sum.", "website": ""},
            REMOTE_ADDR=proxy,
            HTTP_X_FORWARDED_FOR=f"203.0.113.{number + 1}",
        )
        assert response.status_code == 302, number

    assert ErrorReport.objects.count() == REPORTS_PER_WINDOW + 2


def test_where_the_reader_was_never_stops_a_report(client, first_case):
    # Hidden context the reader cannot see or correct: cut or dropped, not refused.
    long_address = "/corrections/?utm_source=" + "x" * 600

    response = report(client, page_url=long_address, case="not a slug!", claim="12abc")

    assert response.status_code == 302
    stored = ErrorReport.objects.get()
    assert stored.page_url == long_address[:500]
    assert (stored.case, stored.claim) == (None, None)


def test_a_refused_flood_says_the_report_was_not_sent_and_keeps_it(client):
    for _ in range(REPORTS_PER_WINDOW):
        report(client)

    flooded = report(client, message="My typed report")

    assert flooded.status_code == 429
    assert "This one was not sent" in flooded.text
    assert "My typed report" in flooded.text


def test_a_link_to_a_report_handled_meanwhile_says_so_on_the_desk(client, editor):
    report(client)
    stored = ErrorReport.objects.get()
    report_close(report=stored, editor=editor, reply="Fixed, thanks.")
    client.force_login(editor)

    desk = client.get(reverse("claims:corrections_desk") + f"?report={stored.pk}")

    assert f"Reader's report {stored.pk} was handled meanwhile" in desk.text
    assert "The 467 seconds do not add up." not in desk.text


def test_the_inbox_shows_open_reports_naming_their_claim_and_the_handled_ones_on_request(
    client, editor
):
    claim = ClaimFactory(statement="The compiler reached 1,111 tokens per second.")
    ErrorReport.objects.create(
        message="This one is open.", page_url="/x/", case=claim.case, claim=claim
    )
    handled = ErrorReport.objects.create(message="Handled already.", page_url="/y/")
    report_close(report=handled, editor=editor, reply="Thanks, fixed.")
    client.force_login(editor)

    open_only = client.get(reverse("claims:reports_inbox"))
    everything = client.get(reverse("claims:reports_inbox"), {"show": "all"})

    assert "This one is open." in open_only.text
    assert "Handled already." not in open_only.text
    assert "1 open." in open_only.text
    assert (
        f'About the claim “<a href="{claim.get_absolute_url()}">The compiler reached 1,111 '
        f'tokens per second.</a>” in <a href="{claim.case.get_absolute_url()}">'
    ) in open_only.text
    assert "Handled already." in everything.text


def test_the_corrections_desk_counts_the_open_reports_and_leads_to_them(client, editor):
    ErrorReport.objects.create(message="Open one.", page_url="/x/")
    ErrorReport.objects.create(message="Open two.", page_url="/y/")
    client.force_login(editor)

    desk = client.get(reverse("claims:corrections_desk"))

    assert f'<a href="{reverse("claims:reports_inbox")}">Readers\' reports</a>' in desk.text
    assert "<strong>2 open</strong>" in desk.text


def menu_count(response):
    """What the main menu's Corrections item says waits there, for screen readers."""
    item = lxml.html.fromstring(response.text).xpath(
        "//nav[@aria-label='Main']//a[starts-with(normalize-space(), 'Corrections')]"
    )[0]
    return " ".join(item.text_content().split())


def test_the_menu_counts_the_open_reports_for_editors_and_follows_new_and_closed_ones(
    client, editor
):
    ErrorReport.objects.create(message="Open one.", page_url="/x/")
    client.force_login(editor)
    assert menu_count(client.get(reverse("claims:case_list"))) == (
        "Corrections 1, 1 reader's report open"
    )

    client.logout()
    report(client)
    client.force_login(editor)
    assert menu_count(client.get(reverse("claims:case_list"))).endswith("2 readers' reports open")

    for open_report in ErrorReport.objects.all():
        report_close(report=open_report, editor=editor, reply="Thank you; it stands.")
    assert menu_count(client.get(reverse("claims:case_list"))) == "Corrections"


def test_the_menu_counts_no_reports_for_a_reviewer_who_cannot_handle_them(client, reviewer):
    ErrorReport.objects.create(message="Open one.", page_url="/x/")
    client.force_login(reviewer)

    assert menu_count(client.get(reverse("claims:case_list"))) == "Corrections"


def test_the_corrections_log_leads_an_editor_to_the_reports(client, editor):
    client.force_login(editor)

    log = client.get(reverse("claims:corrections_log"))

    assert f'<a class="button" href="{reverse("claims:reports_inbox")}">' in log.text


# Drafting from a report, without a request: one service, the draft and the report together.


def a_report_about(case):
    return report_submit(
        page_url="/corrections/", message="Wrong sum.", address="192.0.2.8", case=case
    )


def test_a_correction_drafted_from_a_report_marks_the_report_converted(editor):
    case = published_case()
    stored = a_report_about(case)

    correction = correction_draft_from_report(
        report=stored,
        case=case,
        editor=editor,
        kind="correction",
        what_was_wrong=stored.message,
        what_is_right="The parts add up to 460 seconds.",
    )

    stored.refresh_from_db()
    assert (stored.status, stored.correction, stored.handled_by) == (
        ReportStatus.CONVERTED,
        correction,
        editor,
    )
    assert correction.status == "draft"
    assert {"correction.draft", "report.convert"} <= set(
        AuditEvent.objects.values_list("action", flat=True)
    )


def test_a_report_handled_meanwhile_refuses_the_draft_made_from_it(editor):
    case = published_case()
    stored = a_report_about(case)
    report_close(report=stored, editor=EditorFactory(username="olga"), reply="Fixed, thanks.")

    with pytest.raises(ValidationError) as refused:
        correction_draft_from_report(
            report=stored,
            case=case,
            editor=editor,
            kind="correction",
            what_was_wrong=stored.message,
            what_is_right="The parts add up to 460 seconds.",
        )

    assert refused.value.code == "handled"
    # Both or neither: the draft made before the report was found handled is gone too.
    assert not Correction.objects.exists()
    assert not AuditEvent.objects.filter(action="correction.draft").exists()
    stored.refresh_from_db()
    assert stored.status == ReportStatus.CLOSED
