"""pktlab.aqm: a short dumbbell equals the CLI's JSON; studies on threads equal the
library's threaded study."""

import json
import math

import numpy as np
import pytest

import pktlab

SHORT = dict(aqm="droptail,zlred", reno=3, vegas=3, duration=4.0, warmup=1.0, buffer=200, seed=7)


def same(a, b):
    if isinstance(a, float) and math.isnan(a):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return a == b


def test_dumbbell_equals_cli(cli):
    r = pktlab.aqm.simulate(series=False, **SHORT)
    c = json.loads(cli("aqm", "sim", "--aqm", "droptail,zlred", "--reno", 3, "--vegas", 3, "--duration", 4,
                       "--warmup", 1, "--buffer", 200, "--seed", 7, "--json").stdout)
    assert len(r["runs"]) == len(c["runs"]) == 2
    for a, b in zip(r["runs"], c["runs"]):
        assert a["events"] == b["events"]
        for k, v in b["summary"].items():
            assert same(a["summary"][k], v), k
        assert a["flows"]["goodput_mbps"].tolist() == [f["goodput_mbps"] for f in b["flows"]]
        assert a["flows"]["kind"].tolist() == [f["kind"] for f in b["flows"]]
        assert a["config"] == b["config"]
    # sampling the time series adds events but changes no result
    s = pktlab.aqm.simulate(**SHORT)
    assert [x["summary"]["jain"] for x in s["runs"]] == [x["summary"]["jain"] for x in r["runs"]]


def test_series_arrays():
    r = pktlab.aqm.simulate(**dict(SHORT, aqm="red"), sample_ms=10)
    s = r["runs"][0]["series"]
    n = len(s["t_s"])
    assert n > 300 and s["queue_pkts"].dtype == np.uint32 and s["cwnd"].shape == (n, 6)
    assert np.all(np.diff(s["t_s"]) > 0) and s["queue_pkts"].max() <= 200
    assert "series" not in pktlab.aqm.simulate(**dict(SHORT, aqm="red"), series=False)["runs"][0]


def strip_wall(r):
    return json.dumps(pktlab.aqm.without_wall_times(r), sort_keys=True)


STUDY = dict(conns=[4], a=[1.0, 4.0], seeds=2, duration=3.0, warmup=1.0)


def test_study_local_equals_threaded_library(tmp_path):
    local = pktlab.aqm.study("fig7", workers=2, out=str(tmp_path), **STUDY)
    lib = pktlab.run("aqm.study", dict(fig="fig7", threads=2, **STUDY))
    assert local["runs_total"] == 6 and len(local["rows"]) == 3
    assert strip_wall(local) == strip_wall(lib)
    assert (tmp_path / "fig7.csv").read_text().count("\n") == 4
    assert json.loads((tmp_path / "fig7.json").read_text())["runs_total"] == 6


def test_bad_arguments(cli):
    with pytest.raises(ValueError) as e:
        pktlab.aqm.study("fig9", duration=1.0)
    r = cli("aqm", "study", "fig9", "--duration", 1, check=False)
    assert r.stderr.strip().splitlines()[-1] == f"pktlab: error: {e.value}"
    with pytest.raises(ValueError, match="--vegas-loss"):
        pktlab.aqm.simulate(vegas_loss="never", duration=20.0)
    with pytest.raises(ValueError, match="unknown parameter 'bufer'"):
        pktlab.aqm.simulate(bufer=3)
