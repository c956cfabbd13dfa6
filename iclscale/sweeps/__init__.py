"""Sweeps: sweep files, planning into packs, execution on Ray Tune (or inline), the result store."""
