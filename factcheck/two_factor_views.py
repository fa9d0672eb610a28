"""
The pages of two-factor authentication (services in factcheck/two_factor.py):
the account's two-factor page, setting up an authenticator app, the code asked
for after the password, new recovery codes, turning two-factor off.
"""

from base64 import b32encode

from django import forms
from django.conf import settings
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.shortcuts import redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from factcheck.auth import LOGIN_WINDOW_SECONDS
from factcheck.two_factor import (
    HAS_DEVICE_SESSION_KEY,
    has_two_factor,
    recovery_codes_left,
    recovery_codes_renew,
    session_verified,
    totp_device_for,
    totp_setup_confirm,
    totp_setup_start,
    two_factor_disable,
    two_factor_verify,
)


class CodeForm(forms.Form):
    code = forms.CharField(
        label=_("Code"),
        max_length=32,
        help_text=_("The 6-digit code your authenticator app shows, or a recovery code."),
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "text", "autofocus": True}
        ),
    )


class SetupCodeForm(forms.Form):
    code = forms.CharField(
        label=_("Code from the app"),
        max_length=16,
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "autofocus": True}
        ),
    )


def _next_url(request):
    url = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME, "")
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return resolve_url(settings.LOGIN_REDIRECT_URL)


def _refused(form, error):
    for message in error.messages:
        form.add_error(None, ValidationError(message, code=getattr(error, "code", None)))


@never_cache
@require_safe
def two_factor_view(request):
    """The account's two-factor page: on or off, recovery codes left, what to do."""
    return render(
        request,
        "registration/two_factor.html",
        {
            "enabled": has_two_factor(request.user),
            "codes_left": recovery_codes_left(request.user),
            "required": settings.REQUIRE_TWO_FACTOR,
            "next": request.GET.get(REDIRECT_FIELD_NAME, ""),
        },
    )


@never_cache
@require_http_methods(["GET", "POST"])
def two_factor_setup_view(request):
    """
    Set up an authenticator app: start (a new secret), then confirm with a code;
    the recovery codes are shown once, on the page that confirms.
    """
    user = request.user
    if has_two_factor(user):
        return redirect("two_factor")
    form = SetupCodeForm()
    if request.method == "POST" and request.POST.get("action") == "confirm":
        form = SetupCodeForm(request.POST)
        if form.is_valid():
            try:
                codes = totp_setup_confirm(user=user, token=form.cleaned_data["code"])
            except ValidationError as error:
                _refused(form, error)
            else:
                session_verified(request, totp_device_for(user))
                return render(
                    request,
                    "registration/two_factor_codes.html",
                    {"codes": codes, "next": _next_url(request), "new_setup": True},
                )
    elif request.method == "POST":
        totp_setup_start(user=user)
        form = SetupCodeForm()
    device = totp_device_for(user, confirmed=False)
    context = {
        "form": form,
        "device": device,
        "secret": b32encode(device.bin_key).decode() if device else "",
        "otpauth_uri": device.config_url if device else "",
        "required": settings.REQUIRE_TWO_FACTOR,
        "next": request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME, ""),
    }
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "registration/two_factor_setup.html", context, status=status)


@never_cache
@require_http_methods(["GET", "POST"])
def two_factor_verify_view(request):
    """The code asked for after the password, from the app or a recovery code."""
    if request.user.is_verified():
        return redirect(_next_url(request))
    if not has_two_factor(request.user):
        # The device went away meanwhile (turned off elsewhere): ask again who needs what.
        request.session.pop(HAS_DEVICE_SESSION_KEY, None)
        return redirect(_next_url(request))
    form = CodeForm(request.POST or None)
    status = 200
    if form.is_bound and form.is_valid():
        try:
            two_factor_verify(request=request, token=form.cleaned_data["code"])
        except ValidationError as error:
            _refused(form, error)
        else:
            return redirect(_next_url(request))
    if form.is_bound:
        status = 429 if form.has_error(NON_FIELD_ERRORS, "throttled") else 400
    response = render(
        request,
        "registration/two_factor_verify.html",
        {"form": form, "next": _next_url(request)},
        status=status,
    )
    if status == 429:
        response["Retry-After"] = str(LOGIN_WINDOW_SECONDS)
    return response


@never_cache
@require_POST
def two_factor_recovery_codes_view(request):
    """New recovery codes, shown once; the old ones stop working."""
    try:
        codes = recovery_codes_renew(user=request.user)
    except ValidationError:
        return redirect("two_factor")
    return render(
        request,
        "registration/two_factor_codes.html",
        {"codes": codes, "next": resolve_url("two_factor"), "new_setup": False},
    )


@never_cache
@require_http_methods(["GET", "POST"])
def two_factor_disable_view(request):
    """Turn two-factor off, with a current code."""
    if not has_two_factor(request.user):
        return redirect("two_factor")
    form = CodeForm(request.POST or None)
    if form.is_bound and form.is_valid():
        try:
            two_factor_disable(request=request, token=form.cleaned_data["code"])
        except ValidationError as error:
            _refused(form, error)
        else:
            return redirect("two_factor")
    status = 400 if form.is_bound else 200
    return render(
        request,
        "registration/two_factor_disable.html",
        {"form": form, "required": settings.REQUIRE_TWO_FACTOR},
        status=status,
    )
