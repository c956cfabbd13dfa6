"""The one exception type for mistakes a user can make."""


class UserError(Exception):
    """A bad sweep file, CLI value, study name or results directory.

    The command line prints its message on one line and exits with status 2, no traceback.
    Messages name the place (file, key or flag), the problem and what is allowed.
    """
