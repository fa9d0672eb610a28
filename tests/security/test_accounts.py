"""
Accounts: login throttling per account and per client address, password
validation, session lifetime, password change ending the other sessions, and
password reset that answers the same whether or not an account has the address.
"""

import re
from urllib.parse import quote

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from factcheck.auth import (
    LOGIN_ATTEMPTS_PER_ACCOUNT,
    LOGIN_ATTEMPTS_PER_ADDRESS,
    PAGE_OUT_OF_DATE,
    RESET_REQUESTS_PER_ADDRESS,
    RESET_REQUESTS_PER_EMAIL,
    RESET_THROTTLED_MESSAGE,
    SESSION_ENDED,
    SESSION_ENDED_READING,
    THROTTLED_MESSAGE,
    UNSENT_FORM_KEY,
    UNSENT_FORM_SECONDS,
    UNSENT_FORMS_PER_ADDRESS,
)
from tests.factories import (
    ClaimFactory,
    EditorFactory,
    ReviewAssignmentFactory,
    ReviewerFactory,
)

PASSWORD = "correct horse battery staple"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_counters():
    cache.clear()  # the attempt counters live in the cache
    yield
    cache.clear()


def log_in(client, username, password, address="192.0.2.10"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def page_without_tokens(response, *words):
    """The page as text, with its per-visitor CSRF tokens and the given words blanked."""
    page = re.sub(
        r'("X-CSRFToken": "|name="csrfmiddlewaretoken" value=")[^"]+',
        r"\1…",
        response.content.decode(),
    )
    for word in words:
        page = page.replace(word, "…")
    return page


def is_logged_in(client):
    return client.get(reverse("claims:case_list")).status_code == 200


# Login throttling


def test_failed_logins_past_the_account_limit_are_refused_with_429_and_the_username_kept():
    EditorFactory(username="eddie")
    for _ in range(LOGIN_ATTEMPTS_PER_ACCOUNT):
        assert log_in(Client(), "eddie", "wrong password").status_code == 200

    response = log_in(Client(), "eddie", "wrong password")

    assert response.status_code == 429
    assert response["Retry-After"] == str(15 * 60)
    page = response.content.decode()
    assert THROTTLED_MESSAGE in page
    assert 'value="eddie"' in page


def test_a_throttled_account_is_refused_even_with_the_right_password():
    EditorFactory(username="eddie")
    for _ in range(LOGIN_ATTEMPTS_PER_ACCOUNT):
        log_in(Client(), "eddie", "wrong password")
    client = Client()

    response = log_in(client, "eddie", PASSWORD, address="198.51.100.7")

    assert response.status_code == 429
    assert not is_logged_in(client)


def test_the_account_limit_counts_across_client_addresses():
    EditorFactory(username="eddie")
    for number in range(LOGIN_ATTEMPTS_PER_ACCOUNT):
        log_in(Client(), "eddie", "wrong password", address=f"203.0.113.{number}")

    assert log_in(Client(), "eddie", "wrong", address="203.0.113.200").status_code == 429


def test_the_account_limit_ignores_the_case_of_the_typed_username():
    EditorFactory(username="eddie")
    for spelling in ["eddie", "Eddie", "EDDIE", "eDdie", "eddiE"][:LOGIN_ATTEMPTS_PER_ACCOUNT]:
        log_in(Client(), spelling, "wrong password")

    assert log_in(Client(), "EdDie", "wrong password").status_code == 429


def test_one_address_trying_many_accounts_is_throttled():
    EditorFactory(username="eddie")
    for number in range(LOGIN_ATTEMPTS_PER_ADDRESS):
        assert log_in(Client(), f"guess{number}", "wrong").status_code == 200

    response = log_in(Client(), "eddie", PASSWORD)

    assert response.status_code == 429
    assert THROTTLED_MESSAGE in response.content.decode()
    # Another address is not affected.
    other = Client()
    assert log_in(other, "eddie", PASSWORD, address="198.51.100.7").status_code == 302
    assert is_logged_in(other)


def test_a_successful_login_clears_the_accounts_failures():
    EditorFactory(username="eddie")
    for _ in range(LOGIN_ATTEMPTS_PER_ACCOUNT - 1):
        log_in(Client(), "eddie", "wrong password")
    assert log_in(Client(), "eddie", PASSWORD).status_code == 302

    for _ in range(LOGIN_ATTEMPTS_PER_ACCOUNT - 1):
        assert log_in(Client(), "eddie", "wrong password").status_code == 200
    assert log_in(Client(), "eddie", PASSWORD).status_code == 302


def test_successful_logins_do_not_use_up_the_address_limit():
    # A newsroom behind one address logs in all day.
    users = [EditorFactory() for _ in range(LOGIN_ATTEMPTS_PER_ADDRESS + 5)]

    for user in users:
        assert log_in(Client(), user.username, PASSWORD).status_code == 302


def test_an_unknown_username_is_throttled_exactly_like_a_known_one():
    EditorFactory(username="eddie")
    answers = {}
    for username in ["eddie", "nobody-by-this-name"]:
        cache.clear()
        for _ in range(LOGIN_ATTEMPTS_PER_ACCOUNT):
            log_in(Client(), username, "wrong password")
        response = log_in(Client(), username, "wrong password")
        answers[username] = (response.status_code, page_without_tokens(response, username))

    assert answers["eddie"][0] == 429
    assert answers["eddie"] == answers["nobody-by-this-name"]


def test_the_admin_login_counts_against_the_same_limit():
    EditorFactory(username="eddie", is_staff=True)
    for _ in range(LOGIN_ATTEMPTS_PER_ACCOUNT):
        log_in(Client(), "eddie", "wrong password")
    client = Client()

    response = client.post(
        reverse("admin:login"),
        {"username": "eddie", "password": PASSWORD, "next": "/admin/"},
        REMOTE_ADDR="198.51.100.7",
    )

    assert THROTTLED_MESSAGE in response.content.decode()
    assert client.get("/admin/").status_code == 302  # still sent to log in


def test_with_trust_x_forwarded_for_the_proxys_client_address_is_counted(settings):
    settings.TRUST_X_FORWARDED_FOR = True
    EditorFactory(username="eddie")
    for number in range(LOGIN_ATTEMPTS_PER_ADDRESS):
        Client().post(
            reverse("login"),
            {"username": f"guess{number}", "password": "wrong"},
            REMOTE_ADDR="10.0.0.1",
            HTTP_X_FORWARDED_FOR="spoofed, 203.0.113.9",
        )

    from_the_flood = Client().post(
        reverse("login"),
        {"username": "eddie", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="203.0.113.9",
    )
    from_a_colleague = Client().post(
        reverse("login"),
        {"username": "eddie", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="198.51.100.7",
    )

    assert from_the_flood.status_code == 429
    assert from_a_colleague.status_code == 302


# No user enumeration at login


def test_a_wrong_password_and_an_unknown_user_get_the_same_login_answer():
    EditorFactory(username="eddie")

    wrong_password = log_in(Client(), "eddie", "wrong password")
    unknown_user = log_in(Client(), "nobody-by-this-name", "wrong password")

    assert wrong_password.status_code == unknown_user.status_code == 200
    errors = re.compile(r'<div class="form-errors" role="alert">(.*?)</div>', re.S)
    assert (
        errors.search(wrong_password.content.decode())[1]
        == errors.search(unknown_user.content.decode())[1]
    )


# Passwords and sessions


@pytest.mark.parametrize(
    "password",
    ["short-pw-1", "password123456", "12345678901234", "eddie-example-invalid"],
    ids=["too short", "common", "all digits", "like the username and e-mail"],
)
def test_weak_passwords_are_refused(password):
    user = EditorFactory(username="eddie-example", email="eddie-example@example.invalid")

    with pytest.raises(ValidationError):
        validate_password(password, user)


def test_a_long_uncommon_password_is_accepted():
    validate_password(PASSWORD, EditorFactory(username="eddie"))


def test_a_session_lasts_twelve_hours():
    EditorFactory(username="eddie")
    client = Client()
    log_in(client, "eddie", PASSWORD)

    assert settings.SESSION_COOKIE_AGE == 12 * 60 * 60
    assert client.session.get_expiry_age() == 12 * 60 * 60
    assert client.cookies[settings.SESSION_COOKIE_NAME]["max-age"] == 12 * 60 * 60


def test_changing_the_password_logs_out_the_other_sessions_but_not_this_one():
    user = EditorFactory(username="eddie")
    here, elsewhere = Client(), Client()
    log_in(here, "eddie", PASSWORD)
    log_in(elsewhere, "eddie", PASSWORD, address="198.51.100.7")
    assert is_logged_in(here) and is_logged_in(elsewhere)

    response = here.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "a new and longer passphrase",
            "new_password2": "a new and longer passphrase",
        },
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("password_change_done")
    assert is_logged_in(here)
    assert not is_logged_in(elsewhere)
    user.refresh_from_db()
    assert user.check_password("a new and longer passphrase")


def test_a_deactivated_or_deleted_user_is_logged_out_on_their_next_request():
    deactivated, deleted = EditorFactory(username="dee"), EditorFactory(username="del")
    clients = {user.username: Client() for user in (deactivated, deleted)}
    for username, client in clients.items():
        log_in(client, username, PASSWORD)
        assert is_logged_in(client)

    get_user_model().objects.filter(pk=deactivated.pk).update(is_active=False)
    deleted.delete()

    assert not is_logged_in(clients["dee"])
    assert not is_logged_in(clients["del"])


def test_a_password_change_refuses_a_weak_new_password():
    EditorFactory(username="eddie")
    client = Client()
    log_in(client, "eddie", PASSWORD)

    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": "short", "new_password2": "short"},
    )

    assert response.status_code == 200
    assert "too short" in response.content.decode()
    assert get_user_model().objects.get(username="eddie").check_password(PASSWORD)


def test_the_password_change_page_needs_a_login():
    response = Client().get(reverse("password_change"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


# Password reset


def ask_for_reset(email, address="192.0.2.10"):
    return Client().post(
        reverse("password_reset"), {"email": email}, follow=True, REMOTE_ADDR=address
    )


def test_a_reset_for_an_unknown_address_answers_exactly_as_for_a_known_one(mailoutbox):
    EditorFactory(username="eddie", email="eddie@example.org")

    known = ask_for_reset("eddie@example.org")
    unknown = ask_for_reset("nobody@example.org")

    assert known.redirect_chain == unknown.redirect_chain == [(reverse("password_reset_done"), 302)]
    assert known.status_code == unknown.status_code == 200
    assert page_without_tokens(known) == page_without_tokens(unknown)
    assert "If an account has that address" in known.content.decode()
    # Only the real account got mail.
    assert [message.to for message in mailoutbox] == [["eddie@example.org"]]


def test_the_reset_link_sets_a_new_password_and_logs_out_the_old_sessions(mailoutbox):
    user = EditorFactory(username="eddie", email="eddie@example.org")
    old_session = Client()
    log_in(old_session, "eddie", PASSWORD)
    ask_for_reset("eddie@example.org")
    link = re.search(r"http://testserver(/password/reset/\S+/)", mailoutbox[0].body)[1]
    assert mailoutbox[0].subject == "[factcheck] Reset your password"

    reader = Client()
    form_page = reader.get(link, follow=True)  # Django swaps the token for a session
    assert "Choose a new password" in form_page.content.decode()
    done = reader.post(
        form_page.redirect_chain[-1][0],
        {
            "new_password1": "a new and longer passphrase",
            "new_password2": "a new and longer passphrase",
        },
    )

    assert done.status_code == 302
    assert done["Location"] == reverse("password_reset_complete")
    user.refresh_from_db()
    assert user.check_password("a new and longer passphrase")
    assert not is_logged_in(old_session)
    # The link works once.
    assert "This link does not work" in Client().get(link, follow=True).content.decode()


def test_the_reset_pages_open_without_login():
    for name in ["password_reset", "password_reset_done", "password_reset_complete"]:
        assert Client().get(reverse(name)).status_code == 200, name


def test_reset_requests_past_the_limit_for_an_address_are_refused_with_429_and_the_address_kept(
    mailoutbox,
):
    EditorFactory(username="eddie", email="eddie@example.org")
    for _ in range(RESET_REQUESTS_PER_EMAIL):
        assert ask_for_reset("eddie@example.org").redirect_chain

    refused = ask_for_reset("eddie@example.org")
    unknown_refused = [ask_for_reset("nobody@example.org") for _ in range(4)][-1]

    assert refused.status_code == unknown_refused.status_code == 429
    assert refused["Retry-After"] == str(60 * 60)
    assert RESET_THROTTLED_MESSAGE in refused.content.decode()
    assert 'value="eddie@example.org"' in refused.content.decode()
    # Refused the same way whether or not an account has the address.
    assert page_without_tokens(refused, "eddie") == page_without_tokens(unknown_refused, "nobody")
    assert len(mailoutbox) == RESET_REQUESTS_PER_EMAIL


def test_reset_requests_past_the_limit_from_one_client_address_are_refused():
    for number in range(RESET_REQUESTS_PER_ADDRESS):
        assert ask_for_reset(f"person{number}@example.org", address="198.51.100.7").redirect_chain

    assert ask_for_reset("one-more@example.org", address="198.51.100.7").status_code == 429
    assert ask_for_reset("one-more@example.org", address="198.51.100.8").redirect_chain


def test_a_new_password_from_a_reset_link_lifts_the_login_lockout(mailoutbox):
    EditorFactory(username="eddie", email="eddie@example.org")
    client = Client()
    for _ in range(LOGIN_ATTEMPTS_PER_ACCOUNT):
        log_in(client, "eddie", "wrong password")
    assert log_in(client, "eddie", PASSWORD).status_code == 429

    ask_for_reset("eddie@example.org")
    link = re.search(r"http://testserver(/password/reset/\S+/)", mailoutbox[0].body)[1]
    form_page = client.get(link, follow=True)
    new_password = "a new and longer passphrase"
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": new_password, "new_password2": new_password},
    )

    assert done["Location"] == reverse("password_reset_complete")
    assert log_in(Client(), "eddie", new_password).status_code == 302


@pytest.mark.django_db
def test_a_part_of_a_page_whose_session_ended_gets_401_and_a_sentence_not_the_login_page():
    claim = ClaimFactory()
    edit = reverse("claims:claim_edit", args=[claim.case.slug, claim.pk])

    from_htmx = Client().post(edit, {"rationale": "typed"}, headers={"HX-Request": "true"})
    from_a_form = Client().post(edit, {"rationale": "typed"})

    assert from_htmx.status_code == 401
    assert from_htmx["Content-Type"].startswith("text/plain")
    assert from_htmx.text == SESSION_ENDED
    assert from_a_form.status_code == 302
    assert from_a_form["Location"].startswith(reverse("login"))
    # Paging through a list saves nothing, and says so.
    paging = Client().get(reverse("claims:case_list"), {"page": 2}, headers={"HX-Request": "true"})
    assert (paging.status_code, paging.text) == (401, SESSION_ENDED_READING)


@pytest.mark.django_db
def test_a_part_of_a_page_with_a_stale_csrf_token_gets_403_and_a_sentence():
    editor = EditorFactory()
    claim = ClaimFactory(author=editor)
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    client.get(claim.get_absolute_url())  # sets the CSRF cookie
    edit = reverse("claims:claim_edit", args=[claim.case.slug, claim.pk])
    stale = {"HX-Request": "true", "X-CSRFToken": "x" * 64}

    from_htmx = client.post(edit, {"rationale": "typed"}, headers=stale)
    from_a_form = client.post(edit, {"rationale": "typed"})

    assert from_htmx.status_code == 403
    assert from_htmx.text == PAGE_OUT_OF_DATE
    assert from_a_form.status_code == 403
    assert "CSRF" in from_a_form.text


@pytest.mark.django_db
def test_a_form_sent_after_the_session_ended_logs_in_back_to_the_page_it_was_on():
    claim = ClaimFactory()
    edit = reverse("claims:claim_edit", args=[claim.case.slug, claim.pk])
    page = f"http://testserver{claim.get_absolute_url()}?at=5"

    from_the_page = Client().post(edit, {"rationale": "typed"}, headers={"Referer": page})
    from_elsewhere = Client().post(
        edit, {"rationale": "typed"}, headers={"Referer": "https://evil.example/"}
    )

    login = reverse("login")
    assert from_the_page["Location"] == f"{login}?next={quote(claim.get_absolute_url())}%3Fat%3D5"
    assert from_elsewhere["Location"] == f"{login}?next=/"


@pytest.mark.django_db
def test_what_a_form_sent_after_the_session_ended_held_is_shown_back_after_logging_in():
    reviewer = ReviewerFactory(password=PASSWORD)
    assignment = ReviewAssignmentFactory(reviewer=reviewer)
    review = reverse("claims:review", args=[assignment.pk])
    client = Client()  # the session ended: no cookie any more
    comment = "The table on page 4 gives 460 seconds, not 467."

    sent = client.post(
        review,
        {"decision": "changes_requested", "comment": comment, "digest": "x" * 64},
        headers={"Referer": f"http://testserver{review}"},
    )
    login_page = client.get(sent["Location"])
    back = client.post(
        sent["Location"],
        {"username": reviewer.username, "password": PASSWORD, "next": review},
        follow=True,
    )

    assert "what you just sent was not saved" in login_page.text
    assert back.redirect_chain[-1][0] == review
    assert f"Comment: “{comment}”" in back.text
    assert "x" * 64 not in back.text  # not a hidden value, only words someone typed
    assert assignment.claim.assignments.get().comment == ""
    # Shown once.
    assert comment not in client.get(review).text


@pytest.mark.django_db
def test_a_form_without_words_sent_after_the_session_ended_is_still_said_to_be_unsaved():
    reviewer = ReviewerFactory(password=PASSWORD)
    assignment = ReviewAssignmentFactory(reviewer=reviewer)
    review = reverse("claims:review", args=[assignment.pk])
    client = Client()

    sent = client.post(review, {"decision": "approved", "comment": "", "digest": "x" * 64})
    login_page = client.get(sent["Location"])
    back = client.post(
        sent["Location"], {"username": reviewer.username, "password": PASSWORD}, follow=True
    )

    assert "what you just sent was not saved" in login_page.text
    assert "Your session had ended, so what you sent was not saved: send it again." in back.text
    assert "What you typed" not in back.text


@pytest.mark.django_db
def test_forms_kept_after_a_session_ended_are_limited_per_address_and_in_time():
    claim = ClaimFactory()
    edit = reverse("claims:claim_edit", args=[claim.case.slug, claim.pk])
    for _ in range(UNSENT_FORMS_PER_ADDRESS):
        kept = Client()
        kept.post(edit, {"rationale": "Some typed words."}, REMOTE_ADDR="192.0.2.7")
        assert "what you just sent was not saved" in kept.get(reverse("login")).text

    over = Client()
    over.post(edit, {"rationale": "Some typed words."}, REMOTE_ADDR="192.0.2.7")
    late = Client()
    late.post(edit, {"rationale": "Some typed words."}, REMOTE_ADDR="192.0.2.8")
    session = late.session
    session[UNSENT_FORM_KEY]["at"] -= UNSENT_FORM_SECONDS + 1
    session.save()

    assert "what you just sent was not saved" not in over.get(reverse("login")).text
    assert "what you just sent was not saved" not in late.get(reverse("login")).text


@pytest.mark.django_db
@pytest.mark.parametrize("kept", [[["Comment", "typed before the change"]], {"fields": []}])
def test_a_kept_form_of_another_shape_or_time_is_dropped_not_a_crash(kept):
    client = Client()
    session = client.session
    session[UNSENT_FORM_KEY] = kept  # an older release's list, or one without its time
    session.save()

    response = client.get(reverse("login"))

    assert response.status_code == 200
    assert "what you just sent was not saved" not in response.text
    assert UNSENT_FORM_KEY not in client.session
