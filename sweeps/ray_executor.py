"""The Ray Tune executor: one trial per pack.

With no address the tool starts a local Ray instance sized to the machine and listening on
loopback only (Ray's dashboard and job API have no authentication, and on Linux Ray binds the
machine's external address unless RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 is in the environment of the
process that starts it). With an address (`auto`, `host:port` or `ray://…`) it joins that cluster.

Each trial trains its pack, reports progress to Tune, and commits its fragment to the store (a
shared path or an object-store URI on a cluster). Failed trials are retried (`FailureConfig`); once
retries are spent, the pack is stored as `failed` rows. No scheduler stops trials early: measurement
sweeps read iterations-to-threshold from full curves.
"""

from __future__ import annotations

import os
import time
from typing import Any

from iclscale.errors import UserError
from sweeps.execute import SweepContext, record_failure, run_pack
from sweeps.plan import PackPlan, Plan

LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
AUTH_HINT = (
    "if the cluster uses token authentication (cluster.yaml turns it on), set RAY_AUTH_MODE=token and provide "
    "the cluster's token (~/.ray/auth_token, RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN)"
)


def start_ray(address: str | None, quiet: bool = False) -> None:
    """Join the cluster at `address`, or start a local loopback-only instance."""
    if address is None:
        os.environ.update(LOOPBACK_ENV)  # before ray is imported: it reads this when it starts
    import ray

    if ray.is_initialized():
        return
    common = {"configure_logging": True, "logging_level": "WARNING", "log_to_driver": not quiet}
    if address is None:
        ray.init(address="local", include_dashboard=False, **common)
        return
    auth_error = getattr(ray.exceptions, "AuthenticationError", ConnectionError)  # Ray >= 2.52
    try:
        ray.init(address=address, **common)
    except (ConnectionError, RuntimeError, ValueError, auth_error) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        token_mode = os.environ.get("RAY_AUTH_MODE", "").lower() == "token"
        hint = "check that this machine has the cluster's token" if token_mode else AUTH_HINT
        raise UserError(f"--address {address}: no Ray cluster could be reached ({first_line}); {hint}") from None


def worker_slots(resources) -> int:
    """How many pack trials the connected cluster can run at once."""
    import ray

    total = ray.cluster_resources()
    slots = total.get("CPU", 1) // resources.cpu
    if resources.gpu:
        slots = min(slots, total.get("GPU", 0) // resources.gpu)
    return max(1, int(slots))


def pack_trial(config: dict[str, Any], packs: list[PackPlan], context: SweepContext, device: str) -> None:
    """A Tune function trainable: train pack number config["pack"] and report progress."""
    import ray
    from ray import tune

    pack = packs[config["pack"]]
    node = ray.util.get_node_ip_address()
    last_report = [0.0]

    def progress(step: int, steps: int) -> None:
        now = time.monotonic()
        if step == steps or now - last_report[0] > 2.0:  # Tune's reporting is not free; a few per minute suffice
            tune.report({"step": step, "steps": steps, "node": node})
            last_report[0] = now

    summary = run_pack(context, pack, device, node=node, progress=progress)
    tune.report({"done": 1, "node": node, **summary})


def run_on_ray(
    plan: Plan,
    context: SweepContext,
    address: str | None,
    device: str = "auto",
    retries: int = 2,
    verbose: int = 1,
) -> dict[str, Any]:
    start_ray(address, quiet=verbose == 0)  # first: it sets the environment Ray reads on import
    import ray
    from ray import tune

    resources = plan.sweep.resources
    trainable = tune.with_parameters(pack_trial, packs=plan.packs, context=context, device=device)
    trainable = tune.with_resources(trainable, {"cpu": resources.cpu, "gpu": resources.gpu})
    tuner = tune.Tuner(
        trainable,
        param_space={"pack": tune.grid_search(list(range(len(plan.packs))))},
        tune_config=tune.TuneConfig(reuse_actors=True),
        run_config=tune.RunConfig(
            name=f"{context.sweep}-{time.strftime('%Y%m%d-%H%M%S')}",
            **tune_storage(context.out),
            failure_config=tune.FailureConfig(max_failures=retries),
            verbose=verbose,
        ),
    )
    results = tuner.fit()
    totals = {"packs": len(plan.packs), "failed_packs": 0, "nodes": set()}
    for result in results:
        pack = plan.packs[result.config["pack"]]
        if result.error is not None:
            record_failure(context, pack, _error_text(result.error))
            totals["failed_packs"] += 1
        elif result.metrics:
            totals["nodes"].add(result.metrics.get("node"))
    totals["nodes"] = sorted(n for n in totals["nodes"] if n)
    if address is None:
        ray.shutdown()
    return totals


def tune_storage(out: str) -> dict[str, Any]:
    """Tune's own experiment files live beside the results, hidden (`.tune`), on the same storage
    (an object store's URI may carry options such as ?endpoint_override=…, so pass its filesystem)."""
    from sweeps.store import Location

    location = Location(out)
    if location.local:
        return {"storage_path": location.path(".tune")}
    return {"storage_path": location.path(".tune"), "storage_filesystem": location.fs}


def _error_text(error: BaseException) -> str:
    text = str(error).strip()
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[-20:]) if lines else type(error).__name__
