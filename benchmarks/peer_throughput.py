"""iclscale's packed trainer against its peers on the same model, in one run: model-steps/s and ratios.

Peers (see benchmarks/peers/): a hand-batched PyTorch loop (einsum over the config axis, torch.randn
data, the same Adam or SGD) eager and under torch.compile; the same model in JAX (per-config step,
vmap over configs, lax.scan over steps, jit; skipped when jax is not installed); iclscale's
`train_pack` as a sweep runs it (compile "auto") and compiled ("on"). Models: seed 004's softmax
attention unit and nonlinear_icl's one-layer Transformer.

    python benchmarks/peer_throughput.py [--model softmax_window] [--pack-size 4096 1024] [--steps 300] [--threads 1]

One model-step is one training iteration of one config. Each peer's first call (compilation included)
is printed apart from the rate, which is the best of --repeats calls. Before timing, every peer trains a
small pack for a few hundred steps and the mean loss of its first and last window is printed: the
peers draw other random numbers from the same distributions, so the losses agree in distribution only.
(--K and --check-K, the flags' earlier names, still work.)
"""

from __future__ import annotations

import argparse
import importlib.util
import os

DEFAULTS = {  # pack size, timed steps, check steps: nonlinear_icl's step is ~1000× seed 004's
    "softmax_window": (4096, 300, 300),
    "nonlinear_icl": (256, 20, 200),
}
PEER_NAMES = ("torch eager", "torch compiled", "jax", "iclscale", "iclscale compiled")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("softmax_window", "nonlinear_icl", "both"), default="softmax_window")
    parser.add_argument(
        "--pack-size", "--K", type=int, nargs="+", help="pack sizes (default: 4096 seed 004, 256 nonlinear_icl)"
    )
    parser.add_argument("--steps", type=int, help="timed steps per call (default: 300 seed 004, 20 nonlinear_icl)")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per peer; the best counts")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (torch, OpenMP, XLA)")
    parser.add_argument("--pin", type=int, nargs="+", metavar="CPU", help="pin the process to these CPUs")
    parser.add_argument("--device", default="auto", help="cpu, cuda, or auto: cpu, then cuda when torch sees one")
    parser.add_argument("--peers", nargs="+", choices=PEER_NAMES, default=list(PEER_NAMES))
    parser.add_argument("--check-pack-size", "--check-K", type=int, default=256, help="pack size of the loss check")
    parser.add_argument("--check-steps", type=int, help="steps of the loss check (default: 300 / 200)")
    parser.add_argument("--check-window", type=int, default=20, help="steps averaged at the start and end")
    parser.add_argument("--no-check", action="store_true", help="skip the loss check")
    args = parser.parse_args()
    for name in ("repeats", "threads", "check_pack_size", "check_window"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if any(size < 1 for size in args.pack_size or []) or (args.steps is not None and args.steps < 1):
        parser.error("--pack-size and --steps must be at least 1")
    return args


def peers(names: list[str]):
    from peers import iclscale_run, torch_loop
    from peers.harness import Peer, Unavailable

    def jax_prepare(*args):
        if importlib.util.find_spec("jax") is None:
            raise Unavailable("JAX not installed (pip install -e '.[bench]')")
        from peers import jax_loop

        return jax_loop.prepare(*args)

    every = {
        "torch eager": Peer("torch eager", lambda *a: torch_loop.prepare(*a, compiled=False)),
        "torch compiled": Peer("torch compiled", lambda *a: torch_loop.prepare(*a, compiled=True)),
        "jax": Peer("jax", jax_prepare),
        "iclscale": Peer("iclscale", iclscale_run.prepare),  # compile="auto", as `iclscale train` runs
        "iclscale compiled": Peer("iclscale compiled", lambda *a: iclscale_run.prepare(*a, compile="on")),
    }
    return [every[name] for name in names]


def main() -> None:
    args = parse_args()
    from peers.settings import limit_threads

    limit_threads(args.threads)  # before torch and jax are imported
    if args.pin:
        os.sched_setaffinity(0, args.pin)
    import torch
    from peers import harness

    torch.set_num_threads(args.threads)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit(f"--device {args.device}: torch sees no CUDA device here")
    devices = ["cpu", "cuda"] if args.device == "auto" and torch.cuda.is_available() else [args.device]
    devices = ["cpu" if d == "auto" else d for d in devices]
    jax_note = "jax not installed"
    if importlib.util.find_spec("jax"):
        import jax

        jax_note = f"jax {jax.__version__}"
    xla_flags = os.environ.get("XLA_FLAGS", "")
    print(f"torch {torch.__version__}, {jax_note}; {args.threads} thread(s) (torch.set_num_threads, OMP_NUM_THREADS, "
          f"XLA_FLAGS={xla_flags!r}); CPUs allowed: {sorted(os.sched_getaffinity(0))}")  # fmt: skip
    chosen = peers(args.peers)
    for model in ("softmax_window", "nonlinear_icl") if args.model == "both" else (args.model,):
        default_size, default_steps, default_check = DEFAULTS[model]
        steps = args.steps or default_steps
        for device in devices:
            if not args.no_check:
                check_steps = args.check_steps or default_check
                window = min(args.check_window, check_steps)
                size = args.check_pack_size
                losses, skipped = harness.check_losses(chosen, model, size, check_steps, window, device)
                title = (f"\n{model} on {device}: loss check, pack of {size}, {check_steps} steps, mean "
                         f"training loss of the first and the last {window} steps")  # fmt: skip
                print(harness.check_table(title, losses, skipped), flush=True)
            for size in args.pack_size or [default_size]:
                timings, skipped = harness.time_peers(chosen, model, size, steps, device, args.repeats)
                title = f"\n{model} on {device}: pack of {size}, {steps} steps, best of {args.repeats}"
                print(harness.speed_table(title, size, steps, timings, skipped), flush=True)


if __name__ == "__main__":
    main()
