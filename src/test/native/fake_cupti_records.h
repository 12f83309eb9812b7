/* Activity records of CUPTI-compatible vendor libraries, laid out exactly as CUPTI's headers define
 * them on x86_64 (PACKED_ALIGNMENT: packed, aligned to 8; CUPTILP64 pads present), for the fake
 * vendor libraries (fake_mcpti.c, fake_ppu.c). Offsets are the measured ones of
 * /tmp/vendor-facts/cupti-older.md (12.1) and the CUPTI 13.0 layout table; each is asserted below. */
#ifndef FAKE_CUPTI_RECORDS_H
#define FAKE_CUPTI_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define FK_PACKED __attribute__((__packed__)) __attribute__((aligned(8)))

typedef struct FK_PACKED {
    uint32_t kind;
    uint32_t cbid;
    uint64_t start;
    uint64_t end;
    uint32_t processId;
    uint32_t threadId;
    uint32_t correlationId;
    uint32_t returnValue;
} fk_api; /* CUpti_ActivityAPI */

typedef struct FK_PACKED {
    uint32_t kind;
    uint32_t externalKind;
    uint64_t externalId;
    uint32_t correlationId;
    uint32_t reserved;
} fk_external_correlation; /* CUpti_ActivityExternalCorrelation */

typedef struct FK_PACKED {
    uint32_t kind;
    uint8_t cacheConfig;
    uint8_t sharedMemoryConfig;
    uint16_t registersPerThread;
    uint32_t partitionedGlobalCacheRequested;
    uint32_t partitionedGlobalCacheExecuted;
    uint64_t start;
    uint64_t end;
    uint64_t completed;
    uint32_t deviceId;
    uint32_t contextId;
    uint32_t streamId;
    int32_t gridX, gridY, gridZ;
    int32_t blockX, blockY, blockZ;
    int32_t staticSharedMemory;
    int32_t dynamicSharedMemory;
    uint32_t localMemoryPerThread;
    uint32_t localMemoryTotal;
    uint32_t correlationId;
    int64_t gridId;
    const char* name;
    void* reserved0;
    uint64_t queued;
    uint64_t submitted;
    uint8_t launchType;
    uint8_t isSharedMemoryCarveoutRequested;
    uint8_t sharedMemoryCarveoutRequested;
    uint8_t padding;
    uint32_t sharedMemoryExecuted;
    uint64_t graphNodeId;
    uint32_t shmemLimitConfig;
    uint32_t graphId;
    void* pAccessPolicyWindow;
    uint32_t channelID;
    uint32_t channelType;
    uint32_t clusterX, clusterY, clusterZ;
    uint32_t clusterSchedulingPolicy;
    uint64_t localMemoryTotal_v2;
    uint32_t maxPotentialClusterSize;
    uint32_t maxActiveClusters;
} fk_kernel9; /* CUpti_ActivityKernel9 (CUDA 12.1) */

typedef struct FK_PACKED {
    fk_kernel9 k;
    uint8_t isDeviceLaunched;
    uint8_t padding3[7];
} fk_kernel10; /* CUpti_ActivityKernel10 (CUDA 13.0): Kernel9 plus isDeviceLaunched */

typedef struct FK_PACKED {
    uint32_t kind;
    uint8_t copyKind, srcKind, dstKind, flags;
    uint64_t bytes;
    uint64_t start;
    uint64_t end;
    uint32_t deviceId;
    uint32_t contextId;
    uint32_t streamId;
    uint32_t correlationId;
    uint32_t runtimeCorrelationId;
    uint32_t pad;
    void* reserved0;
    uint64_t graphNodeId;
    uint32_t graphId;
    uint32_t channelID;
    uint32_t channelType;
    uint32_t pad2;
} fk_memcpy5; /* CUpti_ActivityMemcpy5 (CUDA 12.1) */

typedef struct FK_PACKED {
    uint32_t kind;
    uint8_t copyKind, srcKind, dstKind, flags;
    uint64_t bytes;
    uint64_t start;
    uint64_t end;
    uint32_t deviceId;
    uint32_t contextId;
    uint32_t streamId;
    uint32_t correlationId;
    uint32_t runtimeCorrelationId;
    uint32_t pad;
    void* reserved0;
    uint64_t graphNodeId;
    uint32_t graphId;
    uint32_t channelID;
    uint32_t channelType;
    uint8_t isDeviceLaunched;
    uint8_t pad2[3];
    uint64_t copyCount;
} fk_memcpy6; /* CUpti_ActivityMemcpy6 (CUDA 13.0) */

typedef struct FK_PACKED {
    uint32_t kind;
    uint32_t value;
    uint64_t bytes;
    uint64_t start;
    uint64_t end;
    uint32_t deviceId;
    uint32_t contextId;
    uint32_t streamId;
    uint32_t correlationId;
    uint16_t flags;
    uint16_t memoryKind;
    uint32_t pad;
    void* reserved0;
    uint64_t graphNodeId;
    uint32_t graphId;
    uint32_t channelID;
    uint32_t channelType;
    uint32_t pad2;
} fk_memset4; /* CUpti_ActivityMemset4 (12.1; 13.0 splits pad2 into isDeviceLaunched + pad2[3]) */

_Static_assert(sizeof(fk_api) == 40 && offsetof(fk_api, correlationId) == 32, "CUpti_ActivityAPI");
_Static_assert(sizeof(fk_external_correlation) == 24 && offsetof(fk_external_correlation, correlationId) == 16,
               "CUpti_ActivityExternalCorrelation");
_Static_assert(sizeof(fk_kernel9) == 208 && offsetof(fk_kernel9, start) == 16 && offsetof(fk_kernel9, deviceId) == 40
               && offsetof(fk_kernel9, gridX) == 52 && offsetof(fk_kernel9, correlationId) == 92
               && offsetof(fk_kernel9, name) == 104 && offsetof(fk_kernel9, queued) == 120
               && offsetof(fk_kernel9, channelID) == 168 && offsetof(fk_kernel9, maxActiveClusters) == 204,
               "CUpti_ActivityKernel9");
_Static_assert(sizeof(fk_kernel10) == 216, "CUpti_ActivityKernel10");
_Static_assert(sizeof(fk_memcpy5) == 88 && offsetof(fk_memcpy5, correlationId) == 44 && offsetof(fk_memcpy5, pad2) == 84,
               "CUpti_ActivityMemcpy5");
_Static_assert(sizeof(fk_memcpy6) == 96 && offsetof(fk_memcpy6, copyCount) == 88, "CUpti_ActivityMemcpy6");
_Static_assert(sizeof(fk_memset4) == 88 && offsetof(fk_memset4, memoryKind) == 50 && offsetof(fk_memset4, channelType) == 80,
               "CUpti_ActivityMemset4");

#endif
