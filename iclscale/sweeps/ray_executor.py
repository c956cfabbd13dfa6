"""The Ray Tune executor: one trial per pack.

With no address the tool starts a local Ray instance sized to the machine and listening on
loopback only (Ray's dashboard and job API have no authentication, and on Linux Ray binds the
machine's external address unless RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 is in the environment of the
process that starts it). With an address (`auto`, `host:port` or `ray://…`) it joins that cluster,
after a bounded gRPC handshake with that address (Ray's GCS and client servers speak gRPC over
HTTP/2: they answer a client preface with a SETTINGS frame) shows a gRPC server listens there:
Ray's own connect retries for minutes against anything that accepts a connection. A cluster on
loopback is joined on loopback (Ray would otherwise rewrite 127.0.0.1 to the machine's external
address). Workers never import from the directory the command was started in: Ray puts the
driver's working directory on every worker's sys.path, so a folder there named `iclscale` would
shadow the installed package; `ray.init` runs from an empty private directory instead. A pack's
resources are checked against what the cluster can ever offer before any trial starts: Ray waits
forever for resources no node has.

Each trial trains its pack, reports progress to Tune, and commits its fragment to the store (a
shared path or an object-store URI on a cluster). Failed trials are retried (`FailureConfig`); once
retries are spent, the pack is stored as `failed` rows. A trial that cannot write the store (disk
full, read-only) stops the sweep with one line. No scheduler stops trials early: measurement sweeps
read iterations-to-threshold from full curves. Tune's experiment state lives in a temporary
directory outside the results (never in, never loaded from a results directory: resuming is by
content hash), and Tune's own SIGINT handler is off, so Ctrl-C stops the sweep at once.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from iclscale.errors import UserError, shorten
from iclscale.sweeps.execute import SweepContext, record_failure, run_pack
from iclscale.sweeps.plan import PackPlan, Plan

LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
# Ray starts its worker processes at niceness 15 (RayConfig worker_niceness) so that they yield to its own
# daemons; on a shared machine that leaves a local sweep's trials a few percent of a CPU beside any process at
# normal priority. A local instance runs its trials at the priority of the command (an environment setting
# RAY_worker_niceness of the user's wins).
NICENESS_ENV = {"RAY_worker_niceness": "0"}
QUIET_ENV = {"TUNE_DISABLE_SIGINT_HANDLER": "1"}  # Ctrl-C stops the sweep at once; no Tuner.restore advice
DIAL_TIMEOUT_S = 10.0
HANDSHAKE_TIMEOUT_S = 10.0
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # and an empty SETTINGS
AUTH_HINT = (
    "if the cluster uses token authentication (cluster.yaml turns it on), set RAY_AUTH_MODE=token and provide "
    "the cluster's token (~/.ray/auth_token, RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN)"
)
BOOTSTRAP_CONFIG = Path.home() / "ray_bootstrap_config.yaml"  # on a launcher-started head node


def start_ray(address: str | None, quiet: bool = False, dashboard: bool = False) -> None:
    """Join the cluster at `address`, or start a local loopback-only instance: without Ray's dashboard unless
    `dashboard` (`--dashboard`), whose address is then printed (a cluster's is the cluster's own)."""
    if dashboard and address is None:
        check_dashboard_packages()
    loopback = _ray_environment(address)
    import ray

    if ray.is_initialized():
        return
    if loopback:  # and if ray was imported before: 127.0.0.1 stays 127.0.0.1 (never the external address)
        import ray._private.ray_constants as ray_constants

        ray_constants.ENABLE_RAY_CLUSTER = False
    common = {"configure_logging": True, "logging_level": "ERROR", "log_to_driver": not quiet}
    if quiet:  # a failed trial's traceback is stored with its rows and counted in one line at the end
        import logging

        logging.getLogger("ray.tune").setLevel(logging.CRITICAL)
    if address is None:
        with _neutral_directory():  # the dashboard, when asked, on loopback like the rest (it has no authentication)
            context = ray.init(address="local", include_dashboard=dashboard, dashboard_host="127.0.0.1", **common)
    else:
        context = _join_cluster(ray, address, loopback, common)
    if dashboard:
        say_dashboard(context)


def _ray_environment(address: str | None) -> bool:
    """Set the environment Ray reads when it starts (before it is imported); whether Ray is to stay on loopback:
    a local instance, or a cluster whose address (dialled first, see `dial`) is on this machine."""
    os.environ.update(QUIET_ENV)
    # Tune's newer console output prints a box and hints even at verbose=0; the older one does not
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")
    host = None if address is None else dial(address)
    loopback = address is None or (host is not None and _is_loopback(host))
    if loopback:
        os.environ.update(LOOPBACK_ENV)  # before ray is imported: it reads this when it starts
    if address is None:  # a local instance that this command starts
        for name, value in NICENESS_ENV.items():  # read by the raylet and the workers it starts
            os.environ.setdefault(name, value)
    return loopback


def _join_cluster(ray, address: str, loopback: bool, common: dict[str, Any]):
    """`ray.init` at a cluster's address; a cluster that cannot be reached (or refuses this machine's token) is
    one line naming the address."""
    if loopback and not address.startswith("ray://"):
        common["_node_ip_address"] = "127.0.0.1"  # a cluster on this machine: never look for another address
    auth_error = getattr(ray.exceptions, "AuthenticationError", ConnectionError)  # Ray >= 2.52
    try:
        with _neutral_directory():
            return ray.init(address=address, **common)
    except (ConnectionError, RuntimeError, ValueError, auth_error) as error:
        first_line = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
        token_mode = os.environ.get("RAY_AUTH_MODE", "").lower() == "token"
        hint = "check that this machine has the cluster's token" if token_mode else AUTH_HINT
        raise UserError(
            f"--address {shorten(address)}: no Ray cluster could be reached ({first_line}); {hint}"
        ) from None


def check_dashboard_packages() -> None:
    """Ray's dashboard needs `ray[default]` (aiohttp and more), which `ray[tune]` does not install."""
    import importlib.util

    if importlib.util.find_spec("aiohttp") is None:
        raise UserError("--dashboard needs Ray's dashboard packages: pip install 'ray[default]'")


def say_dashboard(context) -> None:
    url = getattr(context, "dashboard_url", None)
    if url:
        print(f"Ray dashboard: http://{url}", file=sys.stderr, flush=True)
    else:
        print("Ray dashboard: none is served (see the Ray logs)", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _neutral_directory():
    """Run `ray.init` from an empty directory of this user's, so that the path Ray puts on every worker's
    sys.path (the driver's working directory) holds nothing to import."""
    from iclscale.trainer.cachedir import ROOT

    empty = ROOT / "ray-cwd"
    back = os.getcwd()
    try:
        empty.mkdir(mode=0o700, parents=True, exist_ok=True)
        if any(empty.iterdir()):
            empty = Path(tempfile.mkdtemp(prefix="iclscale-ray-cwd-"))
        os.chdir(empty)
    except OSError:
        pass  # no home to write to: Ray's default
    try:
        yield
    finally:
        os.chdir(back)


def dial(address: str) -> str | None:
    """A bounded gRPC handshake with host:port of the address, to fail fast when no Ray cluster is there
    (nothing listening, a silent, closing, HTTP or garbage server). `auto` is Ray's own lookup of a
    cluster started on this machine (no dial); returns the host."""
    if address == "auto":
        return None
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or len(port) > 5 or not 0 < int(port) < 65536:
        raise UserError(f"--address {shorten(address)}: expected auto, HOST:PORT or ray://HOST:PORT")
    advice = "start one with `ray start --head` or leave --address out to run on a local Ray"
    try:
        with socket.create_connection((host, int(port)), timeout=DIAL_TIMEOUT_S) as connection:
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                return host  # the handshake would be TLS first; Ray's own connect decides
            connection.settimeout(HANDSHAKE_TIMEOUT_S)
            connection.sendall(HTTP2_PREFACE)
            header = _receive(connection, 9)
    except (OSError, UnicodeError) as error:
        if isinstance(error, TimeoutError):
            reason = f"no answer within {HANDSHAKE_TIMEOUT_S:g} s"
        else:
            reason = getattr(error, "strerror", None) or type(error).__name__
        raise UserError(f"--address {shorten(address)}: no Ray cluster answers there ({reason}); {advice}") from None
    if len(header) < 9 or header[3] != 4:  # an HTTP/2 frame header: 3 bytes length, type 4 = SETTINGS
        said = "it closed the connection" if not header else "it does not speak gRPC"
        raise UserError(
            f"--address {shorten(address)}: something listens there but not a Ray cluster ({said}); {advice}"
        )
    return host


def _receive(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _exit_with_raylet(period_s: float = 1.0) -> None:
    """A worker busy training notices late that its raylet (its parent) is gone, e.g. after the command's
    process group was killed: a daemon thread ends the worker once its parent changes (it then holds no
    committed work: a fragment is written whole or not at all)."""
    import threading

    parent = os.getppid()
    if getattr(_exit_with_raylet, "watching", None) == parent:
        return  # reused actor: already watched

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(period_s)
        os._exit(1)

    threading.Thread(target=watch, name="iclscale-exit-with-raylet", daemon=True).start()
    _exit_with_raylet.watching = parent


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def check_resources(resources, address: str | None) -> None:
    """Refuse per-pack resources that no node of the cluster can ever offer (Ray would wait forever):
    the largest alive node, and on a launcher-started head the largest node type it may add."""
    import ray

    offers = [node["Resources"] for node in ray.nodes() if node.get("Alive")]
    offers += _node_types()
    wanted = {"CPU": resources.cpu, "GPU": resources.gpu}
    if any(all(offer.get(k, 0) >= v for k, v in wanted.items() if v) for offer in offers):
        return
    largest = {k: max((offer.get(k, 0) for offer in offers), default=0) for k in wanted}
    where = "this machine" if address is None else f"the cluster at {address}"
    raise UserError(
        f"resources: a pack asks for cpu {resources.cpu:g}, gpu {resources.gpu:g}, but no node of {where} can "
        f"offer that (the largest has cpu {largest['CPU']:g}, gpu {largest['GPU']:g}); lower resources in the "
        "sweep file or with resources.cpu=N resources.gpu=N"
    )


def _node_types() -> list[dict[str, float]]:
    """Resources of the node types the cluster launcher's autoscaler may start, if this is its head."""
    if not BOOTSTRAP_CONFIG.is_file():
        return []
    import yaml

    try:
        config = yaml.safe_load(BOOTSTRAP_CONFIG.read_text()) or {}
        types = config.get("available_node_types") or {}
        return [dict(spec.get("resources") or {}) for spec in types.values() if isinstance(spec, dict)]
    except (OSError, yaml.YAMLError, AttributeError):
        return []


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
    _exit_with_raylet()
    node = ray.util.get_node_ip_address()
    progress = TrialReports(lambda metrics: tune.report({**metrics, "node": node}))
    try:
        summary = run_pack(context, pack, device, node=node, progress=progress)
    except OSError as error:  # the store cannot be written: stop the sweep, do not retry
        if error.errno is None or error.errno not in WRITE_ERRNOS:
            raise
        reason = error.strerror or " ".join(str(error).split())[:200]
        tune.report({"write_error": f"{error.filename or context.out}: {reason}", "node": node})
        return
    tune.report({"done": 1, "node": node, **summary})


class TrialReports:
    """A trial's progress, reported to Tune (whose reporting is not free): at most every `every` seconds, but
    always at the last step and when the step starts or ends compiling (the driver's line says "compiling")."""

    def __init__(self, report, every: float = 2.0, clock=time.monotonic):
        self.report, self.every, self.clock = report, every, clock
        self.last, self.compiling = None, False

    def __call__(self, step: int, steps: int, compiling: bool = False) -> None:
        now = self.clock()
        if step == steps or compiling != self.compiling or self.last is None or now - self.last >= self.every:
            self.report({"step": step, "steps": steps, "compiling": compiling})
            self.last, self.compiling = now, compiling


WRITE_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT}


def run_on_ray(
    plan: Plan,
    context: SweepContext,
    address: str | None,
    device: str = "auto",
    retries: int = 2,
    verbose: int = 0,
    progress=None,
) -> dict[str, Any]:
    """Run every pack as a Tune trial. Ray must be started (`start_ray`)."""
    from ray import tune

    resources = plan.sweep.resources
    trainable = tune.with_parameters(pack_trial, packs=plan.packs, context=context, device=device)
    trainable = tune.with_resources(trainable, {"cpu": resources.cpu, "gpu": resources.gpu})
    storage = tempfile.mkdtemp(prefix="iclscale-tune-")
    callbacks = [_progress_callback(progress)] if progress is not None else []
    tuner = tune.Tuner(
        trainable,
        param_space={"pack": tune.grid_search(list(range(len(plan.packs))))},
        tune_config=tune.TuneConfig(reuse_actors=True),
        run_config=tune.RunConfig(
            name=context.sweep,
            storage_path=storage,
            failure_config=tune.FailureConfig(max_failures=retries),
            stop=_WriteErrorStopper(),
            callbacks=callbacks,
            verbose=verbose,
        ),
    )
    try:
        results = tuner.fit()
    finally:
        shutil.rmtree(storage, ignore_errors=True)

    totals = {"packs": len(plan.packs), "failed_packs": 0, "failed_configs": 0, "nodes": set(), "write_error": None}
    for result in results:
        if not result.config:  # a trial that never started (the sweep was stopped)
            continue
        pack = plan.packs[result.config["pack"]]
        metrics = result.metrics or {}
        if metrics.get("write_error"):
            totals["write_error"] = metrics["write_error"]
        elif result.error is not None:
            record_failure(context, pack, _error_text(result.error))
            totals["failed_packs"] += 1
            totals["failed_configs"] += len(pack.configs)
        elif metrics:
            totals["nodes"].add(metrics.get("node"))
    totals["nodes"] = sorted(n for n in totals["nodes"] if n)
    if totals["write_error"]:
        raise UserError(f"cannot write the results: {totals['write_error']}")
    return totals


def _WriteErrorStopper():
    """A Tune stopper: once a trial could not write the store (disk full, read-only), stop them all."""
    from ray.tune import Stopper

    class WriteErrorStopper(Stopper):
        def __init__(self):
            self.failed = False

        def __call__(self, trial_id: str, result: dict[str, Any]) -> bool:
            self.failed = self.failed or bool(result.get("write_error"))
            return bool(result.get("write_error"))

        def stop_all(self) -> bool:
            return self.failed

    return WriteErrorStopper()


def tune_storage(out: str) -> dict[str, Any]:
    """Where Tune keeps its experiment state: a fresh temporary directory, removed at exit; never
    the results directory `out` (resuming is by content hash, never by Tuner.restore)."""
    import atexit

    storage = tempfile.mkdtemp(prefix="iclscale-tune-")
    atexit.register(shutil.rmtree, storage, ignore_errors=True)
    return {"storage_path": storage}


def _error_text(error: BaseException) -> str:
    text = str(error).strip()
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[-20:]) if lines else type(error).__name__


def _progress_callback(progress):
    """A Tune callback feeding trial events to the overall progress line (iclscale.sweeps.progress)."""
    from ray.tune import Callback

    class ProgressCallback(Callback):
        def on_trial_start(self, iteration, trials, trial, **info):
            progress.started(trial.config["pack"])

        def on_trial_result(self, iteration, trials, trial, result, **info):
            if "step" in result:
                progress.advanced(trial.config["pack"], int(result["step"]), bool(result.get("compiling")))

        def on_trial_complete(self, iteration, trials, trial, **info):
            progress.finished(trial.config["pack"])

        def on_trial_error(self, iteration, trials, trial, **info):
            progress.finished(trial.config["pack"], failed=True)

    return ProgressCallback()
