import pytest
from django.contrib.auth.models import Group

from factcheck.roles import (
    EDITOR,
    PUBLISH_CLAIM,
    REVIEWER,
    ROLE_PERMISSIONS,
    SIGN_OFF_CLAIM,
    is_editor,
    is_reviewer,
)
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_migration_creates_each_role_with_exactly_its_permissions():
    for role, permissions in ROLE_PERMISSIONS.items():
        group = Group.objects.get(name=role)
        granted = {
            f"{app_label}.{codename}"
            for app_label, codename in group.permissions.values_list(
                "content_type__app_label", "codename"
            )
        }
        assert granted == set(permissions)


def test_an_editor_may_publish_but_not_sign_off(editor):
    assert editor.has_perm(PUBLISH_CLAIM)
    assert not editor.has_perm(SIGN_OFF_CLAIM)
    assert is_editor(editor) and not is_reviewer(editor)


def test_a_reviewer_may_sign_off_but_not_write_claims(reviewer):
    assert reviewer.has_perm(SIGN_OFF_CLAIM)
    assert not reviewer.has_perm("claims.add_claim")
    assert not reviewer.has_perm(PUBLISH_CLAIM)
    assert is_reviewer(reviewer) and not is_editor(reviewer)


def test_a_user_without_a_role_may_do_nothing():
    user = UserFactory()
    assert not user.has_perm("claims.view_claim")
    assert not is_editor(user) and not is_reviewer(user)


def test_both_role_groups_exist():
    assert set(Group.objects.values_list("name", flat=True)) >= {EDITOR, REVIEWER}


def test_an_inactive_user_holds_no_permission_and_a_superuser_holds_all():
    inactive = UserFactory(is_active=False)
    inactive.groups.add(Group.objects.get(name=EDITOR))
    superuser = UserFactory(is_superuser=True)

    assert inactive.get_all_permissions() == set()
    assert superuser.has_perm("claims.delete_case") and superuser.has_perm(SIGN_OFF_CLAIM)
