from django.urls import path

from sources import page_images, views

app_name = "sources"

urlpatterns = [
    path("", views.source_list_view, name="source_list"),
    path("new/", views.source_create_view, name="source_create"),
    path("new/from-address/", views.source_capture_view, name="source_capture"),
    path("<id:pk>/", views.source_detail_view, name="source_detail"),
    path("<id:pk>/versions/", views.version_upload_view, name="version_upload"),
    path("<id:pk>/versions/from-address/", views.version_capture_view, name="version_capture"),
    path("<id:pk>/fetch-again/", views.version_fetch_again_view, name="version_fetch_again"),
    path(
        "<id:pk>/versions/<id:number>/download/",
        views.version_download_view,
        name="version_download",
    ),
    path(
        "<id:pk>/versions/<id:number>/archive/",
        views.version_archive_view,
        name="version_archive",
    ),
    path(
        "<id:pk>/versions/<id:number>/archive/page/",
        views.version_archive_raw_view,
        name="version_archive_raw",
    ),
    path("<id:pk>/versions/<id:number>/warc/", views.version_warc_view, name="version_warc"),
    path(
        "<id:pk>/versions/<id:number>/quotations/",
        views.quotation_create_view,
        name="quotation_create",
    ),
    path("<id:pk>/versions/<id:number>/find/", views.quote_finder_view, name="quote_finder"),
    path(
        "<id:pk>/versions/<id:number>/language/",
        views.version_language_view,
        name="version_language",
    ),
    path(
        "<id:pk>/versions/<id:old>/compare/<id:new>/",
        views.version_diff_view,
        name="version_diff",
    ),
    path(
        "<id:pk>/quotations/<id:quotation_pk>/page/",
        page_images.quotation_page_view,
        name="quotation_page",
    ),
    path(
        "<id:pk>/quotations/<id:quotation_pk>/page/<id:page>.png",
        page_images.quotation_page_image_view,
        name="quotation_page_image",
    ),
    path(
        "<id:pk>/reanchorings/<id:reanchoring_pk>/confirm/",
        views.reanchoring_confirm_view,
        name="reanchoring_confirm",
    ),
]
