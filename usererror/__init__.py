"""The one exception type for mistakes a user can make (a bad sweep file, CLI value, study or law name,
results directory).

It lives in a package of its own because all three packages raise it and DESIGN.md's layering forbids
the obvious homes: `analysis` may not import the trainer (`iclscale`), and the trainer may not import
`sweeps` or `analysis`. `iclscale.errors.UserError` is this class, re-exported, so the command line's
one `except UserError` (one line on stderr, exit status 2) catches what any package raises.
"""


class UserError(Exception):
    """A bad sweep file, CLI value, study name or results directory.

    The command line prints its message on one line and exits with status 2, no traceback.
    Messages name the place (file, key or flag), the problem and what is allowed.
    """
