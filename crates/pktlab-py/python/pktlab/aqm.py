"""AQM (paper 002, ZL-RED): the dumbbell of fig. 4 and the figure studies.

``simulate(config=None, series=True, **kw)`` runs ``pktlab aqm sim``: per-flow results as
NumPy columns (``flows["goodput_mbps"]``, …) and the queue/cwnd time series as NumPy arrays.
``study(name, backend="local"|"ray", address=None, out=None, **kw)`` runs a figure's sweep,
one task per (point, seed): on local threads or as Ray tasks, with identical results.
``python -m pktlab study fig5 --ray ADDRESS`` (or ``pktlab-study study …``) is the command line.
"""

import argparse
import json
import math
import os
import sys
from typing import Any, Dict, Optional

import numpy as np

from . import _pktlab
from ._config import build
from ._parallel import pmap


def _columns(rows):
    """A list of flow dicts as a dict of NumPy columns."""
    if not rows:
        return {}
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


def simulate(config=None, series: bool = True, **kw) -> Dict[str, Any]:
    """``pktlab aqm sim`` (one run per discipline of ``aqm``); keys as
    ``pktlab.defaults("aqm.sim")`` (reno, vegas, udp, buffer, duration, warmup, seed, bw,
    delay, red_*, zombies, zl_a, …), given as ``config`` (dict or dataclass) and/or keywords.
    Each run has ``config``, ``summary``, ``flows`` (NumPy columns: id, kind, goodput_mbps,
    loss_rate, drops, …) and, with ``series``, ``series`` (NumPy: t_s, queue_pkts, avg_pkts,
    cwnd[sample, tcp_flow], every ``sample_ms``)."""
    if isinstance(kw.get("aqm"), str):
        kw["aqm"] = kw["aqm"].split(",")
    r = _pktlab.aqm_sim(build("aqm.sim", config, **kw), series)
    for run in r["runs"]:
        run["flows"] = _columns(run["flows"])
    return r


def study(
    name: str = "fig5",
    backend: str = "local",
    address: Optional[str] = None,
    workers: Optional[int] = None,
    out: Optional[str] = None,
    config=None,
    **kw,
) -> Dict[str, Any]:
    """A figure of paper 002 (``fig2``, ``fig5``–``fig8``) as ``pktlab aqm study``: its
    points × ``seeds`` runs, one task each, on ``workers`` local threads
    (``backend="local"``) or as Ray tasks on the cluster at ``address`` (``backend="ray"``;
    None: a local Ray cluster). Keys as ``pktlab.defaults("aqm.study")`` (seeds, seed,
    duration, warmup, conns, buffers, aqm, ms, a, delays, zombie parameters). Every task
    receives the configuration (~0.5 KB) and returns one run's summary (~0.5 KB); the
    result (rows aggregated over seeds, every run) equals the threaded CLI's but for wall
    times. With ``out``, writes ``out/figN.json`` and ``out/figN.csv`` like ``--out``."""
    for k in ("aqm", "conns", "buffers", "ms", "a", "delays"):
        if isinstance(kw.get(k), (int, float)):
            kw[k] = [kw[k]]
    cfg = build("aqm.study", config, fig=name, **kw)
    n = _pktlab.aqm_study_jobs(cfg)
    runs, wall, used = pmap(_pktlab.aqm_study_run, [((cfg, k), {}) for k in range(n)], backend, address,
                            workers or cfg.get("threads"))
    return _pktlab.aqm_study_collect(cfg, runs, used, wall, out)


def _nan_to_none(x):
    """NaN as null, as the CLI's JSON has it."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _nan_to_none(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_nan_to_none(v) for v in x]
    return x


def without_wall_times(r: Dict[str, Any]) -> Dict[str, Any]:
    """A study result without what depends on the machine (``wall_s`` of the study and of
    every run, ``threads``): what must be identical between backends for the same seeds."""
    r = {k: v for k, v in r.items() if k not in ("wall_s", "threads")}
    r["runs"] = [{k: v for k, v in x.items() if k != "wall_s"} for x in r["runs"]]
    return r


def _floats(s):
    return [float(x) for x in s.split(",")]


def _ints(s):
    return [int(x) for x in s.split(",")]


def main(argv=None) -> int:
    """``python -m pktlab study FIG [--ray ADDRESS] …``: ``pktlab aqm study`` with the
    runs on a Ray cluster (``--ray auto``, ``--ray ray://head:10001``; ``--ray local``
    starts one here) or on local threads (no ``--ray``)."""
    p = argparse.ArgumentParser(prog="python -m pktlab", description=main.__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("study", help="a figure of paper 002 (fig2, fig5, fig6, fig7, fig8)")
    s.add_argument("fig")
    s.add_argument("--ray", metavar="ADDRESS", help="Ray cluster address, or 'local' to start one here")
    s.add_argument("--workers", type=int, help="local threads, or CPUs of a local Ray cluster")
    s.add_argument("--aqm", type=lambda x: x.split(","))
    s.add_argument("--conns", type=_ints)
    s.add_argument("--buffers", type=_ints)
    s.add_argument("--ms", type=_ints)
    s.add_argument("--a", type=_floats)
    s.add_argument("--delays", type=_floats)
    s.add_argument("--seeds", type=int, default=3)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--duration", type=float, default=500.0)
    s.add_argument("--warmup", type=float, default=50.0)
    s.add_argument("--out", default="results/aqm", help="directory for figN.json and figN.csv")
    s.add_argument("--json", action="store_true", help="print the figN.json content on stdout")
    a = p.parse_args(argv)
    kw = {k: getattr(a, k) for k in ("aqm", "conns", "buffers", "ms", "a", "delays") if getattr(a, k) is not None}
    backend = "ray" if a.ray else "local"
    address = None if a.ray in (None, "local") else a.ray
    try:
        r = study(a.fig, backend=backend, address=address, workers=a.workers, out=a.out, seeds=a.seeds,
                  seed=a.seed, duration=a.duration, warmup=a.warmup, **kw)
    except (ValueError, OSError) as e:
        print(f"pktlab: error: {e}", file=sys.stderr)
        return 2
    print(f"pktlab: wrote {os.path.join(a.out, a.fig)}.json and .csv: {r['runs_total']} runs on {backend} "
          f"({r['threads']} workers) in {r['wall_s']:.1f} s wall", file=sys.stderr)
    if a.json:
        print(json.dumps(_nan_to_none(r)))
    else:
        print(f"{'aqm':<9} {'B':>6} {'m':>6} {'a':>4} {'conns':>5} {'tau_vx':>6} {'reno_Mb/s':>9} "
              f"{'vegas_Mb/s':>10} {'jain':>6}")
        for row in r["rows"]:
            a_ = "-" if row["a"] is None else f"{row['a']:g}"
            print(f"{row['aqm']:<9} {row['buffer']:>6} {row['m']:>6} {a_:>4} {row['conns']:>5} "
                  f"{row['vegas_delay_ms']:>6g} {row['reno_mbps']['mean']:>9.3f} "
                  f"{row['vegas_mbps']['mean']:>10.3f} {row['jain']['mean']:>6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
