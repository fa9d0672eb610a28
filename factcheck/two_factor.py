"""
Two-factor authentication for desk users, on django-otp.

A desk user logs in with their password as before (``factcheck.auth.LoginView``,
with its throttle), which opens a session that is *not yet verified*. Until the
user types a code from their authenticator app (a TOTP device) or one of their
recovery codes (a static device), ``TwoFactorMiddleware`` sends every desk page
to the code page; the public site and the login pages are unaffected. With
``REQUIRE_TWO_FACTOR`` on, a user who has no device yet is sent to set one up.

Codes are counted against the same per-account and per-address limits as
passwords (``factcheck.auth.LoginThrottle``): wrong codes lock the account like
wrong passwords, and ``manage.py unlock_login`` lifts either.

The state changes (setting up, confirming, new recovery codes, turning off, a
recovery code spent) are the service functions below, each audited.
"""

import re
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.core.exceptions import ValidationError
from django.db import transaction
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp import login as otp_login
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from factcheck.audit import record
from factcheck.auth import THROTTLED_MESSAGE, LoginThrottle, client_address
from factcheck.http import plain_answer

#: Recovery codes made at a time; each works once.
RECOVERY_CODE_COUNT = 10
#: The session key that remembers whether the logged-in user has a device, so
#: that a page costs no query for it (set at the first page after login).
HAS_DEVICE_SESSION_KEY = "two-factor-has-device"

# Kept in English here (tests name them) and translated where they are said.
WRONG_CODE = gettext_noop(
    "That code is not right. Type the 6-digit code your authenticator app shows now, "
    "or one of your recovery codes."
)
WRONG_SETUP_CODE = gettext_noop(
    "That code is not right. Check that the app shows the account you just added and "
    "type the 6-digit code it shows now."
)
WAIT_MESSAGE = gettext_noop("Too many wrong codes in a row. Wait a few seconds, then try again.")
VERIFY_FIRST = gettext_noop("Type your two-factor code first: your session is not verified yet.")

_TOTP_SHAPE = re.compile(r"^\d{6}$")


def _clean(token):
    # People paste codes with spaces or dashes ("123 456", "abcd-efgh").
    return re.sub(r"[\s-]", "", token or "").lower()


def totp_device_for(user, *, confirmed=True):
    """The user's TOTP device (confirmed, or the one being set up), or None."""
    return TOTPDevice.objects.filter(user=user, confirmed=confirmed).order_by("pk").first()


def recovery_codes_left(user):
    """How many unused recovery codes the user has."""
    return StaticToken.objects.filter(device__user=user, device__confirmed=True).count()


def has_two_factor(user):
    """True if the user has a confirmed authenticator app."""
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def _new_recovery_codes(user):
    # One static device per user, its codes replaced as a whole.
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name="Recovery codes", confirmed=True)
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODE_COUNT)]
    StaticToken.objects.bulk_create(StaticToken(device=device, token=code) for code in codes)
    return codes


@transaction.atomic
def totp_setup_start(*, user) -> TOTPDevice:
    """
    Make a new, unconfirmed TOTP device for ``user`` (dropping an earlier
    unconfirmed one), whose secret the setup page shows. Refused while the user
    already has two-factor on: they turn it off first. Not audited: an
    unconfirmed device lets nobody in; confirming it is audited.
    """
    if has_two_factor(user):
        raise ValidationError(
            _("Two-factor authentication is already on for your account."), code="already_on"
        )
    TOTPDevice.objects.filter(user=user, confirmed=False).delete()
    return TOTPDevice.objects.create(user=user, name="Authenticator app", confirmed=False)


@transaction.atomic
def totp_setup_confirm(*, user, token: str) -> list[str]:
    """
    Turn two-factor on: the code typed must be the one the new device's app
    shows now. Makes the recovery codes and returns them (shown once, stored
    for checking only). Audited.
    """
    device = (
        TOTPDevice.objects.select_for_update().filter(user=user, confirmed=False).order_by("pk")
    ).first()
    if device is None:
        raise ValidationError(
            _("Start the setup again: there is no new authenticator to confirm."),
            code="no_new_device",
        )
    if not _TOTP_SHAPE.match(_clean(token)) or not device.verify_token(_clean(token)):
        raise ValidationError(_(WRONG_SETUP_CODE), code="wrong_code")
    device.confirmed = True
    device.save(update_fields=["confirmed"])
    codes = _new_recovery_codes(user)
    record(
        actor=user,
        action="account.two_factor_enable",
        target=user,
        changes={"two_factor": [False, True]},
    )
    return codes


@transaction.atomic
def recovery_codes_renew(*, user) -> list[str]:
    """Replace the user's recovery codes with new ones and return them. Audited."""
    if not has_two_factor(user):
        raise ValidationError(_("Turn two-factor authentication on first."), code="off")
    codes = _new_recovery_codes(user)
    record(actor=user, action="account.recovery_codes_renew", target=user)
    return codes


def _verify(user, token):
    """
    The device that accepts ``token``, or None: a 6-digit code is tried on the
    authenticator app only, anything else on the recovery codes only, so that a
    recovery code never counts as a wrong app code (django-otp slows a device
    down after each wrong code). Raises ValidationError while a device is slowed.
    """
    token = _clean(token)
    if _TOTP_SHAPE.match(token):
        devices = TOTPDevice.objects.select_for_update().filter(user=user, confirmed=True)
    else:
        devices = StaticDevice.objects.select_for_update().filter(user=user, confirmed=True)
    for device in devices:
        allowed, _why = device.verify_is_allowed()
        if not allowed:
            raise ValidationError(_(WAIT_MESSAGE), code="wait")
        if device.verify_token(token):
            return device
    return None


def two_factor_verify(*, request, token: str):
    """
    Verify the session of ``request.user`` with ``token``: a code from their
    app, or a recovery code, which is spent (audited). Counted against the
    login throttle like a password; returns the device, or raises
    ValidationError saying why not.
    """
    user = request.user
    throttle = LoginThrottle(username=user.get_username(), address=client_address(request))
    if not throttle.attempt():
        raise ValidationError(_(THROTTLED_MESSAGE), code="throttled")
    # Not in one transaction with the throttle: a wrong code must stay counted.
    # The wrong code is refused after the transaction, so that django-otp's own
    # count of wrong codes on the device is kept too.
    with transaction.atomic():
        device = _verify(user, token)
        if isinstance(device, StaticDevice):
            record(
                actor=user,
                action="account.recovery_code_use",
                target=user,
                changes={"recovery_codes_left": recovery_codes_left(user)},
            )
    if device is None:
        raise ValidationError(_(WRONG_CODE), code="wrong_code")
    throttle.succeeded()
    otp_login(request, device)
    return device


@transaction.atomic
def two_factor_disable(*, request, token: str) -> None:
    """
    Turn two-factor off for ``request.user``: a current code (or a recovery
    code) is asked for, so that an open session alone cannot do it. Audited.
    """
    user = request.user
    if not has_two_factor(user):
        raise ValidationError(
            _("Two-factor authentication is not on for your account."), code="off"
        )
    if _verify(user, token) is None:
        raise ValidationError(_(WRONG_CODE), code="wrong_code")
    TOTPDevice.objects.filter(user=user).delete()
    StaticDevice.objects.filter(user=user).delete()
    request.session.pop(DEVICE_ID_SESSION_KEY, None)
    request.session[HAS_DEVICE_SESSION_KEY] = False
    record(
        actor=user,
        action="account.two_factor_disable",
        target=user,
        changes={"two_factor": [True, False]},
    )


def session_verified(request, device):
    """After setting up: the session that proved the new code counts as verified."""
    otp_login(request, device)
    request.session[HAS_DEVICE_SESSION_KEY] = True


#: Pages an unverified session may still open (besides the public ones).
_LOGOUT = {"logout", "admin:logout"}
_VERIFY = {"two_factor_verify"}
_SETUP = {"two_factor", "two_factor_setup"}


class TwoFactorMiddleware:
    """
    Sends a logged-in but unverified session to the code page (a user with a
    device) or, with ``REQUIRE_TWO_FACTOR``, to the setup page (a user without).
    Public views (``login_not_required``) are left alone. An htmx request gets
    401 and a sentence instead of a redirect into the part of the page.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not getattr(view_func, "login_required", True):
            return None
        user = request.user
        if not user.is_authenticated or user.is_verified():
            return None
        name = request.resolver_match.view_name if request.resolver_match else ""
        if name in _LOGOUT:
            return None
        has_device = request.session.get(HAS_DEVICE_SESSION_KEY)
        if has_device is None:
            # Once per session: afterwards the answer is read from the session.
            has_device = has_two_factor(user)
            request.session[HAS_DEVICE_SESSION_KEY] = has_device
        if has_device:
            if name in _VERIFY:
                return None
            target = "two_factor_verify"
        elif settings.REQUIRE_TWO_FACTOR:
            if name in _SETUP:
                return None
            target = "two_factor_setup"
        else:
            return None
        if getattr(request, "htmx", False):
            return plain_answer(_(VERIFY_FIRST), 401)
        query = urlencode({"next": request.get_full_path()})
        return redirect(f"{reverse(target)}?{query}")


def _fresh_login(sender, request, user, **kwargs):
    # A password login starts unverified, whatever the session held before. Whether
    # the user has a device is read here, once, so that no page pays a query for it.
    if request is not None and hasattr(request, "session"):
        request.session[HAS_DEVICE_SESSION_KEY] = has_two_factor(user)
        if getattr(user, "otp_device", None) is None:
            request.session.pop(DEVICE_ID_SESSION_KEY, None)


user_logged_in.connect(_fresh_login, dispatch_uid="factcheck-two-factor-fresh-login")
