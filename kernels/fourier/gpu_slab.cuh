/* fourier/gpu_slab.cuh -- the transforms and the exchanges between ranks
 * of the CUDA backend of lat-fourier (part of fourier/gpu.cuh: included
 * inside its namespace, after fgeo, geo_of, fft_check and nblocks; nvcc, or
 * g++ in the host emulation).  Exports, to gpu.cuh:
 *   transform(st, dir)   fft/fft.h's order: forward = 3-D per owned slice,
 *       then (Landau) the transpose [t_own][V3] -> [kt][chunk] between the
 *       ranks and the lines along t; backward the reverse.  One rank: no
 *       transpose, chunk = V3.
 *   refresh_tlinks(st)   Landau on a slab: U_t of the last owned slice to
 *       the rank above (its halo slice 0)
 *   refresh_upper(st, field, ncomp, item)   Landau on a slab: the first
 *       owned slice of a component-major field to the rank below (its
 *       halo slice lt+1)
 *   chunk_begin(st, q)   the first spatial momentum of rank q's t-lines
 *       (fft/cpu.c's split: q V3 / R)
 *   slab_buffers_open(st), slab_buffers_close(st)   a slab's message
 *       buffers and peers (create and destroy)
 * The transpose's pieces and the halo slices go device to device into
 * the other ranks' GPUs when every rank can map the others' memory
 * (st->peer, st->peer_up, st->peer_down: gpu/peer.h, ranks of one node),
 * else through pinned host memory (hsend, hrecv) with comm_isend/irecv
 * (OpenMPI here is not CUDA-aware); both paths pack and unpack on the
 * device (k_move, k_tlinks, k_slice) and only move numbers, so the path
 * adds no rounding.  Nothing here depends on N.
 *
 * Reuse of a receive region (the peer contract: a sender must not rewrite
 * it before the receiver has read it): every peer alternates two receive
 * regions, A and B, with the parity of its round, and releases right
 * after each round's gpu_peer_wait.  That wait has synchronised the copy
 * stream, which waited for an event recorded on the default stream after
 * this round's pack (every rank packs and sends in every round of a
 * peer) -- so the unpack of the round before, queued earlier on the same
 * stream, has run: the release says "the region of the round before is
 * read", and the next round, which writes that region, waits for it.  So
 * no round needs a gpu_sync of its own (the transpose had one: the host
 * waited for the unpack before it could queue the t lines).
 *
 * Host-device synchronisations in one Landau CG iteration on a slab (SU(3),
 * ad = 8; peer path; each blocking cudaMemcpy, gpu_sync or event wait
 * counts one; the driver's gradient, precondition, direction, curvature,
 * step):
 *   before: gradient 1 (sums); precondition 2 x (peer wait + gpu_sync
 *     before the release) + 1 (sums) = 5; direction 2 (set, beta) + 1 = 3;
 *     curvature 8 + 8 (s's slice per component, down and up) + 1 = 17;
 *     step 1 (alpha) + 2 (G's slice) + 2 (U_t's slice) = 5: 31 in all.
 *     (The host path, LAT_GPU_HALO=host: also 31, a download and an
 *     upload per transpose in place of the wait and the gpu_sync.)
 *   after: gradient 1; precondition 2 (peer waits) + 1 = 3; direction 3;
 *     curvature 1 (peer wait) + 1 = 2; step 1 + 1 + 1 (peer waits) = 3:
 *     12 in all.  The host path: 17 (s's slice packed on the device: one
 *     download and one upload, where there were 8 of each).
 *   The 12 left are each needed: a peer round's wait (the data must have
 *     landed before the unpack runs), the sums' downloads (the driver
 *     decides on them), the uploads of set, beta and alpha (from the
 *     host; set and beta could share one upload, the GPU is idle there).
 * The rank synchronisations are as many as before: 4 comm_sums (the sums
 * the driver needs on every rank), 2 transposes and 3 halo rounds (on the
 * peer path each a one-byte "arrived" handshake with the neighbours and
 * the release's one-byte "free", which the next round waits for; on the
 * host path the messages themselves). */

/* the transpose's pieces: entry i = (c * nt + t) * nk + k of a packed
 * message is buf[c * cnt + base + t * tstride + k]; to_packed: buffer to
 * message, else back */
__global__ void k_move(fgeo g, fcx *buf, fcx *msg, long long base, long long tstride, int nt, long long nk, int to_packed)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)g.ncomp * nt * nk) return;
    long long k = i % nk, t = i / nk % nt, c = i / nk / nt;
    size_t b = (size_t)(c * g.cnt + base + t * tstride + k);
    if (to_packed) msg[i] = buf[b];
    else buf[b] = msg[i];
}

/* the stored reals of U_t on local slice `slice`, site by site (message
 * entry j * ncomp + c: site j of the slice, real c), to or from msg */
__global__ void k_tlinks(fgeo g, store_t *links, int ncomp, int vec, int slice, store_t *msg, int to_msg)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.V3 * ncomp) return;
    int j = i / ncomp, c = i % ncomp, x[4], h;
    int p = site_coords(g, slice * g.V3 + j, x, &h);
    size_t a = gpu_index((int64_t)g.k.nblk, ncomp, vec, 4 * p + 3, c, h);
    if (to_msg) msg[i] = links[a];
    else links[a] = msg[i];
}

/* `ncomp` component arrays of `stride` reals: the `n` reals from offset
 * `from` of each to or from a packed message (component a at a n) */
__global__ void k_slice(lat_real *field, lat_real *msg, int ncomp, long long n, long long stride, long long from,
                        int to_msg)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ncomp * n) return;
    size_t f = (size_t)(i / n * stride + from + i % n);
    if (to_msg) msg[i] = field[f];
    else field[f] = msg[i];
}

/* bytes rounded up to a multiple of 256 (cudaMalloc's alignment) */
static size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

/* a fresh allocation [send | receive A | receive B] of `bytes` each and
 * its peer, one part to rank + dir; NULL when the ranks cannot map each
 * other's memory or LAT_GPU_HALO=host (the host path then stages through
 * the same allocation: send and receive A) */
static struct gpu_peer *halo_peer_open(const struct fa_gpu_state *st, void **dev, size_t bytes, int dir)
{
    *dev = gpu_alloc(3 * bytes, "a halo slice's messages");
    return gpu_peer_open(st->dom, *dev, &dir, 1);
}

/* a slab's message buffers: the transpose's pieces (device: send, then
 * receive regions A and B, one allocation that the peer maps), the halo
 * slices' (device, one allocation per direction), pinned host staging for
 * both, and the peers (Landau only: Coulomb has no transpose
 * and no halo): the transpose's, and one per halo direction on an
 * allocation of its own (a buffer is mapped once per neighbour) */
static void slab_buffers_open(struct fa_gpu_state *st)
{
    size_t xb = (size_t)st->ncomp * st->count * sizeof(fcx), hb = xb, v3 = (size_t)st->V3;
    size_t halo[3] = {v3 * st->f.ncomp * sizeof(store_t), v3 * st->ad * sizeof(lat_real),
                      v3 * st->nc * st->nc * sizeof(lat_complex)};
    for (int i = 0; i < 3; i++)
        if (halo[i] > hb) hb = halo[i];
    xb = aligned(xb); /* the regions after the first stay aligned for fcx */
    st->xbytes = xb;
    st->xsend = gpu_alloc(3 * xb, "the transpose's messages");
    st->xrecv = (char *)st->xsend + xb;
    /* part i of a transpose goes to rank + i (part 0: this rank's own piece) */
    int dirs[GPU_PEER_MAXPARTS];
    for (int i = 0; i < st->R && i < GPU_PEER_MAXPARTS; i++) dirs[i] = i;
    if (st->nd == 4 && st->R <= GPU_PEER_MAXPARTS) st->peer = gpu_peer_open(st->dom, st->xsend, dirs, st->R);
    if (st->nd == 4) { /* Landau's halo slices (Coulomb reads none) */
        st->hup_bytes = aligned(halo[0]);
        st->hdown_bytes = aligned(halo[1] > halo[2] ? halo[1] : halo[2]);
        st->peer_up = halo_peer_open(st, &st->hup, st->hup_bytes, +1);
        st->peer_down = halo_peer_open(st, &st->hdown, st->hdown_bytes, -1);
    }
    st->hsend = fa_host_alloc(hb);
    st->hrecv = fa_host_alloc(hb);
}

static void slab_buffers_close(struct fa_gpu_state *st)
{
    gpu_peer_close(st->peer); /* collective: before any rank frees its buffer */
    gpu_peer_close(st->peer_up);
    gpu_peer_close(st->peer_down);
    gpu_free(st->xsend);
    if (st->hup) gpu_free(st->hup); /* Landau only */
    if (st->hdown) gpu_free(st->hdown);
    fa_host_free(st->hsend);
    fa_host_free(st->hrecv);
}

/* the spatial momenta [begin, end) whose t-lines rank q transforms (fft/cpu.c's split) */
static int64_t chunk_begin(const struct fa_gpu_state *st, int q) { return (int64_t)q * st->V3 / st->R; }

enum { TAG_TRANSPOSE = 0x5f0, TAG_HALO = 0x5f1 };

/* the host buffer hsend (bytes) to the rank `up` (1) or below (0) of this
 * one, the opposite neighbour's message into hrecv */
static void halo_swap(struct fa_gpu_state *st, size_t bytes, int up)
{
    int to = (st->rank + (up ? 1 : st->R - 1)) % st->R, from = (st->rank + (up ? st->R - 1 : 1)) % st->R;
    struct comm_reqs rq;
    rq.n = 0;
    comm_irecv(st->hrecv, bytes, from, TAG_HALO, &rq);
    comm_isend(st->hsend, bytes, to, TAG_HALO, &rq);
    comm_waitall(&rq);
}

/* [c][t_own][V3] <-> [c][kt][chunk] between the ranks (fft/cpu.c's
 * transpose: rank r sends q, per component and owned slice, q's chunk),
 * packed on the device, exchanged device to device (into receive region
 * A or B by the round's parity) or through pinned host memory (region
 * A).  Rank q's received pieces lie in sender order: sender p's at
 * ncomp lt (to_lines ? p c_q : chunk_begin(p)), c_q = q's chunk (the
 * slabs are equal: lt is every rank's). */
static void transpose(struct fa_gpu_state *st, int to_lines)
{
    fgeo g = geo_of(st);
    const int R = st->R, me = st->rank, lt = st->lt;
    const int64_t mc = st->k3e - st->k3b;
    fcx *buf = (fcx *)st->buf, *snd = (fcx *)st->xsend;
    fcx *rcv = (fcx *)((char *)st->xrecv + (st->peer && (st->xround & 1u) ? st->xbytes : 0));
    size_t *off = (size_t *)malloc(sizeof(size_t) * 2 * (size_t)(R + 1)), *roff = off + R + 1;
    if (!off) lat_die(1, "GPU", "out of host memory");
    off[0] = roff[0] = 0;
    for (int q = 0; q < R; q++) {
        int64_t cq = chunk_begin(st, q + 1) - chunk_begin(st, q);
        off[q + 1] = off[q] + (size_t)st->ncomp * lt * (size_t)(to_lines ? cq : mc);
        roff[q + 1] = roff[q] + (size_t)st->ncomp * lt * (size_t)(to_lines ? mc : cq);
    }
    for (int q = 0; q < R; q++) {
        int64_t cq = chunk_begin(st, q + 1) - chunk_begin(st, q), nk = to_lines ? cq : mc;
        if (nk == 0) continue;
        long long base = to_lines ? chunk_begin(st, q) : (long long)q * lt * mc, ts = to_lines ? st->V3 : mc;
        fa_launch(dim3(nblocks((long long)st->ncomp * lt * nk, 256)), 256, k_move, g, buf, snd + off[q], base, ts, lt,
                  (long long)nk, 1);
    }
    gpu_check("transpose pack launch");
    const size_t cs = sizeof(fcx);
    if (st->peer) {
        const size_t recv_base = (size_t)((char *)rcv - (char *)snd);
        for (int i = 0; i < R; i++) {
            const int q = (me + i) % R;
            const int64_t cq = chunk_begin(st, q + 1) - chunk_begin(st, q);
            const size_t at = (size_t)st->ncomp * lt * (size_t)(to_lines ? (int64_t)me * cq : chunk_begin(st, me));
            gpu_peer_send(st->peer, i, cs * off[q], recv_base + cs * at, cs * (off[q + 1] - off[q]));
        }
        gpu_peer_wait(st->peer);
        gpu_peer_release(st->peer); /* the region of the round before (the header says why it is read) */
        st->xround++;
    } else {
        fcx *hs = (fcx *)st->hsend, *hr = (fcx *)st->hrecv;
        gpu_download(hs, snd, cs * off[R]);
        memcpy(hr + roff[me], hs + off[me], cs * (off[me + 1] - off[me]));
        for (int b = 0; b < R; b += COMM_MAXREQ / 2) {
            struct comm_reqs rq;
            rq.n = 0;
            for (int q = b; q < R && q < b + COMM_MAXREQ / 2; q++) {
                if (q == me) continue;
                comm_irecv(hr + roff[q], cs * (roff[q + 1] - roff[q]), q, TAG_TRANSPOSE, &rq);
                comm_isend(hs + off[q], cs * (off[q + 1] - off[q]), q, TAG_TRANSPOSE, &rq);
            }
            comm_waitall(&rq);
        }
        gpu_upload(rcv, hr, cs * roff[R]);
    }
    for (int q = 0; q < R; q++) {
        int64_t cq = chunk_begin(st, q + 1) - chunk_begin(st, q), nk = to_lines ? mc : cq;
        if (nk == 0) continue;
        long long base = to_lines ? (long long)q * lt * mc : chunk_begin(st, q), ts = to_lines ? mc : st->V3;
        fa_launch(dim3(nblocks((long long)st->ncomp * lt * nk, 256)), 256, k_move, g, buf, rcv + roff[q], base, ts, lt,
                  (long long)nk, 0);
    }
    gpu_check("transpose unpack launch");
    free(off);
}

/* 3-D transforms of every (component, owned slice) */
static void slices(struct fa_gpu_state *st, int dir)
{
    fcx *b = (fcx *)st->buf;
    if (st->plan3_whole) fft_check(FT::exec(st->plan3, b, dir), "3-D transform");
    else
        for (int c = 0; c < st->ncomp; c++) fft_check(FT::exec(st->plan3, b + (size_t)c * st->count, dir), "3-D transform");
}

/* Landau: every (component, spatial momentum of this rank) along t */
static void lines(struct fa_gpu_state *st, int dir)
{
    fcx *b = (fcx *)st->buf;
    if (st->k3e == st->k3b) return;
    for (int c = 0; c < st->ncomp; c++) fft_check(FT::exec(st->plan1, b + (size_t)c * st->count, dir), "t transform");
}

/* fft/fft.h's order: forward 3-D, (transpose), t; backward t, (transpose), 3-D */
static void transform(struct fa_gpu_state *st, int dir)
{
    if (dir == CUFFT_FORWARD) {
        slices(st, dir);
        if (st->nd < 4) return;
        if (st->dom) transpose(st, 1);
        lines(st, dir);
    } else {
        if (st->nd == 4) {
            lines(st, dir);
            if (st->dom) transpose(st, 0);
        }
        slices(st, dir);
    }
}

/* one halo message of `bytes`, packed at the start of buf ([send |
 * receive A | receive B], regions of `region` bytes), to the rank above
 * (up) or below: device to device through peer (the receive regions
 * alternating by *round, released right after the wait: the header says
 * why that is safe), else staged through the host into region A; answers
 * the received message's place in buf */
static char *halo_message(struct fa_gpu_state *st, struct gpu_peer *peer, char *buf, size_t region, unsigned *round,
                          size_t bytes, int up)
{
    if (peer) {
        const size_t at = region * (1 + (*round & 1u));
        gpu_peer_send(peer, 0, 0, at, bytes);
        gpu_peer_wait(peer);
        gpu_peer_release(peer);
        ++*round;
        return buf + at;
    }
    gpu_download(st->hsend, buf, bytes);
    halo_swap(st, bytes, up);
    gpu_upload(buf + region, st->hrecv, bytes);
    return buf + region;
}

/* Landau on a slab: U_t of the last owned slice to the rank above (its
 * halo slice 0: the backward neighbours of its first slice) */
static void refresh_tlinks(struct fa_gpu_state *st)
{
    if (!st->dom || st->nd < 4) return;
    fgeo g = geo_of(st);
    const struct gpu_field *f = &st->f;
    size_t bytes = (size_t)st->V3 * f->ncomp * sizeof(store_t);
    store_t *l = (store_t *)f->links, *m = (store_t *)st->hup;
    unsigned nb = nblocks((long long)st->V3 * f->ncomp, 256);
    fa_launch(dim3(nb), 256, k_tlinks, g, l, f->ncomp, f->vec, st->lt, m, 1);
    gpu_check("halo pack launch");
    m = (store_t *)halo_message(st, st->peer_up, (char *)st->hup, st->hup_bytes, &st->upround, bytes, 1);
    fa_launch(dim3(nb), 256, k_tlinks, g, l, f->ncomp, f->vec, 0, m, 0);
    gpu_check("halo unpack launch");
}

/* Landau on a slab: `ncomp` arrays of V items of `item` bytes (component
 * stride V): the first owned slice to the rank below (its halo slice lt+1:
 * the forward neighbours of its last slice) */
static void refresh_upper(struct fa_gpu_state *st, void *field, int ncomp, size_t item)
{
    if (!st->dom || st->nd < 4) return;
    /* packed on the device into one message (items are whole numbers of
     * lat_real: s 1, G 2 N^2), local slice 1 out, lt+1 in */
    const size_t sl = (size_t)st->V3 * item, bytes = sl * ncomp;
    const long long n = (long long)(sl / sizeof(lat_real)), stride = (long long)(st->V * item / sizeof(lat_real));
    const unsigned nb = nblocks((long long)ncomp * n, 256);
    lat_real *msg = (lat_real *)st->hdown;
    fa_launch(dim3(nb), 256, k_slice, (lat_real *)field, msg, ncomp, n, stride, n, 1);
    gpu_check("halo pack launch");
    msg = (lat_real *)halo_message(st, st->peer_down, (char *)st->hdown, st->hdown_bytes, &st->downround, bytes, 0);
    fa_launch(dim3(nb), 256, k_slice, (lat_real *)field, msg, ncomp, n, stride, (st->lt + 1) * n, 0);
    gpu_check("halo unpack launch");
}

