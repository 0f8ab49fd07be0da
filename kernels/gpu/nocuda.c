/* gpu_stub.c -- the GPU entry points of a build without CUDA (make CUDA=0):
 * gpu_available() says no, with the reason; gpu_inject_fault does nothing;
 * gpu_transfer_take counts nothing. */
#include "gpu/gpu.h"
#include "gpu/field.h"
#include <stdio.h>

int gpu_available(char *why, int whylen)
{
    if (why) snprintf(why, (size_t)whylen, "this lat was built without CUDA");
    return 0;
}

void gpu_inject_fault(void) {}

/* no device, nothing moved */
void gpu_transfer_take(struct gpu_transfer_count *c) { *c = (struct gpu_transfer_count){0, 0, 0, 0, 0}; }
