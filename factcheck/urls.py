from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

# Registers the <id:…> converter the apps' URLs use, before any of them is read.
import factcheck.http  # noqa: F401
from factcheck.auth import (
    AdminLoginForm,
    LoginView,
    PasswordResetConfirmView,
    PasswordResetView,
)
from factcheck.two_factor_views import (
    two_factor_disable_view,
    two_factor_recovery_codes_view,
    two_factor_setup_view,
    two_factor_verify_view,
    two_factor_view,
)
from factcheck.views import (
    healthz_view,
    javascript_catalog_view,
    readyz_view,
    search_view,
    set_language_view,
)

# A lost database answers 503 with a plain page instead of a 500 (factcheck/database_outage.py).
handler500 = "factcheck.views.server_error"
# A form over the size limit (a very long pasted text) says so (factcheck/views.py).
handler400 = "factcheck.views.bad_request"

# The admin's login counts failed attempts against the same limits as the site's.
admin.site.login_form = AdminLoginForm
RESET_LINK_HOURS = settings.PASSWORD_RESET_TIMEOUT // 3600

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="claims:case_list"), name="home"),
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password/changed/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # Django's reset views are marked login_not_required already.
    path(
        "password/reset/",
        PasswordResetView.as_view(extra_email_context={"timeout_hours": RESET_LINK_HOURS}),
        name="password_reset",
    ),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(extra_context={"timeout_hours": RESET_LINK_HOURS}),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    # Two-factor authentication (factcheck/two_factor.py).
    path("account/two-factor/", two_factor_view, name="two_factor"),
    path("account/two-factor/setup/", two_factor_setup_view, name="two_factor_setup"),
    path("account/two-factor/verify/", two_factor_verify_view, name="two_factor_verify"),
    path(
        "account/two-factor/recovery-codes/",
        two_factor_recovery_codes_view,
        name="two_factor_recovery_codes",
    ),
    path("account/two-factor/disable/", two_factor_disable_view, name="two_factor_disable"),
    path("admin/", admin.site.urls),
    path("search/", search_view, name="search"),
    # The language menu (factcheck/preferences.py), and the translations scripts use.
    path("language/", set_language_view, name="set-language"),
    path("jsi18n/", javascript_catalog_view, name="javascript-catalog"),
    path("healthz", healthz_view, name="healthz"),
    path("readyz", readyz_view, name="readyz"),
    path("sources/", include("sources.urls")),
    path("", include("claims.urls")),
]
