from django.apps import AppConfig


class FactcheckConfig(AppConfig):
    name = "factcheck"
    verbose_name = "Fact-check desk"

    def ready(self):
        # Connects the receiver that keeps a user object's kept permissions honest.
        from factcheck import backends  # noqa: F401
