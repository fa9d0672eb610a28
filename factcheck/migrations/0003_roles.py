"""Create the Editor and Reviewer groups with the permissions in factcheck.roles."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from factcheck.roles import ROLE_PERMISSIONS


def create_roles(apps, schema_editor):
    # Permissions are normally created after the whole migrate run; create them
    # now so that the groups can be given them on a fresh database.
    for app_config in apps.get_app_configs():
        models_module = getattr(app_config, "models_module", None)
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = models_module

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for role, permission_names in ROLE_PERMISSIONS.items():
        group, _created = Group.objects.get_or_create(name=role)
        permissions = []
        for name in permission_names:
            app_label, codename = name.split(".")
            permissions.append(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )
        group.permissions.set(permissions)


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLE_PERMISSIONS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("factcheck", "0002_auditevent_append_only_trigger"),
        ("sources", "0002_sourceversion_immutable_trigger"),
        ("claims", "0006_error_report"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
