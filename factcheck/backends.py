"""
The authentication backend: Django's ModelBackend, with a user's permissions
and roles read in one query.

Every page checks permissions (``permission_required``, ``perms`` in the
templates) and shows the user's roles, so this runs on every request: one
plain SQL query instead of three ORM queries (the user's own permissions, their
groups' permissions, their role groups) saves about 1.5 ms a page.
"""

import copy
import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection, router
from django.db.models.signals import m2m_changed
from django.dispatch import receiver

from factcheck.prepared import PreparedRead
from factcheck.reference_data import kept
from factcheck.roles import ROLE_PERMISSIONS, held_roles, remember_held_roles

#: What a user object keeps of its permissions and roles (Django's and ours).
CACHED_ON_USER = ("_perm_cache", "_user_perm_cache", "_group_perm_cache", "_held_roles_cache")


@receiver(m2m_changed, sender=get_user_model().groups.through)
@receiver(m2m_changed, sender=get_user_model().user_permissions.through)
def forget_cached_permissions(sender, instance, **kwargs):
    """
    A user object forgets what it kept once its groups or permissions change
    through it (``user.groups.remove(...)``), so that it never answers from
    before the change. Other objects of the same user are other requests'.
    """
    if isinstance(instance, get_user_model()):
        for attribute in CACHED_ON_USER:
            instance.__dict__.pop(attribute, None)


@functools.cache
def _permissions_and_groups_sql():
    User = get_user_model()
    tables = {
        "permission": Permission._meta.db_table,
        "content_type": ContentType._meta.db_table,
        "group": Group._meta.db_table,
        "user_permissions": User.user_permissions.through._meta.db_table,
        "user_groups": User.groups.through._meta.db_table,
        "group_permissions": Group.permissions.through._meta.db_table,
    }
    tables = {name: connection.ops.quote_name(table) for name, table in tables.items()}
    # Rows of (app label, codename) for each permission, then ("", name) for each group.
    # Only quoted table names from the models go into the text; the user's id is a parameter.
    return (  # noqa: S608
        "SELECT ct.app_label, p.codename FROM {permission} p "
        "JOIN {content_type} ct ON ct.id = p.content_type_id "
        "WHERE p.id IN (SELECT permission_id FROM {user_permissions} WHERE user_id = %s "
        "UNION SELECT gp.permission_id FROM {group_permissions} gp "
        "JOIN {user_groups} ug ON ug.group_id = gp.group_id WHERE ug.user_id = %s) "
        "UNION ALL SELECT '', g.name FROM {group} g "
        "JOIN {user_groups} ug ON ug.group_id = g.id WHERE ug.user_id = %s"
    ).format(**tables)


#: The logged-in user, read on every request: compiled once (see factcheck.prepared).
_user_by_pk = PreparedRead(lambda *, pk: get_user_model()._default_manager.filter(pk=pk))


class PermissionBackend(ModelBackend):
    """
    ModelBackend, loading permissions and role groups together (see the module)
    and the session's user through a prepared read.
    """

    def get_user(self, user_id):
        if type(user_id) is not int:
            # Another kind of primary key than the default: as ModelBackend reads it.
            return super().get_user(user_id)
        User = get_user_model()
        account = kept("accounts", user_id, lambda: self._account(user_id), model=User)
        if account is None:
            return None
        names, values, remembered = account
        # A new object for each request, as a query would give: requests change theirs.
        user = User.from_db(router.db_for_read(User), names, values)
        user.__dict__.update({name: copy.copy(value) for name, value in remembered.items()})
        return user

    def _account(self, user_id):
        """
        ``(field names, values, what the user object keeps of its permissions
        and roles)`` for the active user ``user_id``, or None: what ``get_user``
        keeps between changes to the accounts (factcheck/reference_data.py).
        """
        rows = _user_by_pk(pk=user_id)
        if not rows or not self.user_can_authenticate(rows[0]):
            return None
        user = rows[0]
        self.get_all_permissions(user)
        held_roles(user)
        names = [field.attname for field in user._meta.concrete_fields]
        remembered = {name: user.__dict__[name] for name in CACHED_ON_USER if name in user.__dict__}
        return names, [getattr(user, name) for name in names], remembered

    def get_all_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            if user_obj.is_superuser:
                user_obj._perm_cache = super().get_all_permissions(user_obj)
                return user_obj._perm_cache
            with connection.cursor() as cursor:
                cursor.execute(_permissions_and_groups_sql(), [user_obj.pk] * 3)
                rows = cursor.fetchall()
            user_obj._perm_cache = {f"{app}.{codename}" for app, codename in rows if app}
            remember_held_roles(
                user_obj, {name for app, name in rows if not app and name in ROLE_PERMISSIONS}
            )
        return user_obj._perm_cache
