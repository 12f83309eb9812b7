"""Runs train.py unchanged after putting CUPTI into one idle state, with no flagtrace in the process
(benchmarks/run-device-cupti-idle.sh): where does a disarmed `flagtrace run --start-later` cost torch time?

    CUPTI_IDLE=loaded       libcupti loaded (torch's own copy, else FLAGTRACE_CUPTI_LIBRARY), nothing called
    CUPTI_IDLE=timestamp    cuptiGetTimestamp called once: CUPTI initialised, no client registered
    CUPTI_IDLE=registered   cuptiActivityRegisterCallbacks with two do-nothing callbacks and no activity kind
                            enabled: what the injected library does at CUDA's initialisation while disarmed

    cupti_idle.py train.py ARGS...
"""
import ctypes
import os
import runpy
import sys

import torch  # noqa: F401  (torch's wheels link their libcupti at import: the copy the injected library uses)

state = os.environ.get("CUPTI_IDLE", "registered")
try:
    cupti = ctypes.CDLL("libcupti.so.13", mode=os.RTLD_NOLOAD | os.RTLD_NOW)
except OSError:
    cupti = ctypes.CDLL(os.environ["FLAGTRACE_CUPTI_LIBRARY"])

REQUESTED = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t),
                             ctypes.POINTER(ctypes.c_size_t))
COMPLETED = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t)


def requested(buffer, size, max_records):
    buffer[0] = None  # never called: no kind is enabled
    size[0] = 0
    max_records[0] = 0


def completed(context, stream, buffer, size, valid):
    pass


callbacks = (REQUESTED(requested), COMPLETED(completed))  # kept alive for the process's life
if state == "timestamp":
    stamp = ctypes.c_uint64()
    status = cupti.cuptiGetTimestamp(ctypes.byref(stamp))
elif state == "registered":
    status = cupti.cuptiActivityRegisterCallbacks(*callbacks)
else:
    status = 0
if status != 0:
    sys.exit("cupti_idle: CUPTI call for %s failed with status %d" % (state, status))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
