"""
Two-factor authentication: setting up an authenticator app, logging in with a
real TOTP code (computed here per RFC 6238), a wrong code refused, recovery
codes that work once, REQUIRE_TWO_FACTOR, turning it off, the login lockout
shared by passwords and codes, and ``manage.py unlock_login``.
"""

import hashlib
import hmac
import re
import struct
import time
from base64 import b32decode
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.urls import reverse
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from factcheck.auth import LOGIN_ATTEMPTS_PER_ACCOUNT, THROTTLED_MESSAGE
from factcheck.models import AuditEvent
from factcheck.two_factor import WRONG_CODE
from tests.factories import EditorFactory

PASSWORD = "correct horse battery staple"

pytestmark = pytest.mark.django_db


def totp(secret_b32, at=None, step=30, digits=6):
    """RFC 6238 TOTP (HMAC-SHA1, RFC 4226 dynamic truncation), written out here."""
    counter = int((time.time() if at is None else at) // step)
    digest = hmac.new(b32decode(secret_b32), struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(number % 10**digits).zfill(digits)


def log_in(client, user):
    return client.post(reverse("login"), {"username": user.username, "password": PASSWORD})


def set_up_app(client):
    """Set up an authenticator through the pages; returns (secret, recovery codes)."""
    page = client.post(reverse("two_factor_setup"))
    secret = re.search(r'<code class="secret">([A-Z2-7]+)</code>', page.text)[1]
    # The previous step's code: it is valid now too (one step of tolerance), and the
    # next login's code (this step's) is not yet spent.
    done = client.post(
        reverse("two_factor_setup"),
        {"action": "confirm", "code": totp(secret, at=time.time() - 30)},
    )
    assert done.status_code == 200
    codes = re.findall(r"<li><code>([a-z2-7]{8})</code></li>", done.text)
    return secret, codes


@pytest.fixture
def editor():
    user = EditorFactory()
    user.set_password(PASSWORD)
    user.save()
    return user


@pytest.fixture
def editor_with_app(editor):
    client = Client()
    client.force_login(editor)
    secret, codes = set_up_app(client)
    return editor, secret, codes


def test_setting_up_shows_the_secret_confirms_with_a_code_and_shows_ten_recovery_codes(editor):
    client = Client()
    log_in(client, editor)
    start = client.post(reverse("two_factor_setup"))
    assert "otpauth://totp/factcheck%3A" in start.text
    secret, codes = None, None
    secret = re.search(r'<code class="secret">([A-Z2-7]+)</code>', start.text)[1]
    wrong = client.post(reverse("two_factor_setup"), {"action": "confirm", "code": "000000"})
    assert wrong.status_code == 400
    assert "That code is not right" in wrong.text
    done = client.post(reverse("two_factor_setup"), {"action": "confirm", "code": totp(secret)})
    codes = re.findall(r"<li><code>([a-z2-7]{8})</code></li>", done.text)
    assert len(codes) == 10
    assert "shown only this once" in done.text
    assert TOTPDevice.objects.get(user=editor).confirmed
    assert AuditEvent.objects.filter(action="account.two_factor_enable").count() == 1
    # The session that proved the code goes on without being asked again.
    assert client.get(reverse("claims:case_list")).status_code == 200
    # Shown once: the account page counts them but never shows them again.
    page = client.get(reverse("two_factor"))
    assert "Recovery codes left: <strong>10</strong>" in page.text
    assert codes[0] not in page.text


def test_a_password_login_with_an_app_asks_for_the_code_before_any_desk_page(editor_with_app):
    editor, _secret, _ = editor_with_app
    client = Client()
    answer = log_in(client, editor)
    desk = client.get(answer["Location"])
    assert desk.status_code == 302
    assert desk["Location"].startswith(reverse("two_factor_verify") + "?next=")
    # An htmx part gets a sentence, not the code page inside it.
    part = client.get(reverse("claims:case_list"), headers={"HX-Request": "true"})
    assert part.status_code == 401
    # Public pages are not behind the code.
    assert client.get(reverse("claims:corrections_log")).status_code == 200


def test_a_real_totp_code_logs_in_and_goes_on_to_the_page_asked_for(editor_with_app):
    editor, secret, _ = editor_with_app
    client = Client()
    log_in(client, editor)
    target = reverse("claims:case_list")
    answer = client.post(
        f"{reverse('two_factor_verify')}?next={target}", {"code": totp(secret), "next": target}
    )
    assert answer.status_code == 302
    assert answer["Location"] == target
    assert client.get(target).status_code == 200


def test_a_wrong_code_is_refused_with_a_clear_message(editor_with_app):
    editor, secret, _ = editor_with_app
    client = Client()
    log_in(client, editor)
    right = totp(secret)
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"
    answer = client.post(reverse("two_factor_verify"), {"code": wrong})
    assert answer.status_code == 400
    assert WRONG_CODE in answer.text
    assert client.get(reverse("claims:case_list")).status_code == 302


def test_a_recovery_code_works_once(editor_with_app):
    editor, _, codes = editor_with_app
    first = Client()
    log_in(first, editor)
    answer = first.post(reverse("two_factor_verify"), {"code": codes[0].upper()})
    assert answer.status_code == 302
    assert first.get(reverse("claims:case_list")).status_code == 200
    assert StaticToken.objects.filter(device__user=editor).count() == 9
    assert AuditEvent.objects.filter(action="account.recovery_code_use").count() == 1

    again = Client()
    log_in(again, editor)
    refused = again.post(reverse("two_factor_verify"), {"code": codes[0]})
    assert refused.status_code == 400
    assert WRONG_CODE in refused.text
    assert again.get(reverse("claims:case_list")).status_code == 302


def test_new_recovery_codes_replace_the_old_ones(editor_with_app):
    editor, _, codes = editor_with_app
    client = Client()
    client.force_login(editor)
    # force_login skips the code: this session is an unverified one.
    log_in(client, editor)
    client.post(reverse("two_factor_verify"), {"code": codes[1]})
    renewed = client.post(reverse("two_factor_recovery_codes"))
    new_codes = re.findall(r"<li><code>([a-z2-7]{8})</code></li>", renewed.text)
    assert len(new_codes) == 10
    assert not StaticToken.objects.filter(token__in=codes).exists()


@override_settings(REQUIRE_TWO_FACTOR=True)
def test_with_two_factor_required_a_user_without_an_app_is_sent_to_set_one_up(editor):
    client = Client()
    log_in(client, editor)
    desk = client.get(reverse("claims:case_list"))
    assert desk.status_code == 302
    assert desk["Location"].startswith(reverse("two_factor_setup"))
    _secret, codes = set_up_app(client)
    assert len(codes) == 10
    assert client.get(reverse("claims:case_list")).status_code == 200


def test_without_the_requirement_a_user_without_an_app_logs_in_with_the_password(editor):
    client = Client()
    log_in(client, editor)
    assert client.get(reverse("claims:case_list")).status_code == 200


def test_turning_it_off_needs_a_current_code_and_is_audited(editor_with_app):
    editor, _secret, codes = editor_with_app
    client = Client()
    log_in(client, editor)
    client.post(reverse("two_factor_verify"), {"code": codes[0]})
    refused = client.post(reverse("two_factor_disable"), {"code": "not a code"})
    assert refused.status_code == 400
    assert TOTPDevice.objects.filter(user=editor).exists()
    done = client.post(reverse("two_factor_disable"), {"code": codes[1]})
    assert done.status_code == 302
    assert not TOTPDevice.objects.filter(user=editor).exists()
    assert not StaticToken.objects.filter(device__user=editor).exists()
    assert AuditEvent.objects.filter(action="account.two_factor_disable").count() == 1
    # The next login asks for the password only.
    fresh = Client()
    log_in(fresh, editor)
    assert fresh.get(reverse("claims:case_list")).status_code == 200


@override_settings(OTP_TOTP_THROTTLE_FACTOR=0, OTP_STATIC_THROTTLE_FACTOR=0)
def test_wrong_codes_lock_the_account_like_wrong_passwords_and_unlock_login_lifts_it(
    editor_with_app,
):
    editor, _secret, codes = editor_with_app
    client = Client()
    log_in(client, editor)
    for _ in range(LOGIN_ATTEMPTS_PER_ACCOUNT):
        assert client.post(reverse("two_factor_verify"), {"code": "zzzzzzzz"}).status_code == 400
    locked = client.post(reverse("two_factor_verify"), {"code": codes[0]})
    assert locked.status_code == 429
    assert THROTTLED_MESSAGE in locked.text
    # A password login is refused too: the same lockout.
    assert log_in(Client(), editor).status_code == 429

    out = StringIO()
    call_command("unlock_login", editor.username, stdout=out)
    assert "lockout is lifted" in out.getvalue()
    event = AuditEvent.objects.get(action="account.login_unlock")
    assert event.target_id == str(editor.pk)
    assert event.changes["locked"] == [True, False]
    assert client.post(reverse("two_factor_verify"), {"code": codes[0]}).status_code == 302


def test_five_wrong_passwords_still_lock_an_account_and_unlock_login_lifts_it(editor):
    for _ in range(LOGIN_ATTEMPTS_PER_ACCOUNT):
        Client().post(reverse("login"), {"username": editor.username, "password": "wrong"})
    assert log_in(Client(), editor).status_code == 429
    call_command("unlock_login", editor.username, stdout=StringIO())
    assert log_in(Client(), editor).status_code == 302


def test_unlock_login_refuses_an_unknown_username():
    with pytest.raises(CommandError, match="no account"):
        call_command("unlock_login", "nobody-here", stdout=StringIO())
