/* blas_bicg_checks.h -- the checks of BiCGstab's fused vector kernels
 * (struct solver_blas's cdot_norm2, caxpby_norm2_cdot, caxpby2;
 * kernels/solvers/blas_gpu_bicg.cuh), written once for the real GPU
 * (tests/gpu/test_gpu_blas.c) and the host emulation
 * (scripts/blas-emulation.cpp).  Header only, in the common subset of C and
 * C++; include after blas_fused_checks.h (bc_vec, bc_same, bf_bits_equal).
 *
 *   bb_bicg(gpu, cpu, nsites, site_reals, launches)
 *       every precision set BiCGstab uses (r, r0, p, v, t in the sloppy
 *       precision, x in its accumulator's: double, single, single for half):
 *       cdot_norm2 (t, s) and caxpby_norm2_cdot (t, r, r0) on one
 *       precision d, s, h; caxpby2 d->d, s->s, h->s (x += alpha p + omega
 *       s) and h->h (p = r + beta (p - omega v)); and three sets without a
 *       GPU kernel (mixed precisions: the unfused calls).  Per case: the GPU
 *       fused call gives exactly the bits of the unfused GPU calls it
 *       replaces (stored reals, padding, half norms, each sum's bits), the
 *       CPU fused call the CPU unfused bits, the GPU's vectors the CPU's
 *       bits (the elementwise contract), its sums within 1e-12 of the CPU's.
 *       caxpby_norm2_cdot with a = NaN: the unfused y's bits (NaN padding
 *       included, which no layout chunk holds), NaN sums.
 *   bb_bicg_solves(gpu, nsites, site_reals)
 *       whole BiCGstab solves (double, single, half sloppy; tol 1e-12) on
 *       the GPU table (its device loop, bicgstab_loop, where it takes the
 *       solve: a layout, one process), on a copy without the device loop,
 *       and on one without it and the three fused members: x, result and
 *       every history line bit for bit; with a layout the device loop must
 *       have taken the solve, more than once (it hands every reliable
 *       update to bicgstab.c and takes the iterations after it).
 *       (bb_bicg's) launches (NULL on the real GPU): a counter of kernel launches; then
 *       one launch per fused call where a kernel exists is checked too.
 * The tables may carry a reduction layout (the same on both).  Counts with
 * unit.h's CHECK and prints "<bf_tag>NS sites x SR reals: K of 12 BiCGstab
 * fused cases give the unfused bits". */
#ifndef LAT_TEST_BLAS_BICG_CHECKS_H
#define LAT_TEST_BLAS_BICG_CHECKS_H

enum { BB_CDOT_NORM2, BB_CAXPBY_NORM2_CDOT, BB_CAXPBY2, BB_NKERNELS };
static const char *bb_kname[BB_NKERNELS] = {"cdot_norm2", "caxpby_norm2_cdot", "caxpby2"};

/* kernel k fused (the table's member) or as the unfused calls; x1, x2 the
 * read operands (cdot_norm2: x, y; caxpby_norm2_cdot: x, z; caxpby2: x1,
 * x2), y the written one (caxpby_norm2_cdot, caxpby2); the sums into red */
static void bb_run(const struct solver_blas *b, int fused, int k, const solver_complex *s, const struct solver_vec *x1,
                   const struct solver_vec *x2, struct solver_vec *y, double *red)
{
    void *c = b->ctx;
    red[0] = red[1] = red[2] = 0;
    solver_complex z;
    if (k == BB_CDOT_NORM2) {
        if (fused) z = b->cdot_norm2(c, x1, x2, &red[2]);
        else red[2] = b->norm2(c, x1), z = b->cdot(c, x1, x2);
        red[0] = z.re, red[1] = z.im;
    } else if (k == BB_CAXPBY_NORM2_CDOT) {
        if (fused) red[2] = b->caxpby_norm2_cdot(c, s[0], x1, s[1], y, x2, &z);
        else {
            b->caxpby(c, s[0], x1, s[1], y);
            red[2] = b->norm2(c, y);
            z = b->cdot(c, x2, y);
        }
        red[0] = z.re, red[1] = z.im;
    } else {
        if (fused) b->caxpby2(c, s[0], x1, s[1], s[2], x2, s[3], y);
        else b->caxpby(c, s[0], x1, s[1], y), b->caxpby(c, s[2], x2, s[3], y);
    }
}

static int bb_cases, bb_cases_same;

/* one case: kernel k, the read operands of precision px, y of py; kernel:
 * 1 when the GPU has a fused kernel for the set (one launch) */
static void bb_case(const struct solver_blas *gpu, const struct solver_blas *cpu, int k, size_t ns, size_t sr,
                    enum solver_prec px, enum solver_prec py, int kernel, const unsigned long long *launches)
{
    double *h1 = (double *)calloc(ns * sr, sizeof(double)), *h2 = (double *)calloc(ns * sr, sizeof(double));
    double *hy = (double *)calloc(ns * sr, sizeof(double));
    bc_random(h1, ns, sr);
    bc_random(h2, ns, sr);
    bc_random(hy, ns, sr);
    for (size_t c = 0; c < sr; c++) h1[c] = 0, hy[sr + c] = 0; /* zero sites: half norm 0 */
    solver_complex s[4];
    for (int j = 0; j < 4; j++) s[j] = (solver_complex){bc_gauss(), j == 1 ? 0 : bc_gauss()}; /* BiCGstab's b = 1 has im 0 */
    if (k == BB_CAXPBY2) s[1] = (solver_complex){1, 0};                                   /* x += alpha p + omega s */
    struct solver_vec *x1[4], *x2[4], *y[4]; /* GPU fused, GPU unfused, CPU fused, CPU unfused */
    double red[4][3];
    unsigned long long l0 = 0, l1 = 0;
    for (int v = 0; v < 4; v++) {
        const struct solver_blas *b = v < 2 ? gpu : cpu;
        x1[v] = bc_vec(b, v < 2, h1, ns, sr, px);
        x2[v] = bc_vec(b, v < 2, h2, ns, sr, px);
        y[v] = bc_vec(b, v < 2, hy, ns, sr, py);
        if (v == 0 && launches) l0 = *launches;
        bb_run(b, v % 2 == 0, k, s, x1[v], x2[v], k == BB_CDOT_NORM2 ? NULL : y[v], red[v]);
        if (v == 0 && launches) l1 = *launches;
    }
    int gpu_same = 1, cpu_same = 1, gpu_cpu = 1, pad = 1;
    if (k != BB_CDOT_NORM2) {
        double d;
        gpu_same = bf_bits_equal(1, y[0], y[1]);
        cpu_same = bf_bits_equal(0, y[2], y[3]);
        gpu_cpu = bc_same(y[0], y[2], &d, &pad);
    }
    double rel = 0;
    for (int r = 0; r < 3; r++) {
        gpu_same &= bf_same_double(red[0][r], red[1][r]);
        cpu_same &= bf_same_double(red[2][r], red[3][r]);
    }
    if (k != BB_CAXPBY2) {
        const double sc = fabs(red[2][0]) + fabs(red[2][1]);
        rel = fmax(sc > 0 ? (fabs(red[0][0] - red[2][0]) + fabs(red[0][1] - red[2][1])) / sc : 0,
                   red[2][2] > 0 ? fabs(red[0][2] - red[2][2]) / red[2][2] : 0);
    }
    char prec[48];
    snprintf(prec, sizeof prec, "%s -> %s", bc_pname(px), bc_pname(py));
    CHECK(gpu_same, "%s%zu x %zu %s %s: GPU fused = GPU unfused bits (vector, padding, norms, sums): no (%.17g vs %.17g)",
          bf_tag, ns, sr, bb_kname[k], prec, red[0][2], red[1][2]);
    CHECK(cpu_same, "%s%zu x %zu %s %s: CPU fused = CPU unfused bits: no", bf_tag, ns, sr, bb_kname[k], prec);
    CHECK(gpu_cpu && pad, "%s%zu x %zu %s %s: GPU fused y has the CPU's bits %d, padding zero %d", bf_tag, ns, sr,
          bb_kname[k], prec, gpu_cpu, pad);
    CHECK(rel <= 1e-12, "%s%zu x %zu %s %s: GPU sums vs CPU rel %.3g", bf_tag, ns, sr, bb_kname[k], prec, rel);
    int one_launch = 1;
    if (launches && kernel) {
        one_launch = l1 - l0 == 1;
        CHECK(one_launch, "%s%zu x %zu %s %s: %llu launches, 1 expected", bf_tag, ns, sr, bb_kname[k], prec, l1 - l0);
    }
    bb_cases++;
    bb_cases_same += gpu_same && cpu_same && gpu_cpu && pad && rel <= 1e-12 && one_launch;
    if (bc_verbose)
        printf("  %zu x %zu %-18s %-6s: GPU fused = unfused %d, CPU %d, GPU = CPU %d, sums rel %.2g%s\n", ns, sr, bb_kname[k],
               prec, gpu_same, cpu_same, gpu_cpu, rel, kernel ? "" : " (no kernel: unfused)");
    for (int v = 0; v < 4; v++) {
        const struct solver_blas *b = v < 2 ? gpu : cpu;
        b->free(b->ctx, x1[v]), b->free(b->ctx, x2[v]), b->free(b->ctx, y[v]);
    }
    free(h1);
    free(h2);
    free(hy);
}

static void bb_bicg(const struct solver_blas *gpu, const struct solver_blas *cpu, size_t ns, size_t sr,
                    const unsigned long long *launches)
{
    CHECK(gpu->cdot_norm2 && gpu->caxpby_norm2_cdot && gpu->caxpby2, "the GPU table lacks BiCGstab's fused kernels");
    CHECK(cpu->cdot_norm2 && cpu->caxpby_norm2_cdot && cpu->caxpby2, "the CPU table lacks BiCGstab's fused kernels");
    if (!gpu->cdot_norm2 || !gpu->caxpby_norm2_cdot || !gpu->caxpby2 || !cpu->cdot_norm2 || !cpu->caxpby_norm2_cdot ||
        !cpu->caxpby2)
        return;
    bb_cases = bb_cases_same = 0;
    for (int p = 0; p < 3; p++) {
        const enum solver_prec pp = (enum solver_prec)p;
        bb_case(gpu, cpu, BB_CDOT_NORM2, ns, sr, pp, pp, 1, launches);
        bb_case(gpu, cpu, BB_CAXPBY_NORM2_CDOT, ns, sr, pp, pp, 1, launches);
        bb_case(gpu, cpu, BB_CAXPBY2, ns, sr, pp, pp == SOLVER_HALF ? SOLVER_SINGLE : pp, 1, launches); /* x */
    }
    bb_case(gpu, cpu, BB_CAXPBY2, ns, sr, SOLVER_HALF, SOLVER_HALF, 1, launches); /* p, half */
    /* sets without a GPU kernel: the unfused calls, the same bits */
    bb_case(gpu, cpu, BB_CAXPBY2, ns, sr, SOLVER_HALF, SOLVER_DOUBLE, 0, launches);
    bb_case(gpu, cpu, BB_CAXPBY_NORM2_CDOT, ns, sr, SOLVER_SINGLE, SOLVER_DOUBLE, 0, launches);
    /* a = NaN (a breakdown's omega): the unfused caxpby writes NaN into
     * every padding real and site too (NaN * 0), also those no layout chunk
     * holds; the fused y must have the same bits, its sums be NaN */
    int nan_same = 1;
    double *h = (double *)calloc(ns * sr, sizeof(double));
    solver_complex nan_ab[2] = {{NAN, 0}, {1, 0}};
    bc_random(h, ns, sr);
    for (int p = 0; p < 3; p++) {
        struct solver_vec *v[6];
        for (int j = 0; j < 6; j++) v[j] = bc_vec(gpu, 1, h, ns, sr, (enum solver_prec)p); /* x, y, z fused; unfused */
        double red[2][3];
        bb_run(gpu, 1, BB_CAXPBY_NORM2_CDOT, nan_ab, v[0], v[2], v[1], red[0]);
        bb_run(gpu, 0, BB_CAXPBY_NORM2_CDOT, nan_ab, v[3], v[5], v[4], red[1]);
        nan_same &= bf_bits_equal(1, v[1], v[4]) && isnan(red[0][2]) && isnan(red[1][2]) && isnan(red[0][0]);
        for (int j = 0; j < 6; j++) gpu->free(gpu->ctx, v[j]);
    }
    free(h);
    CHECK(nan_same, "%s%zu x %zu caxpby_norm2_cdot with a = NaN: fused y differs from the unfused (padding?) or a sum is "
          "not NaN", bf_tag, ns, sr);
    printf("%s%zu sites x %zu reals: %d of %d BiCGstab fused cases (cdot_norm2, caxpby_norm2_cdot, caxpby2 in d, s, h; "
           "caxpby2 h->s, h->h; 2 without a kernel) give the unfused bits\n",
           bf_tag, ns, sr, bb_cases_same, bb_cases);
}

/* whole BiCGstab solves on the GPU table with and without the three fused
 * members (a copy of the table with them NULL: bicgstab.c's unfused
 * calls): blas_blockop.h's site-local non-Hermitian operator on the device
 * layout, tol 1e-12, double, single and half sloppy: the same x (stored
 * bits), result and history (every line's bits) */
static void bb_hist(void *ctx, const struct solver_step *st)
{
    uint64_t *h = (uint64_t *)ctx, w[3] = {(uint64_t)st->iteration, (uint64_t)st->reliable, 0};
    memcpy(&w[2], &st->residual, sizeof w[2]);
    for (int k = 0; k < 3; k++) *h = (*h ^ w[k]) * 0x100000001b3ull;
}
static int (*bb_loop_real)(void *, struct solver_bicg_loop *);
static int bb_loop_runs; /* the device loop's calls that took the iterations */
static int bb_loop_counted(void *ctx, struct solver_bicg_loop *L)
{
    const int took = bb_loop_real(ctx, L);
    bb_loop_runs += took;
    return took;
}
static void bb_bicg_solves(const struct solver_blas *gpu, size_t ns, size_t sr, int layout)
{
    const size_t n = ns * sr, m = sr / 2, stored = gpu_spinor_storage((int64_t)ns, (int)sr);
    double *mg = (double *)malloc(2 * ns * m * m * sizeof(double)), *bh = (double *)malloc(n * sizeof(double));
    float *mgf = (float *)malloc(2 * ns * m * m * sizeof(float));
    double *xf = (double *)calloc(stored + 1, sizeof(double)), *xu = (double *)calloc(stored + 1, sizeof(double));
    double *xl = (double *)calloc(stored + 1, sizeof(double));
    bc_blocks(mg, mgf, ns, m, 0);
    for (size_t k = 0; k < n; k++) bh[k] = bc_gauss();
    struct solver_blas looped = *gpu, fused = *gpu, plain = *gpu; /* device loop; host loop, fused kernels; unfused */
    bb_loop_real = gpu->bicgstab_loop;
    looped.bicgstab_loop = gpu->bicgstab_loop ? bb_loop_counted : NULL;
    fused.bicgstab_loop = plain.bicgstab_loop = NULL;
    plain.cdot_norm2 = NULL, plain.caxpby_norm2_cdot = NULL, plain.caxpby2 = NULL;
    const struct solver_blas *table[3] = {&looped, &fused, &plain};
    struct solver_vec *bg = gpu->alloc(gpu->ctx, n, sr, SOLVER_DOUBLE), *xg = gpu->alloc(gpu->ctx, n, sr, SOLVER_DOUBLE);
    gpu_spinor_upload((double *)bg->data, bh, (int64_t)ns, (int)sr);
    /* cases 0-2: sloppy double, single, half; case 3: A = 0 in half (<r0, v> = 0: a breakdown in iteration 1) */
    for (int cs = 0; cs < 4; cs++) {
        const int p = cs < 3 ? cs : SOLVER_HALF, zero_op = cs == 3;
        const char *what = zero_op ? "half, A = 0" : solver_prec_name((enum solver_prec)p);
        if (zero_op) memset(mg, 0, 2 * ns * m * m * sizeof(double)), memset(mgf, 0, 2 * ns * m * m * sizeof(float));
        struct bc_op og;
        struct solver_op op = bc_make_op(&og, 1, gpu, ns, sr, mg, mgf);
        uint64_t hist[3] = {0xcbf29ce484222325ull, 0xcbf29ce484222325ull, 0xcbf29ce484222325ull};
        struct solver_result r[3];
        bb_loop_runs = 0;
        for (int v = 0; v < 3; v++) {
            struct solver_params par;
            memset(&par, 0, sizeof par);
            par.tol = 1e-12, par.max_iter = 3000, par.sloppy = (enum solver_prec)p, par.history = bb_hist;
            par.history_ctx = &hist[v];
            gpu->zero(gpu->ctx, xg);
            solver_bicgstab(&op, table[v], (const double *)bg->data, (double *)xg->data, &par, &r[v]);
            gpu_download(v == 0 ? xf : v == 1 ? xl : xu, xg->data, stored * sizeof(double));
        }
        bc_free_op(&og);
        const int same_loop = !memcmp(xf, xl, stored * sizeof(double)) && !memcmp(&r[0], &r[1], sizeof r[0]) && hist[0] == hist[1];
        const int same = same_loop && !memcmp(xl, xu, stored * sizeof(double)) && !memcmp(&r[1], &r[2], sizeof r[0]) &&
                         hist[1] == hist[2];
        CHECK(!layout || bb_loop_runs >= (p == SOLVER_DOUBLE || zero_op ? 1 : 2),
              "%s%zu x %zu bicgstab %s: the device loop took %d parts of the solve (a layout, one process: every part "
              "between reliable updates expected)", bf_tag, ns, sr, what, bb_loop_runs);
        CHECK(same_loop, "%s%zu x %zu bicgstab %s: the device loop and the host loop give different x, result or history",
              bf_tag, ns, sr, what);
        CHECK(same, "%s%zu x %zu bicgstab %s: the three loops (device, host fused, host unfused) differ in x, result or "
              "history", bf_tag, ns, sr, what);
        if (zero_op) {
            CHECK(r[0].status == SOLVER_BREAKDOWN && r[0].iterations == 1, "%s%zu x %zu bicgstab %s: %s after %d iterations, "
                  "a breakdown in the first expected", bf_tag, ns, sr, what, solver_status_name(r[0].status), r[0].iterations);
        } else {
            CHECK(r[0].status == SOLVER_CONVERGED && r[0].residual <= 1e-12, "%s%zu x %zu bicgstab %s (fused): %s, residual %g",
                  bf_tag, ns, sr, what, solver_status_name(r[0].status), r[0].residual);
            CHECK(p == SOLVER_DOUBLE || r[0].reliable_updates > 3, "%s%zu x %zu bicgstab %s: only %d reliable updates", bf_tag,
                  ns, sr, what, r[0].reliable_updates);
        }
        printf("%s%zu sites x %zu reals: bicgstab double-%s on the GPU kernels, %s after %d iterations, %d reliable updates, "
               "%d parts in the device loop: x, result and history the same with the host loop and without the fused "
               "kernels: %s\n", bf_tag, ns, sr, what, solver_status_name(r[0].status), r[0].iterations,
               r[0].reliable_updates, bb_loop_runs, same ? "yes" : "NO");
    }
    gpu->free(gpu->ctx, bg);
    gpu->free(gpu->ctx, xg);
    free(mg), free(mgf), free(bh), free(xf), free(xu), free(xl);
}

#endif
