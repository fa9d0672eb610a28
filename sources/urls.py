from django.urls import path

from sources import views

app_name = "sources"

urlpatterns = [
    path("", views.source_list_view, name="source_list"),
    path("<int:pk>/", views.source_detail_view, name="source_detail"),
]
