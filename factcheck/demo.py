"""
Demo users for local development, created by ``manage.py seed_demo_users``.

They exist only with DEBUG on: the password below is public, printed by
``make run``, and must never reach a production database.
"""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from factcheck.roles import EDITOR, REVIEWER

# Public on purpose: printed by `make run`; demo users exist only with DEBUG on.
DEMO_PASSWORD = "demo-only-not-secret"  # noqa: S105
DEMO_EDITOR = "editor"

DEMO_USERS = [
    # username, first name, last name, role
    (DEMO_EDITOR, "Eddie", "Editor", EDITOR),
    # Nobody publishes their own work: the seeded claims are Eddie's, so Elena publishes.
    ("editor2", "Elena", "Second-Editor", EDITOR),
    ("reviewer", "Rosa", "Reviewer", REVIEWER),
    ("reviewer2", "Ravi", "Second-Reviewer", REVIEWER),
]


@transaction.atomic
def ensure_demo_users():
    """Create (or reset) the demo users. Refuses unless DEBUG is on."""
    if not settings.DEBUG:
        raise ImproperlyConfigured(
            "Demo users have a public password and are only created with DEBUG on."
        )
    User = get_user_model()
    users = []
    for username, first_name, last_name, role in DEMO_USERS:
        user, created = User.objects.get_or_create(
            username=username,
            defaults={
                "first_name": first_name,
                "last_name": last_name,
                "email": f"{username}@example.invalid",
                # Editors maintain the rating scale in the admin.
                "is_staff": role == EDITOR,
            },
        )
        if created or not user.check_password(DEMO_PASSWORD):
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
        user.groups.add(Group.objects.get(name=role))
        users.append((user, role))
    return users
