"""CCN (paper 003's Cefore case study): content-store hit ratio per policy and size under
Zipf requests, with Che's approximation and the ideal ratio, and the forwarder's rate."""

from ._config import run


def simulate(config=None, **kw):
    """``pktlab ccn sim``; keys as ``pktlab.defaults("ccn.sim")`` (contents, alpha,
    cs_entries, policy, requests, warmup, fwd_requests, table_entries, payload, seed)."""
    if isinstance(kw.get("policy"), str):
        kw["policy"] = kw["policy"].split(",")
    return run("ccn.sim", config, **kw)


__all__ = ["simulate"]
