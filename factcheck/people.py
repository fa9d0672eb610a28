"""How the pages name a person."""


def display_name(user) -> str:
    """``user``'s full name, else their username; "" for no one (``None``)."""
    if not user:
        return ""
    return user.get_full_name() or user.get_username()
