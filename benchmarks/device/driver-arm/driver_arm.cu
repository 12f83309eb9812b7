// Does CUPTI record driver launch calls (cuLaunchKernel) when they are enabled per callback id with
// cuptiActivityEnableDriverApi, without the DRIVER kind, and does that depend on when it is armed?
// flagtrace's injected library arms that way; a torch run armed at start had every cuLaunchKernel record,
// one armed mid-run by a capture range had none (benchmarks/results/2026-12-05-h100/driver-arm/).
//
// Run: ./driver_arm MODE [launches=20000]; one JSON line: driver, runtime and kernel records seen, the
// launches made while armed, and the mean host time of a cuLaunchKernel while armed.
//   early          kinds and the launch cbids enabled before the context exists (armed at start)
//   mid            context made and 10 launches first, then kinds, then the launch cbids (a capture range)
//   mid_apifirst   as mid, the launch cbids enabled before the kinds
//   mid_driverkind as mid, with the DRIVER kind enabled and every other driver cbid disabled (kineto's way)
//   mid_offfirst   as mid_driverkind, the other driver cbids switched off before the DRIVER kind is enabled
//   mid_kindonly   the DRIVER kind mid-run with no cbid switched off (every driver call recorded: the filter's check)
//   rearm          early, then disarmed (kinds and cbids off) for 10 launches, then armed again (a window)
//   late_register  as mid, but the buffer callbacks too are registered only then, after the context exists and
//                  has launched (the seed holds that CUPTI then delivers nothing; a tracer that could register at
//                  its first arm would cost a disarmed process nothing: benchmarks/run-device-cupti-idle.sh)
// Every armed mode then makes 100 driver calls that are not launches (cuDriverGetVersion): other_driver_records counts
// those recorded, which the launch-only arming must keep at 0.
//   plain          never armed (the cost baseline)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

__global__ void tiny(int* p) { if (p) *p = 1; }

static long driverRecords, runtimeRecords, kernelRecords, driverLaunchRecords;
static const CUpti_CallbackId LAUNCHES[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                            CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz};
static const CUpti_ActivityKind KINDS[] = {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};

static void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *maxRecords = 0;
}

static void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
      driverRecords++;
      auto* api = reinterpret_cast<CUpti_ActivityAPI*>(record);
      for (auto cbid : LAUNCHES) driverLaunchRecords += api->cbid == cbid;
    }
    runtimeRecords += record->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
    kernelRecords += record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  }
  free(buffer);
}

static int failures;
static void check(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) { failures++; const char* s; cuptiGetResultString(r, &s); fprintf(stderr, "%s: %s\n", what, s); }
}
static void kinds(bool on) { for (auto k : KINDS) check(on ? cuptiActivityEnable(k) : cuptiActivityDisable(k), "kind"); }
static void launches(bool on) { for (auto c : LAUNCHES) check(cuptiActivityEnableDriverApi(c, on), "enableDriverApi"); }

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "mid";
  long n = argc > 2 ? atol(argv[2]) : 20000;
  if (mode != "plain" && mode != "late_register") check(cuptiActivityRegisterCallbacks(requested, completed), "register");
  if (mode == "early" || mode == "rearm") { kinds(true); launches(true); }
  cudaFree(nullptr);
  CUfunction f;
  if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(tiny)) != cudaSuccess) { fprintf(stderr, "no function\n"); return 2; }
  // the driver's cuLaunchKernel as libraries reach it (cuBLASLt, Triton): through the entry-point table
  using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPoint("cuLaunchKernel", &entry, cudaEnableDefault, &found) != cudaSuccess || entry == nullptr) {
    fprintf(stderr, "no cuLaunchKernel\n");
    return 2;
  }
  auto cuLaunch = reinterpret_cast<LaunchFn>(entry);
  int* null = nullptr;
  void* args[] = {&null};
  auto launch = [&](long count) {
    for (long i = 0; i < count; i++) cuLaunch(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr);
  };
  launch(10);
  cudaDeviceSynchronize();
  if (mode == "rearm") { kinds(false); launches(false); launch(10); cudaDeviceSynchronize(); kinds(true); launches(true); }
  if (mode == "mid") { kinds(true); launches(true); }
  if (mode == "late_register") { check(cuptiActivityRegisterCallbacks(requested, completed), "register"); kinds(true); launches(true); }
  if (mode == "mid_apifirst") { launches(true); kinds(true); }
  auto othersOff = [] {
    for (CUpti_CallbackId c = 1; c < CUPTI_DRIVER_TRACE_CBID_SIZE; c++) {
      bool keep = false;
      for (auto l : LAUNCHES) keep |= l == c;
      if (!keep) cuptiActivityEnableDriverApi(c, 0);  // ids this CUDA lacks are refused: fine
    }
  };
  if (mode == "mid_driverkind") {
    kinds(true);
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "driver kind");
    othersOff();
  }
  if (mode == "mid_offfirst") {
    kinds(true);
    othersOff();
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "driver kind");
    launches(true);
  }
  if (mode == "mid_kindonly") {
    kinds(true);
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "driver kind");
  }
  launch(1000);  // warm
  cudaDeviceSynchronize();
  auto t0 = std::chrono::steady_clock::now();
  launch(n);
  auto t1 = std::chrono::steady_clock::now();
  cudaDeviceSynchronize();
  // cuDriverGetVersion has one signature in every CUDA; the latest cuCtxGetDevice (13.0's _v2) takes a context too
  using VersionFn = CUresult (*)(int*);
  void* other = nullptr;
  if (cudaGetDriverEntryPoint("cuDriverGetVersion", &other, cudaEnableDefault, &found) == cudaSuccess && other != nullptr) {
    int version;
    for (int i = 0; i < 100; i++) reinterpret_cast<VersionFn>(other)(&version);
  }
  tiny<<<1, 32>>>(nullptr);  // one runtime launch, for the runtime count
  cudaDeviceSynchronize();
  if (mode != "plain") check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "flush");
  long armedLaunches = mode == "plain" ? 0 : mode == "early" ? 10 + 1000 + n : 1000 + n;
  printf("{\"mode\":\"%s\",\"armed_driver_launches\":%ld,\"driver_launch_records\":%ld,\"driver_records\":%ld,"
         "\"other_driver_records\":%ld,\"runtime_records\":%ld,\"kernel_records\":%ld,\"us_per_launch\":%.3f,\"cupti_failures\":%d}\n",
         mode.c_str(), armedLaunches, driverLaunchRecords, driverRecords, driverRecords - driverLaunchRecords, runtimeRecords, kernelRecords,
         std::chrono::duration<double, std::micro>(t1 - t0).count() / n, failures);
  return 0;
}
