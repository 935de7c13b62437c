"""LPM experiments (paper 004): ``bench`` and ``verify`` as ``pktlab lpm bench|verify``;
the table class itself is ``pktlab.Lpm``."""

from ._config import run
from ._pktlab import Lpm


def bench(config=None, **kw):
    """Lookup-rate benchmark (``pktlab lpm bench``); keys as ``pktlab.defaults("lpm.bench")``,
    nested ones by their own name, e.g. ``bench(table="rib.txt.gz", algos=["poptrie18"],
    pregen=65536)``."""
    return run("lpm.bench", config, **kw)


def verify(config=None, **kw):
    """Every algorithm against the radix-trie oracle (``pktlab lpm verify``)."""
    return run("lpm.verify", config, **kw)


__all__ = ["Lpm", "bench", "verify"]
