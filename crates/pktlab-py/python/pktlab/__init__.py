"""pktlab from Python: the Rust toolkit's experiments as functions on dicts and NumPy arrays.

* ``pktlab.Lpm(algo, path=None, routes=None, nexthops="hash:16")``: a longest-prefix-match
  table; ``lookup(np.ndarray[uint32])`` (IPv6: ``uint64`` of shape (n, 2)) → next hops.
* ``pktlab.lpm``: ``bench`` and ``verify`` (``pktlab lpm bench|verify``).
* ``pktlab.cache``: ``simulate`` and ``sweep`` on a trace file, a synthetic trace, a NumPy
  array or an iterator of flow keys (paper 000).
* ``pktlab.aqm``: ``simulate`` (the dumbbell, NumPy time series) and ``study`` (paper 002's
  figures, locally or on Ray); ``python -m pktlab study fig5 --ray ADDRESS``.
* ``pktlab.traffic``: ``Zipf(alpha, names, entries).sample(n)`` and ``zipf`` (paper 003).
* ``pktlab.ccn``: ``simulate`` (content-store hit ratios and forwarder rate).
* ``pktlab.sweep(fn, grid, seeds, backend="local"|"ray")``: one task per grid point.
* ``pktlab.run(name, config)``, ``pktlab.defaults(name)``, ``pktlab.experiments()``: any
  experiment by name with a config dict (the CLI's ``--json`` result comes back).

Every result is plain dicts, lists and NumPy arrays; errors are ValueError (bad parameter
or input) or OSError (a file that cannot be opened) with the CLI's one-line message.
"""

from . import _pktlab
from ._pktlab import Lpm, defaults, experiments, run
from ._sweep import sweep
from . import aqm, cache, ccn, lpm, traffic

__all__ = ["Lpm", "aqm", "cache", "ccn", "defaults", "experiments", "lpm", "run", "sweep", "traffic"]
