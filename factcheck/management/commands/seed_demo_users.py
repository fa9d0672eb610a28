from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from factcheck.demo import DEMO_PASSWORD, ensure_demo_users


class Command(BaseCommand):
    help = "Create the demo editor and reviewers (DEBUG only) and print their logins."

    def handle(self, *args, **options):
        try:
            users = ensure_demo_users()
        except ImproperlyConfigured as error:
            raise CommandError(str(error)) from error
        self.stdout.write("Demo logins (development only, password is public):")
        for user, role in users:
            self.stdout.write(
                f"  {role:<9} username: {user.username:<10} password: {DEMO_PASSWORD}"
            )
