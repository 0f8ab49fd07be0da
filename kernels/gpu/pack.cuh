/* gpu/pack.cuh -- device code: the halo (un)pack kernel of gpu/halo.cu.
 *   k_pack<T><<<ceil(n ncomp/256), 256>>>(links, buf, nblk, ncomp, vec, slot, h0, n, unpack)
 *     copies the ncomp reals of slot `slot` at half indices [h0, h0+n) between
 *     the device layout (gpu_index of gpu/field.h) and buf (half-index order);
 *     unpack = 0: links -> buf, 1: buf -> links.
 * Contract: after gpu/field.h.  No launches: the host emulation includes it. */
template <typename T>
__global__ void k_pack(const T *__restrict__ links, T *__restrict__ buf, int64_t nblk, int ncomp, int vec, int slot,
                       int h0, int n, int unpack)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (int64_t)n * ncomp) return;
    int64_t h = h0 + i / ncomp;
    int c = (int)(i % ncomp);
    size_t at = gpu_index(nblk, ncomp, vec, slot, c, h);
    if (unpack) ((T *)links)[at] = buf[i];
    else buf[i] = links[at];
}
