/* The declarations of the CUDA runtime and NVTX calls the fake runtime (fake_cudart.c) exports,
 * and the driver's launch, with the real ones' names and signatures: a program written against cuda_runtime.h and
 * nvToolsExt.h for these calls compiles against this header unchanged (scripts/fake-gpu-env puts it
 * on CPATH). */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

typedef struct { unsigned int x, y, z; } dim3;
typedef void* cudaStream_t;
typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3 };

cudaError_t cudaMalloc(void** pointer, size_t size);
cudaError_t cudaFree(void* pointer);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemsetAsync(void* dst, int value, size_t count, cudaStream_t stream);
cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                             cudaStream_t stream);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetLastError(void);
cudaError_t cudaProfilerStart(void); /* cuda_profiler_api.h */
cudaError_t cudaProfilerStop(void);
/* What nvcc's generated host code calls once per kernel at start-up. */
void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun, const char* deviceName,
                            int threadLimit, void* tid, void* bid, dim3* bDim, dim3* gDim, int* wSize);
/* The driver's launch (cuda.h), as cuBLASLt and Triton launch; link with -lcuda. */
typedef void* CUfunction;
typedef void* CUmodule;
typedef void* CUstream;
int cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name);
int cuLaunchKernel(CUfunction function, unsigned int gridX, unsigned int gridY, unsigned int gridZ, unsigned int blockX,
                   unsigned int blockY, unsigned int blockZ, unsigned int sharedMemBytes, CUstream stream, void** params,
                   void** extra);
/* NVTX (nvToolsExt.h): the event attributes as NVTX v3 lays them out, the range and the mark calls. */
typedef struct nvtxDomainRegistration_st* nvtxDomainHandle_t;
typedef struct nvtxStringRegistration_st* nvtxStringHandle_t;
enum { NVTX_VERSION = 3, NVTX_COLOR_ARGB = 1, NVTX_MESSAGE_TYPE_ASCII = 1, NVTX_MESSAGE_TYPE_UNICODE = 2,
       NVTX_MESSAGE_TYPE_REGISTERED = 3 };
typedef struct {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union { uint64_t ullValue; int64_t llValue; double dValue; } payload;
    int32_t messageType;
    union { const char* ascii; const wchar_t* unicode; nvtxStringHandle_t registered; } message;
} nvtxEventAttributes_t;
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t) sizeof(nvtxEventAttributes_t))
void nvtxMarkA(const char* message);
void nvtxMarkW(const wchar_t* message);
void nvtxMarkEx(const nvtxEventAttributes_t* attributes);
void nvtxDomainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes);
int nvtxRangePushA(const char* message);
int nvtxRangePushW(const wchar_t* message);
int nvtxRangePushEx(const nvtxEventAttributes_t* attributes);
int nvtxRangePop(void);
uint64_t nvtxRangeStartA(const char* message);
uint64_t nvtxRangeStartEx(const nvtxEventAttributes_t* attributes);
void nvtxRangeEnd(uint64_t id);
nvtxDomainHandle_t nvtxDomainCreateA(const char* name);
nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t domain, const char* text);
int nvtxDomainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes);
int nvtxDomainRangePop(nvtxDomainHandle_t domain);
uint64_t nvtxDomainRangeStartEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes);
void nvtxDomainRangeEnd(nvtxDomainHandle_t domain, uint64_t id);
#endif
