"""Sweeps: sweep files, planning into packs, execution on Ray Tune (or inline), the result store.

The modules, roughly from the command down to the store; no import circles among them (tests/test_layering.py):

    cli                      `iclscale sweeps`, `sweep plan|run|status` (laws are checked by a function passed in)
    run, status              a sweep run step by step; a results directory counted
    search, threshold        the two modes beside the grid: search (the Optuna driver: search_optuna, search_ray,
                             search_trials, search_output) and threshold (bisect, threshold_table, eval_refine)
    ray_executor, execute    packs on Ray Tune, or inline; one pack trained and committed
    plan                     a sweep expanded into configs and packs, minus what is stored
    spec                     a sweep file parsed and validated (its blocks: search_spec, threshold_spec, overrides)
    grid, metric_names       a sweep's grid points; the metrics a sweep may name (declared, so planning needs no torch)
    store, compact, lock     the result store, its repair, its writer lock
"""
