from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from factcheck.views import healthz_view, search_view

# A lost database answers 503 with a plain page instead of a 500 (factcheck/middleware.py).
handler500 = "factcheck.middleware.server_error"

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="claims:case_list"), name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("search/", search_view, name="search"),
    path("healthz", healthz_view, name="healthz"),
    path("sources/", include("sources.urls")),
    path("", include("claims.urls")),
]
