"""``manage.py unlock_login USERNAME``: lift an account's login lockout (audited)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from factcheck.auth import login_unlock


class Command(BaseCommand):
    help = (
        "Lift the lockout of an account after too many wrong passwords or two-factor codes "
        "(recorded in the audit trail). Reaches the app servers through a shared cache "
        "(REDIS_URL); without one, each server process keeps its own counters."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", help="The account's username")

    def handle(self, *, username, **options):
        User = get_user_model()
        try:
            user = User._default_manager.get_by_natural_key(username)
        except User.DoesNotExist:
            raise CommandError(f"There is no account with the username {username!r}.") from None
        if login_unlock(user=user):
            self.stdout.write(f"{username}: the lockout is lifted; they can log in again.")
        else:
            self.stdout.write(f"{username}: was not locked out; the failed attempts are cleared.")
