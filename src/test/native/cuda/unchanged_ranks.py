"""An unchanged Python program for flagtrace run's tests: it knows nothing of flagtrace. Run with no
argument it is the launcher: it starts WORLD workers of itself with RANK, WORLD_SIZE, LOCAL_RANK and
LOCAL_WORLD_SIZE set as torchrun sets them, waits for them and exits with the first nonzero code. With
"touch" as third argument the launcher first initialises CUDA without device work (a device synchronise),
as torchrun's does when torch checks the devices.
Each worker calls the CUDA runtime through ctypes (libcudart.so on the library path): a copy in,
STEPS NVTX ranges "step" each launching two kernels and a memset, a copy out; it prints its own
counts as "rank R: kernels=K memcpys=C memsets=S ranges=N".

    python3 unchanged_ranks.py [WORLD [STEPS [touch]]]"""
import ctypes
import os
import subprocess
import sys


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


def worker(steps):
    rt = ctypes.CDLL("libcudart.so")
    rt.cudaLaunchKernel.argtypes = [ctypes.c_void_p, Dim3, Dim3, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    rt.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    rt.cudaMemsetAsync.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
    rt.nvtxRangePushA.argtypes = [ctypes.c_char_p]
    stub = ctypes.create_string_buffer(8)  # the host-side handle of the kernel, as nvcc's stub function is
    name = b"_Z7softmaxPfi"
    rt.__cudaRegisterFunction(None, stub, name, name, -1, None, None, None, None, None)
    size = 4096
    host = ctypes.create_string_buffer(size)
    device = ctypes.c_void_p()
    rt.cudaMalloc(ctypes.byref(device), ctypes.c_size_t(size))
    rt.cudaMemcpy(device, host, size, 1)
    kernels = memsets = ranges = 0
    for _ in range(steps):
        rt.nvtxRangePushA(b"step")
        rt.cudaLaunchKernel(ctypes.addressof(stub), Dim3(8, 1, 1), Dim3(128, 1, 1), None, 0, None)
        rt.cudaMemsetAsync(device, 0, size, None)
        rt.cudaLaunchKernel(ctypes.addressof(stub), Dim3(8, 1, 1), Dim3(128, 1, 1), None, 0, None)
        rt.nvtxRangePop()
        kernels += 2
        memsets += 1
        ranges += 1
    rt.cudaMemcpy(host, device, size, 2)
    rt.cudaDeviceSynchronize()
    print("rank %s: kernels=%d memcpys=2 memsets=%d ranges=%d" % (os.environ["RANK"], kernels, memsets, ranges), flush=True)


def main():
    if "RANK" in os.environ:
        worker(int(os.environ.get("STEPS", "4")))
        return 0
    world = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    steps = sys.argv[2] if len(sys.argv) > 2 else "4"
    if len(sys.argv) > 3 and sys.argv[3] == "touch":
        ctypes.CDLL("libcudart.so").cudaDeviceSynchronize()
    workers = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank),
                   LOCAL_WORLD_SIZE=str(world), STEPS=steps)
        workers.append(subprocess.Popen([sys.executable, os.path.abspath(__file__)], env=env))
    codes = [w.wait() for w in workers]
    return next((c for c in codes if c != 0), 0)


if __name__ == "__main__":
    sys.exit(main())
