"""
A desk user's own settings: for now, the language of the interface.

The language menu (templates/base.html) posts to ``factcheck.views.set_language_view``.
A signed-in user's choice is kept on their account (``Preferences``) by
``preferences_set_language``, audited; anyone else's only in Django's language
cookie. The choice is read once, at login, into the session, where
``factcheck.middleware.UserLanguageMiddleware`` finds it on every page without a query.
"""

from django import forms
from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from factcheck.audit import record
from factcheck.models import Preferences

#: The session key holding the signed-in user's saved language ("" for none).
LANGUAGE_SESSION_KEY = "preferences-language"


def offered_languages():
    """``{code: name}`` of the languages the interface is offered in."""
    return dict(settings.LANGUAGES)


def unknown_language_message(language):
    return _(
        "“%(language)s” is not a language this site is offered in. Choose one of: %(names)s."
    ) % {"language": language[:20], "names": ", ".join(offered_languages().values())}


class LanguageForm(forms.Form):
    """The language menu: a language, and the page to go back to."""

    language = forms.CharField(label=gettext_lazy("Language"))
    next = forms.CharField(required=False, max_length=2000)

    def clean_language(self):
        language = self.cleaned_data["language"]
        if language not in offered_languages():
            raise ValidationError(unknown_language_message(language), code="unknown_language")
        return language


@transaction.atomic
def preferences_set_language(*, user, language: str) -> Preferences:
    """
    Keep ``language`` (a code from ``LANGUAGES``) as ``user``'s interface language,
    on their account, so that it follows them to every browser they log in from.
    An unknown code is refused (``ValidationError``) and nothing is saved. Audited
    when the choice changes.
    """
    if language not in offered_languages():
        raise ValidationError(unknown_language_message(language), code="unknown_language")
    preferences, _created = Preferences.objects.select_for_update().get_or_create(user=user)
    before = preferences.language
    if before != language:
        preferences.language = language
        preferences.save(update_fields=["language"])
        record(
            actor=user,
            action="account.language_change",
            target=user,
            changes={"language": [before, language]},
        )
    return preferences


def saved_language(user):
    """``user``'s saved interface language, "" for none (one query)."""
    saved = Preferences.objects.filter(user=user).values_list("language", flat=True).first()
    return saved if saved in offered_languages() else ""


def remember_language(request, language):
    """Keep ``language`` in the session for ``UserLanguageMiddleware`` to read."""
    request.session[LANGUAGE_SESSION_KEY] = language


def set_language_cookie(response, language):
    """Django's language cookie, which ``LocaleMiddleware`` reads when nobody is signed in."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


def _language_at_login(sender, request, user, **kwargs):
    # Read here, once a login, so that no page pays a query for it.
    if request is not None and hasattr(request, "session"):
        remember_language(request, saved_language(user))


user_logged_in.connect(_language_at_login, dispatch_uid="factcheck-preferences-language")
