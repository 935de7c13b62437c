"""Configuration dicts for the Rust experiments: keyword arguments checked against the
experiment's default configuration (``pktlab.defaults(name)``), so that a misspelt
parameter is a ValueError naming it instead of being silently ignored."""

import dataclasses
from typing import Any, Dict, Optional

from . import _pktlab


def _paths(defaults: Dict[str, Any], prefix=()):
    """Yields (key, path) for every leaf and struct key of a nested default config."""
    for k, v in defaults.items():
        yield k, prefix + (k,)
        if isinstance(v, dict):
            yield from _paths(v, prefix + (k,))


def build(name: str, config: Optional[Any] = None, **kw) -> Dict[str, Any]:
    """The config dict of experiment ``name``: its defaults, updated by ``config`` (a dict
    or dataclass in the experiment's nested layout) and then by ``kw``, whose keys may name
    a field at any depth (``policy`` for ``model.policy``) when the name is unambiguous."""
    cfg = _pktlab.defaults(name)
    where: Dict[str, list] = {}
    for k, p in _paths(cfg):
        where.setdefault(k, []).append(p)
    if config is not None:
        if dataclasses.is_dataclass(config):
            config = dataclasses.asdict(config)
        if not isinstance(config, dict):
            raise ValueError(f"{name}: config must be a dict or a dataclass, got {type(config).__name__}")
        kw = {**config, **kw}
    for k, v in kw.items():
        paths = where.get(k)
        if not paths:
            known = ", ".join(sorted(where))
            raise ValueError(f"{name}: unknown parameter {k!r} (known: {known})")
        def node_of(path):
            node = cfg
            for p in path[:-1]:
                node = node[p]
            return node

        # a dict value goes to a struct field, any other value to a plain field (`trace` is
        # both the trace struct of a cache config and its path); the shallowest wins
        fits = [p for p in paths if isinstance(node_of(p).get(p[-1]), dict) == isinstance(v, dict)]
        path = min(fits or paths, key=len)
        node = node_of(path)
        if isinstance(node.get(path[-1]), dict) and isinstance(v, dict):
            node[path[-1]].update(v)
        else:
            node[path[-1]] = v
    return cfg


def run(name: str, config: Optional[Any] = None, **kw) -> Dict[str, Any]:
    """Runs experiment ``name`` (GIL released) on ``build(name, config, **kw)``."""
    return _pktlab.run(name, build(name, config, **kw))
