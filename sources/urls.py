from django.urls import path

from sources import views

app_name = "sources"

urlpatterns = [
    path("", views.source_list_view, name="source_list"),
    path("new/", views.source_create_view, name="source_create"),
    path("<int:pk>/", views.source_detail_view, name="source_detail"),
    path("<int:pk>/versions/", views.version_upload_view, name="version_upload"),
    path(
        "<int:pk>/versions/<int:number>/download/",
        views.version_download_view,
        name="version_download",
    ),
    path(
        "<int:pk>/versions/<int:number>/quotations/",
        views.quotation_create_view,
        name="quotation_create",
    ),
    path("<int:pk>/versions/<int:number>/find/", views.quote_finder_view, name="quote_finder"),
    path(
        "<int:pk>/versions/<int:old>/compare/<int:new>/",
        views.version_diff_view,
        name="version_diff",
    ),
    path(
        "<int:pk>/reanchorings/<int:reanchoring_pk>/confirm/",
        views.reanchoring_confirm_view,
        name="reanchoring_confirm",
    ),
]
