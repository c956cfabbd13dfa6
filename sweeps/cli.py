"""`iclscale sweep plan|run|status`."""


def add_commands(commands) -> None:
    pass
