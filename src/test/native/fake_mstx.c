/* A fake mstx (libms_tools_ext.so): mstx's range and mark calls under their real names and signatures
 * (ascend/fake_acl.h). Without a profiler, as the real library without one, they record nothing; a
 * range's id is still unique, so a program may keep and end it. flagtrace's preloaded library
 * (native/inject/flagtrace_mspti.c) defines mstxRangeStartA and mstxRangeEnd before these. Built by
 * scripts/fake-gpu-env mspti. */
#include "ascend/fake_acl.h"
#include <stdatomic.h>

static atomic_ullong next_id;

mstxRangeId mstxRangeStartA(const char* message, aclrtStream stream) {
    (void) message;
    (void) stream;
    return atomic_fetch_add(&next_id, 1) + 1;
}

void mstxRangeEnd(mstxRangeId id) {
    (void) id;
}

void mstxMarkA(const char* message, aclrtStream stream) {
    (void) message;
    (void) stream;
}
