"""`iclscale report` and `iclscale laws`."""


def add_commands(commands) -> None:
    pass
