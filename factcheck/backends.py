"""The authentication backend: Django's, with permissions loaded in one query."""

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission
from django.db.models import Q


class PermissionBackend(ModelBackend):
    """
    Django's ModelBackend, loading a user's permissions (their own and their
    groups') in one query rather than two: every page checks permissions, so
    this is a query fewer on each.
    """

    def get_all_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            permissions = Permission.objects.all()
            if not user_obj.is_superuser:
                permissions = permissions.filter(Q(user=user_obj) | Q(group__user=user_obj))
            user_obj._perm_cache = {
                f"{app_label}.{codename}"
                for app_label, codename in permissions.values_list(
                    "content_type__app_label", "codename"
                ).order_by()
            }
        return user_obj._perm_cache
