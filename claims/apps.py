from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClaimsConfig(AppConfig):
    name = "claims"
    verbose_name = _("Claims")

    def ready(self):
        from claims import receivers  # noqa: F401 -- connects the signal receivers
