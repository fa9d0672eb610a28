"""
Logging in and resetting passwords: login throttling and the forms and views
around Django's own auth views.

Failed logins are limited per account (the typed username, whether or not it
exists, so the limit tells nothing about which accounts exist) and per client
address, counted in the cache (LocMem, or Redis when REDIS_URL is set, shared by
every server process). Over either limit a login is refused without looking at
the password, with status 429, until the window that began with the first
counted attempt ends.

A request from a part of a page (htmx) whose session has ended, or whose CSRF
token is out of date, gets a sentence in plain text (401, 403) that the page
shows above itself, keeping what the user typed, instead of the login page or
Django's CSRF page inside the part.
"""

import contextlib
import hashlib
import hmac
import time
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import middleware as auth_middleware
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.contrib.auth.views import redirect_to_login
from django.core import mail
from django.core.cache import cache
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import transaction
from django.shortcuts import resolve_url
from django.tasks import task
from django.template import loader
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views import csrf as csrf_views

from factcheck.audit import record
from factcheck.http import plain_answer

#: Attempts allowed per window for one username, and from one client address.
LOGIN_ATTEMPTS_PER_ACCOUNT = 5
LOGIN_ATTEMPTS_PER_ADDRESS = 20
LOGIN_WINDOW_SECONDS = 15 * 60

# The refusals below are kept in English here (tests and other modules name
# them) and translated where they are said: ``_(THROTTLED_MESSAGE)``.
THROTTLED_MESSAGE = gettext_noop(
    "Too many failed logins for this account or from this address. Wait 15 minutes, then try again."
)

#: Password-reset requests allowed per window for one e-mail address (whether or
#: not an account has it, so the limit tells nothing), and from one client address.
RESET_REQUESTS_PER_EMAIL = 3
RESET_REQUESTS_PER_ADDRESS = 10
RESET_WINDOW_SECONDS = 60 * 60

RESET_THROTTLED_MESSAGE = gettext_noop(
    "Too many password-reset requests for this e-mail address or from this address. "
    "Wait an hour, then try again; a link already sent still works."
)


def client_address(request):
    """
    The client's IP address: REMOTE_ADDR, or with TRUST_X_FORWARDED_FOR the last
    address in X-Forwarded-For (the one our own proxy appended).
    """
    if settings.TRUST_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").rsplit(",", 1)[-1].strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR", "")


def _counter_key(kind, value):
    # Keyed hashes: the cache never holds usernames or addresses in the clear.
    digest = hmac.new(settings.SECRET_KEY.encode(), value.encode(), hashlib.sha256).hexdigest()
    return f"login-attempts:{kind}:{digest}"


def _count(key, window=LOGIN_WINDOW_SECONDS):
    cache.add(key, 0, window)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr: a new window
        cache.add(key, 1, window)
        return 1


def _account_key(username):
    return _counter_key("account", username.strip().casefold())


class LoginThrottle:
    """
    The attempt counters of one login: the account's (by the typed username,
    case-folded) and the client address's.

    Each attempt is counted before the password is checked, so parallel
    requests cannot slip past the limit; a successful login clears the
    account's counter and gives its attempt back to the address.
    """

    def __init__(self, *, username, address):
        self.account_key = _account_key(username)
        self.address_key = _counter_key("address", address)

    def attempt(self):
        """Count one attempt; False when the account or the address is over its limit."""
        account_attempts = _count(self.account_key)
        address_attempts = _count(self.address_key)
        return (
            account_attempts <= LOGIN_ATTEMPTS_PER_ACCOUNT
            and address_attempts <= LOGIN_ATTEMPTS_PER_ADDRESS
        )

    def succeeded(self):
        """The attempt logged in: the account starts afresh, the address is not charged."""
        cache.delete(self.account_key)
        with contextlib.suppress(ValueError):  # the window ended meanwhile
            cache.decr(self.address_key)


@transaction.atomic
def login_unlock(*, user, actor=None) -> bool:
    """
    Lift the login lockout of ``user``'s account (wrong passwords or two-factor
    codes): their attempt counter starts afresh. Audited, whether or not the
    account was locked; True if it was. The counter lives in the cache, so this
    reaches the app servers only through a cache they share (REDIS_URL).
    """
    key = _account_key(user.get_username())
    attempts = cache.get(key) or 0
    cache.delete(key)
    locked = attempts > LOGIN_ATTEMPTS_PER_ACCOUNT
    record(
        actor=actor,
        action="account.login_unlock",
        target=user,
        changes={"failed_attempts": [attempts, 0], "locked": [locked, False]},
    )
    return locked


class ThrottledLoginMixin:
    """An authentication form that refuses to check a password while throttled."""

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if not (username and password):
            return super().clean()
        throttle = LoginThrottle(username=username, address=client_address(self.request))
        if not throttle.attempt():
            raise ValidationError(_(THROTTLED_MESSAGE), code="throttled")
        cleaned_data = super().clean()
        throttle.succeeded()
        return cleaned_data


class LoginForm(ThrottledLoginMixin, AuthenticationForm):
    """The site's login form."""


class AdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    """The admin's login form, counted against the same limits as the site's."""


class LoginView(auth_views.LoginView):
    """
    Django's login view with the throttled form; a throttled login answers 429.
    A form sent after the session ended (``LoginRequiredMiddleware``) was kept:
    the login page says so, and the page the user goes back to shows its text.
    """

    authentication_form = LoginForm

    def get_context_data(self, **kwargs):
        return super().get_context_data(**kwargs) | {
            "unsent_form": _unsent_form(self.request) is not None
        }

    def form_valid(self, form):
        unsent = _unsent_form(self.request)
        # login() keeps the session's data (only its key changes) when nobody was logged in.
        response = super().form_valid(form)
        if unsent is not None:
            self.request.session.pop(UNSENT_FORM_KEY, None)
            said = _("Your session had ended, so what you sent was not saved: send it again.")
            if unsent:
                typed = " · ".join(
                    # Translators: a field of a form that was not saved, and what was typed in it.
                    _("%(label)s: “%(text)s”") % {"label": label, "text": text}
                    for label, text in unsent
                )
                said += " " + _("What you typed, to paste back: %(typed)s") % {"typed": typed}
            messages.warning(self.request, said)
        return response

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.has_error(NON_FIELD_ERRORS, "throttled"):
            response.status_code = 429
            response["Retry-After"] = str(LOGIN_WINDOW_SECONDS)
        return response


@task
def send_password_reset_mail(*, subject, body, to_email):
    """Send one password-reset mail through the default mailer."""
    mail.send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [to_email])


class ResetForm(PasswordResetForm):
    """
    Django's password-reset form, mailing from a background task: the page
    answers as fast for an address with an account as for one without.
    """

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ):
        subject = "".join(loader.render_to_string(subject_template_name, context).splitlines())
        body = loader.render_to_string(email_template_name, context)
        send_password_reset_mail.enqueue(subject=subject, body=body, to_email=to_email)


class PasswordResetView(auth_views.PasswordResetView):
    """
    Django's reset request, limited per typed e-mail address and per client
    address (counted before anything is looked up or mailed); over either
    limit it answers 429 with the address kept in the form.
    """

    form_class = ResetForm

    def form_valid(self, form):
        email_requests = _count(
            _counter_key("reset-email", form.cleaned_data["email"].strip().casefold()),
            RESET_WINDOW_SECONDS,
        )
        address_requests = _count(
            _counter_key("reset-address", client_address(self.request)), RESET_WINDOW_SECONDS
        )
        if email_requests > RESET_REQUESTS_PER_EMAIL or (
            address_requests > RESET_REQUESTS_PER_ADDRESS
        ):
            form.add_error(None, ValidationError(_(RESET_THROTTLED_MESSAGE), code="throttled"))
            response = self.form_invalid(form)
            response.status_code = 429
            response["Retry-After"] = str(RESET_WINDOW_SECONDS)
            return response
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's new-password step; a new password also lifts the account's login lockout."""

    def form_valid(self, form):
        response = super().form_valid(form)
        cache.delete(_account_key(form.user.get_username()))
        return response


#: What a part of a page says when its request could not be trusted as the
#: user's; the page keeps what was typed (static/js/request_errors.js).
SESSION_ENDED = gettext_noop(
    "Your session has ended, so nothing was saved. Copy what you typed, then reload the "
    "page and log in again."
)
SESSION_ENDED_READING = gettext_noop("Your session has ended. Reload the page and log in again.")
PAGE_OUT_OF_DATE = gettext_noop(
    "This page is out of date for your login (you logged in or out in another tab), so "
    "nothing was saved. Copy what you typed, then reload the page."
)


class LoginRequiredMiddleware(auth_middleware.LoginRequiredMiddleware):
    """
    Django's, except for an htmx request: a part of a page whose session has
    ended gets 401 and a sentence instead of the login page, which htmx would
    put inside the part in place of what the user typed there.
    """

    def handle_no_permission(self, request, view_func):
        reading = request.method in ("GET", "HEAD")
        if request.htmx:
            return plain_answer(_(SESSION_ENDED_READING if reading else SESSION_ENDED), 401)
        if not reading:
            _keep_unsent_form(request)
            # After logging in, back to the page the form was on: the form's own URL
            # answers only POST.
            referer = request.headers.get("Referer", "")
            back = urlsplit(referer)
            local = url_has_allowed_host_and_scheme(
                referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
            )
            return redirect_to_login(
                back.path + (f"?{back.query}" if back.query else "") if local and referer else "/",
                resolve_url(self.get_login_url(view_func)),
                self.get_redirect_field_name(view_func),
            )
        return super().handle_no_permission(request, view_func)


#: The session key of what a form sent after the session ended held.
UNSENT_FORM_KEY = "unsent-form"
#: What is kept of it: text a person typed, not ids, tokens and choices.
UNSENT_FORM_CHARS = 4000
#: For how long the login page speaks of it; after that it is dropped.
UNSENT_FORM_SECONDS = 3600
#: Forms kept per client address an hour: anyone may post to a desk URL, and
#: each keeps a session row. A newsroom behind one address sends far fewer.
UNSENT_FORMS_PER_ADDRESS = 200
_NOT_TYPED = {"csrfmiddlewaretoken", "next", "website", "action", "version"}


def _unsent_form(request):
    """
    The text kept by ``_keep_unsent_form`` (maybe none), or None: nothing was
    sent, or too long ago (what is stale, or not in the shape kept, is dropped).
    """
    kept = request.session.get(UNSENT_FORM_KEY)
    if kept is None:
        return None
    if not isinstance(kept, dict) or time.time() - kept.get("at", 0) > UNSENT_FORM_SECONDS:
        request.session.pop(UNSENT_FORM_KEY, None)
        return None
    return kept.get("fields", [])


def _keep_unsent_form(request):
    """
    Keep, in the (new, anonymous) session, that a form was sent after the
    session ended, and the text a person typed in it: fields holding words
    (white space inside; a single word is quick to type again, and ids, digests
    and tokens are single words), never passwords or the form's hidden copies.
    At most ``UNSENT_FORMS_PER_ADDRESS`` an hour from one address.
    """
    if (
        _count(_counter_key("unsent-form", client_address(request)), UNSENT_FORM_SECONDS)
        > UNSENT_FORMS_PER_ADDRESS
    ):
        return
    kept, room = [], UNSENT_FORM_CHARS
    for name, value in request.POST.items():
        text = value.strip()
        if (
            not any(character.isspace() for character in text)
            or name in _NOT_TYPED
            or name.startswith("initial-")
            or "password" in name
        ):
            continue
        kept.append((name.replace("_", " ").capitalize(), text[:room]))
        room -= len(kept[-1][1])
        if room <= 0:
            break
    request.session[UNSENT_FORM_KEY] = {"at": time.time(), "fields": kept}


def csrf_failure(request, reason=""):
    """``CSRF_FAILURE_VIEW``: Django's page, or for an htmx request a sentence (as above)."""
    if request.htmx:
        return plain_answer(_(PAGE_OUT_OF_DATE), 403)
    return csrf_views.csrf_failure(request, reason=reason)
