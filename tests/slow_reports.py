"""A report writer that never finishes in time, for the test that interrupts the ledger's pool of report writers
(a module of its own: spawned workers import it by name)."""

import time


def write_slowly(directory, fingerprint):
    time.sleep(120)
