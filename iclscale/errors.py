"""The one exception type for mistakes a user can make: `usererror.UserError`, re-exported here so the
trainer's modules and the command line keep importing it from `iclscale.errors` (the class lives outside
the trainer so that `analysis`, which must not import the trainer, can raise it too)."""

from usererror import UserError

__all__ = ["UserError"]
