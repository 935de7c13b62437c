"""Calls that never end obey Ctrl-C; bad key arrays and failing generators give clear errors."""

import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import pktlab

# Each prints "started" just before its call, which would run for hours without Ctrl-C.
ENDLESS = {
    "aqm.simulate": "pktlab.aqm.simulate(duration=1e12, reno=1, vegas=0)",
    "cache.simulate": "pktlab.cache.simulate(packets=1 << 40, policy='lru', timing=False)",
    "aqm.study run": "pktlab._pktlab.aqm_study_run(pktlab._config.build('aqm.study', fig='fig5', duration=1e9, "
                     "warmup=1.0, seeds=1), 0)",
}


def _proc_status(pid):
    """State, SigIgn, SigCgt and SigBlk lines of /proc/<pid>/status ('' where unreadable)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            keep = ("State", "SigIgn", "SigCgt", "SigBlk", "Threads")
            return "; ".join(l.strip() for l in f if l.startswith(keep))
    except OSError:
        return ""


@pytest.mark.parametrize("name", sorted(ENDLESS))
def test_ctrl_c_raises_keyboard_interrupt_within_a_second(name):
    # Python installs its KeyboardInterrupt handler only when SIGINT is not ignored at start,
    # and a runner started in the background of a non-interactive shell (`cmd &`, as CI
    # scripts often are) passes SIGINT on ignored: a child then showed SigIgn 0x1001007 (bit 1
    # is SIGINT) and never saw the signal. The child sets the handler an interactive Python
    # has, so the test checks the library's polling, not how the runner was started.
    code = (
        "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
        f"import pktlab, pktlab._config\nprint('started', flush=True)\n{ENDLESS[name]}\nprint('finished')\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(1.0)
        assert p.poll() is None, "the call ended by itself"
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            # Say what the child was doing and which signals it ignored or caught.
            pytest.fail(f"no exit 10 s after SIGINT; child: {_proc_status(p.pid)}")
        waited = time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert "KeyboardInterrupt" in err, err
    assert "finished" not in out
    assert p.returncode != 0
    assert waited < 2.0, f"exit {waited:.2f} s after SIGINT"


def test_short_calls_are_unchanged_by_the_signal_polling():
    # The result comes back (no spurious interrupt) and the GIL is free while it runs.
    r = pktlab.aqm.simulate(series=False, aqm="droptail", reno=1, vegas=1, duration=2.0, warmup=0.5)
    assert r["runs"][0]["events"] > 0


@pytest.mark.parametrize(
    "keys, exc, msg",
    [
        (np.array([1.0, 2.5, 3.0]), TypeError, "expected integers, got dtype float64"),
        (np.array([1.0, np.nan]), TypeError, "expected integers, got dtype float64"),
        (np.array([True, False]), TypeError, "expected integers, got dtype bool"),
        (np.zeros((2, 2, 2), dtype=np.uint64), ValueError, r"1-D array .* got shape \(2, 2, 2\)"),
        (np.zeros((4, 3), dtype=np.uint64), ValueError, r"\(n, 5\)"),
        ([1, 2.5, 3], TypeError, "packet 1: expected integers, got float"),
        ([1, -2], ValueError, "0..2\\^64-1"),
        ([(1, 2, 3, 4, 5), (1, 2, 3)], ValueError, "packet 1: expected a 5-tuple"),
        (3.5, TypeError, "expected a path, a NumPy array or an iterator"),
    ],
)
def test_key_arrays_must_be_integer_1d_or_five_tuples(keys, exc, msg):
    with pytest.raises(exc, match=msg):
        pktlab.cache.simulate(keys, policy="lru", entries=16)


def test_integer_keys_of_any_integer_dtype_are_accepted():
    k = np.arange(1000) % 37
    a = pktlab.cache.simulate(k.astype(np.int32), policy="lru", entries=16, timing=False)
    b = pktlab.cache.simulate(k.astype(np.uint64), policy="lru", entries=16, timing=False)
    assert a["results"][0]["misses"] == b["results"][0]["misses"] > 0
    with pytest.raises(TypeError, match="timestamps: expected integers"):
        pktlab.cache.simulate(k.astype(np.uint64), timestamps=np.arange(1000) * 1.5)


class Boom(RuntimeError):
    pass


def failing(n):
    for i in range(n):
        yield i
    raise Boom("the generator's own error")


def failing_routes():
    yield ("10.0.0.0/8", 1)
    raise Boom("the generator's own error")


def test_a_generators_own_exception_is_raised_as_itself():
    with pytest.raises(Boom, match="own error"):
        pktlab.cache.simulate(failing(100), policy="lru", entries=16)
    with pytest.raises(Boom, match="own error"):
        pktlab.Lpm("poptrie18", routes=failing_routes())
    # A TypeError raised inside the generator is not mistaken for "not iterable" either.
    def type_error():
        yield 1
        raise TypeError("inner type error")

    with pytest.raises(TypeError, match="inner type error"):
        pktlab.cache.simulate(type_error(), policy="lru", entries=16)
