from django.apps import AppConfig


class FactcheckConfig(AppConfig):
    name = "factcheck"
    verbose_name = "Fact-check desk"

    def ready(self):
        from django.db.backends.signals import connection_created

        from factcheck.text_match import add_sqlite_functions

        connection_created.connect(add_sqlite_functions, dispatch_uid="sqlite-functions")
