from django.apps import AppConfig


class ClaimsConfig(AppConfig):
    name = "claims"

    def ready(self):
        from claims import receivers  # noqa: F401 -- connects the signal receivers
