"""Traffic (paper 003): the Zipf table sampler.

``Zipf(alpha, names=2**32, entries=65536, merge="optimal")``: ``sample(n, seed=1)`` gives
ranks (1 = most popular) as a NumPy array, ``stats()`` the table's error against the exact
distribution (tv, kl, max_rel_err, ks). ``zipf(**kw)`` is ``pktlab traffic zipf`` (error and
sampling speed beside ``rand_distr``)."""

from ._config import run
from ._pktlab import Zipf


def zipf(config=None, **kw):
    """Zipf table error and sampling speed (``pktlab`` traffic zipf); keys as
    ``pktlab.defaults("traffic.zipf")``."""
    return run("traffic.zipf", config, **kw)


__all__ = ["Zipf", "zipf"]
