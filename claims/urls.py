from django.urls import path

from claims import views

app_name = "claims"

urlpatterns = [
    path("cases/", views.case_list_view, name="case_list"),
    path("cases/<slug:slug>/", views.case_detail_view, name="case_detail"),
    path("reviews/", views.my_reviews_view, name="my_reviews"),
    path("corrections/", views.corrections_log_view, name="corrections_log"),
]
