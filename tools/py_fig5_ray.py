#!/usr/bin/env python3
"""Paper 002's fig. 5 study through pktlab's Python package, on local threads and on a
local Ray cluster, one after the other: checks that both give identical results (all but
wall times) and prints wall times, per-task times and the bytes each task moves.

    python tools/py_fig5_ray.py [--duration 500] [--workers 2] [--address ADDR]
"""

import argparse
import json
import os
import pickle
import statistics
import time

import pktlab


def strip(r):
    return json.dumps(pktlab.aqm.without_wall_times(r), sort_keys=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fig", default="fig5")
    p.add_argument("--duration", type=float, default=500.0)
    p.add_argument("--warmup", type=float, default=50.0)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--workers", type=int, default=os.cpu_count())
    p.add_argument("--address", default=None, help="Ray cluster (default: start a local one)")
    a = p.parse_args()
    kw = dict(duration=a.duration, warmup=a.warmup, seeds=a.seeds, workers=a.workers)
    out = {"fig": a.fig, **kw, "load_before": os.getloadavg()}
    local = pktlab.aqm.study(a.fig, backend="local", **kw)
    out["local_wall_s"] = round(local["wall_s"], 2)
    out["load_after_local"] = os.getloadavg()
    import ray

    t0 = time.perf_counter()
    pktlab._parallel.ray_init(a.address, a.workers)
    out["ray_init_s"] = round(time.perf_counter() - t0, 2)
    remote = pktlab.aqm.study(a.fig, backend="ray", address=a.address, **kw)
    out["ray_wall_s"] = round(remote["wall_s"], 2)
    out["load_after_ray"] = os.getloadavg()
    ray.shutdown()
    out["identical"] = strip(local) == strip(remote)
    walls = [r["wall_s"] for r in local["runs"]]
    out["runs"] = len(walls)
    out["task_s"] = {"mean": round(statistics.mean(walls), 3), "max": round(max(walls), 3),
                     "sum": round(sum(walls), 1)}
    cfg = pktlab._config.build("aqm.study", fig=a.fig, duration=a.duration, warmup=a.warmup, seeds=a.seeds)
    out["bytes_in_per_task"] = len(pickle.dumps((cfg, 0)))
    out["bytes_out_per_task"] = len(pickle.dumps(remote["runs"][0]))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
