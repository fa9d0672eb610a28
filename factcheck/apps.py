from django.apps import AppConfig


class FactcheckConfig(AppConfig):
    name = "factcheck"
    verbose_name = "Fact-check desk"

    def ready(self):
        from django.contrib import admin
        from django.db.backends.signals import connection_created
        from django_otp.plugins.otp_static.models import StaticDevice
        from django_otp.plugins.otp_totp.models import TOTPDevice

        from factcheck import preferences  # noqa: F401 (connects the login receiver)
        from factcheck.text_match import add_sqlite_functions

        connection_created.connect(add_sqlite_functions, dispatch_uid="sqlite-functions")
        # Two-factor devices are each user's own, set up and turned off on their account
        # pages (audited there); django-otp's admin pages would change them unaudited.
        # Here, after the admin's autodiscovery, so that no admin list ever holds them.
        for model in (TOTPDevice, StaticDevice):
            if admin.site.is_registered(model):
                admin.site.unregister(model)
