/* blas_fused_checks.h -- the checks of the fused vector kernels of the
 * solvers (struct solver_blas's multi_axpy, multi_caxpby, axpy_norm2,
 * axpy_cdot, multi_axpy_caxpby; kernels/solvers/blas_gpu_fused.cuh),
 * written once for the real
 * GPU (tests/gpu/test_gpu_blas.c) and the host emulation
 * (scripts/blas-emulation.cpp).  Header only, in the common subset of C and
 * C++; include after blas_checks.h (its random vectors, bc_vec, bc_same).
 *
 *   bf_fused(gpu, cpu, nsites, site_reals, nvec)
 *       in every pair of precisions (double, single, half) of x and y:
 *       each fused kernel on the GPU gives exactly the bits of the unfused
 *       GPU sequence it replaces -- the stored reals, padding and half norms
 *       of every y, and the reduction's value (axpy_norm2, axpy_cdot) --
 *       and its y's have the CPU fused kernel's bits (the elementwise
 *       contract); on the CPU fused = unfused bit for bit as well.
 *       multi_axpy and multi_caxpby take nvec vectors (more than the
 *       GPU's BL_MULTI_MAX: several launches); a multi_axpy over vectors of
 *       mixed precisions (the one-by-one path) too.  multi_axpy_caxpby
 *       (y_j += a_j p_j, p_j = b_j r + c_j p_j: the x's are the p's, r one
 *       more vector of their precision) against axpy then caxpby, both its
 *       p's and y's compared; the p's of mixed precisions too (GPU: the
 *       unfused pair).  One launch per call where it has a kernel (r and
 *       the p's of one precision, the y's double; BL_MULTI_MAX vectors a
 *       launch) is the emulation's check (scripts/blas-emulation.cpp).
 * The tables may carry a reduction layout (the same on both: then the
 * reductions are compared with the CPU's on that layout).  Counts with
 * unit.h's CHECK and prints "<bf_tag>NS sites x SR reals: K of 47 fused
 * cases ... give the unfused bits". */
#ifndef LAT_TEST_BLAS_FUSED_CHECKS_H
#define LAT_TEST_BLAS_FUSED_CHECKS_H

/* 1 when two vectors of one backend hold the same stored bits (padding
 * and half norms included) */
static int bf_bits_equal(int gpu, const struct solver_vec *a, const struct solver_vec *b)
{
    size_t ns = a->n / a->site_reals, es = bc_elem(a->prec);
    size_t stored = gpu ? gpu_spinor_storage((int64_t)ns, (int)a->site_reals) : a->n;
    size_t nnorm = gpu ? (size_t)gpu_spinor_nblk((int64_t)ns) * GPU_SPINOR_LANES : ns;
    unsigned char *ra = (unsigned char *)calloc(stored * es + 1, 1), *rb = (unsigned char *)calloc(stored * es + 1, 1);
    float *na = (float *)calloc(nnorm + 1, sizeof(float)), *nb = (float *)calloc(nnorm + 1, sizeof(float));
    if (gpu) {
        gpu_download(ra, a->data, stored * es);
        gpu_download(rb, b->data, stored * es);
        if (a->prec == SOLVER_HALF) gpu_download(na, a->norm, nnorm * sizeof(float)), gpu_download(nb, b->norm, nnorm * sizeof(float));
    } else {
        memcpy(ra, a->data, stored * es);
        memcpy(rb, b->data, stored * es);
        if (a->prec == SOLVER_HALF) memcpy(na, a->norm, nnorm * sizeof(float)), memcpy(nb, b->norm, nnorm * sizeof(float));
    }
    int same = !memcmp(ra, rb, stored * es) && !memcmp(na, nb, nnorm * sizeof(float));
    free(ra);
    free(rb);
    free(na);
    free(nb);
    return same;
}

static int bf_same_double(double a, double b) { return !memcmp(&a, &b, sizeof a); }

enum { BF_MULTI_AXPY, BF_MULTI_CAXPBY, BF_AXPY_NORM2, BF_AXPY_CDOT, BF_MULTI_AXPY_CAXPBY, BF_NKERNELS };
static const char *bf_kname[BF_NKERNELS] = {"multi_axpy", "multi_caxpby", "axpy_norm2", "axpy_cdot", "multi_axpy_caxpby"};

/* kernel k on (x[j], y[j]) j < n, fused (the table's member) or as the
 * unfused calls; the reductions' results into red[0..1]; r: the one x of
 * multi_axpy_caxpby (its p's are the x's) */
static void bf_run(const struct solver_blas *b, int fused, int k, int n, const double *a, const solver_complex *ca,
                   const solver_complex *cb, struct solver_vec *const *x, struct solver_vec *const *y, double *red,
                   const struct solver_vec *r)
{
    void *c = b->ctx;
    red[0] = red[1] = 0;
    if (k == BF_MULTI_AXPY_CAXPBY) {
        if (fused) b->multi_axpy_caxpby(c, n, a, r, ca, cb, x, y);
        else {
            for (int j = 0; j < n; j++) b->axpy(c, a[j], x[j], y[j]);
            for (int j = 0; j < n; j++) b->caxpby(c, ca[j], r, cb[j], x[j]);
        }
    } else if (k == BF_MULTI_AXPY) {
        if (fused) b->multi_axpy(c, n, a, (const struct solver_vec *const *)x, y);
        else
            for (int j = 0; j < n; j++) b->axpy(c, a[j], x[j], y[j]);
    } else if (k == BF_MULTI_CAXPBY) {
        if (fused) b->multi_caxpby(c, n, ca, x[0], cb, y);
        else
            for (int j = 0; j < n; j++) b->caxpby(c, ca[j], x[0], cb[j], y[j]);
    } else if (k == BF_AXPY_NORM2) {
        if (fused) red[0] = b->axpy_norm2(c, a[0], x[0], y[0]);
        else b->axpy(c, a[0], x[0], y[0]), red[0] = b->norm2(c, y[0]);
    } else {
        solver_complex z;
        if (fused) z = b->axpy_cdot(c, a[0], x[0], y[0]);
        else b->axpy(c, a[0], x[0], y[0]), z = b->cdot(c, x[0], y[0]);
        red[0] = z.re, red[1] = z.im;
    }
}

/* nvec vectors x (precision px[j]) and y (py) from host reals, on the
 * backend b */
static void bf_make(const struct solver_blas *b, int gpu, double *const *hx, double *const *hy, int nvec, size_t ns,
                    size_t sr, const enum solver_prec *px, enum solver_prec py, struct solver_vec **x, struct solver_vec **y)
{
    for (int j = 0; j < nvec; j++) {
        x[j] = bc_vec(b, gpu, hx[j], ns, sr, px[j]);
        y[j] = bc_vec(b, gpu, hy[j], ns, sr, py);
    }
}
static void bf_drop(const struct solver_blas *b, int nvec, struct solver_vec **x, struct solver_vec **y)
{
    for (int j = 0; j < nvec; j++) b->free(b->ctx, x[j]), b->free(b->ctx, y[j]);
}

/* one kernel, one precision setting: GPU fused vs GPU unfused vs CPU fused
 * vs CPU unfused */
static int bf_cases, bf_cases_same; /* of one bf_fused call: cases, cases with every bit check passed */
static const char *bf_tag = "";     /* put before bf_fused's summary line (e.g. the tables' reduction layout) */

static void bf_case(const struct solver_blas *gpu, const struct solver_blas *cpu, int k, int nvec, size_t ns, size_t sr,
                    const enum solver_prec *px, enum solver_prec py, double *const *hx, double *const *hy, const double *hr)
{
    const int xp = k == BF_MULTI_AXPY_CAXPBY; /* the x's (its p's) are written too */
    int n = k == BF_AXPY_NORM2 || k == BF_AXPY_CDOT ? 1 : nvec;
    double *a = (double *)calloc((size_t)n, sizeof *a);
    solver_complex *ca = (solver_complex *)calloc((size_t)n, sizeof *ca), *cb = (solver_complex *)calloc((size_t)n, sizeof *cb);
    struct solver_vec **x[4], **y[4]; /* GPU fused, GPU unfused, CPU fused, CPU unfused */
    for (int j = 0; j < n; j++) {
        a[j] = (j % 3 == 2 ? -1 : 1) * pow(10, 2 * bc_uniform() - 1); /* of both signs and sizes */
        ca[j] = (solver_complex){bc_gauss(), j % 2 ? 0 : bc_gauss()}; /* the multi-shift's imaginary zeros too */
        cb[j] = (solver_complex){bc_gauss(), j % 2 ? 0 : bc_gauss()};
    }
    double red[4][2];
    struct solver_vec *r[4] = {NULL, NULL, NULL, NULL};
    for (int v = 0; v < 4; v++) {
        const struct solver_blas *b = v < 2 ? gpu : cpu;
        x[v] = (struct solver_vec **)calloc((size_t)n, sizeof **x);
        y[v] = (struct solver_vec **)calloc((size_t)n, sizeof **y);
        bf_make(b, v < 2, hx, hy, n, ns, sr, px, py, x[v], y[v]);
        if (xp) r[v] = bc_vec(b, v < 2, hr, ns, sr, px[0]);
        bf_run(b, v % 2 == 0, k, n, a, ca, cb, x[v], y[v], red[v], r[v]);
    }
    int gpu_same = 1, cpu_same = 1, gpu_cpu = 1, pad = 1;
    for (int j = 0; j < n; j++) {
        int p;
        double d;
        gpu_same &= bf_bits_equal(1, y[0][j], y[1][j]);
        cpu_same &= bf_bits_equal(0, y[2][j], y[3][j]);
        gpu_cpu &= bc_same(y[0][j], y[2][j], &d, &p);
        pad &= p;
        if (xp) { /* the p's as well */
            gpu_same &= bf_bits_equal(1, x[0][j], x[1][j]);
            cpu_same &= bf_bits_equal(0, x[2][j], x[3][j]);
            gpu_cpu &= bc_same(x[0][j], x[2][j], &d, &p);
            pad &= p;
        }
    }
    int red_gpu = bf_same_double(red[0][0], red[1][0]) && bf_same_double(red[0][1], red[1][1]);
    int red_cpu = bf_same_double(red[2][0], red[3][0]) && bf_same_double(red[2][1], red[3][1]);
    double scale = fabs(red[2][0]) + fabs(red[2][1]);
    double rel = scale > 0 ? (fabs(red[0][0] - red[2][0]) + fabs(red[0][1] - red[2][1])) / scale : 0;
    char prec[80];
    snprintf(prec, sizeof prec, "%s%s x -> %s", bc_pname(px[0]), n > 1 && px[n - 1] != px[0] ? "(mixed)" : "", bc_pname(py));
    CHECK(gpu_same && red_gpu, "%zu x %zu %s %s (%d vectors): GPU fused = GPU unfused bits: vectors %d, reduction %d (%.17g vs %.17g)",
          ns, sr, bf_kname[k], prec, n, gpu_same, red_gpu, red[0][0], red[1][0]);
    CHECK(cpu_same && red_cpu, "%zu x %zu %s %s: CPU fused = CPU unfused bits: vectors %d, reduction %d", ns, sr, bf_kname[k],
          prec, cpu_same, red_cpu);
    CHECK(gpu_cpu && pad, "%zu x %zu %s %s: GPU fused vectors have the CPU's bits %d, padding zero %d", ns, sr, bf_kname[k],
          prec, gpu_cpu, pad);
    if (k == BF_AXPY_NORM2 || k == BF_AXPY_CDOT)
        CHECK(rel <= 1e-12, "%zu x %zu %s %s: GPU reduction %.17g vs CPU %.17g (rel %.3g)", ns, sr, bf_kname[k], prec,
              red[0][0], red[2][0], rel);
    bf_cases++;
    bf_cases_same += gpu_same && red_gpu && cpu_same && red_cpu && gpu_cpu && pad;
    if (bc_verbose) printf("  %zu x %zu %-12s %-10s n %2d: GPU fused = unfused %d, CPU %d, GPU = CPU %d\n", ns, sr, bf_kname[k],
                           prec, n, gpu_same && red_gpu, cpu_same && red_cpu, gpu_cpu);
    for (int v = 0; v < 4; v++) {
        bf_drop(v < 2 ? gpu : cpu, n, x[v], y[v]);
        if (r[v]) (v < 2 ? gpu : cpu)->free((v < 2 ? gpu : cpu)->ctx, r[v]);
        free(x[v]);
        free(y[v]);
    }
    free(a);
    free(ca);
    free(cb);
}

static void bf_fused(const struct solver_blas *gpu, const struct solver_blas *cpu, size_t ns, size_t sr, int nvec)
{
    CHECK(gpu->multi_axpy && gpu->multi_caxpby && gpu->axpy_norm2 && gpu->axpy_cdot && gpu->multi_axpy_caxpby,
          "the GPU table lacks a fused kernel");
    CHECK(cpu->multi_axpy && cpu->multi_caxpby && cpu->axpy_norm2 && cpu->axpy_cdot && cpu->multi_axpy_caxpby,
          "the CPU table lacks a fused kernel");
    if (!gpu->multi_axpy || !gpu->multi_caxpby || !gpu->axpy_norm2 || !gpu->axpy_cdot || !gpu->multi_axpy_caxpby ||
        !cpu->multi_axpy || !cpu->multi_caxpby || !cpu->axpy_norm2 || !cpu->axpy_cdot || !cpu->multi_axpy_caxpby)
        return;
    double **hx = (double **)calloc((size_t)nvec, sizeof *hx), **hy = (double **)calloc((size_t)nvec, sizeof *hy);
    double *hr = (double *)calloc(ns * sr, sizeof(double)); /* multi_axpy_caxpby's r */
    bc_random(hr, ns, sr);
    enum solver_prec *px = (enum solver_prec *)calloc((size_t)nvec, sizeof *px);
    for (int j = 0; j < nvec; j++) {
        hx[j] = (double *)calloc(ns * sr, sizeof(double));
        hy[j] = (double *)calloc(ns * sr, sizeof(double));
        bc_random(hx[j], ns, sr);
        bc_random(hy[j], ns, sr);
        for (size_t c = 0; c < sr; c++) hx[j][c] = 0; /* a zero site: half norm 0 */
    }
    bf_cases = bf_cases_same = 0;
    for (int pxi = 0; pxi < 3; pxi++)
        for (int pyi = 0; pyi < 3; pyi++) {
            for (int j = 0; j < nvec; j++) px[j] = (enum solver_prec)pxi;
            for (int k = 0; k < BF_NKERNELS; k++) bf_case(gpu, cpu, k, nvec, ns, sr, px, (enum solver_prec)pyi, hx, hy, hr);
        }
    /* mixed x precisions in one multi_axpy (and p precisions in one
     * multi_axpy_caxpby, r of the first's): done vector by vector */
    for (int j = 0; j < nvec; j++) px[j] = (enum solver_prec)(j % 3);
    bf_case(gpu, cpu, BF_MULTI_AXPY, nvec, ns, sr, px, SOLVER_DOUBLE, hx, hy, hr);
    bf_case(gpu, cpu, BF_MULTI_AXPY_CAXPBY, nvec, ns, sr, px, SOLVER_DOUBLE, hx, hy, hr);
    printf("%s%zu sites x %zu reals: %d of %d fused cases (5 kernels x 9 precision pairs + 2 mixed; %d vectors) give the unfused bits\n",
           bf_tag, ns, sr, bf_cases_same, bf_cases, nvec);
    free(hr);
    for (int j = 0; j < nvec; j++) free(hx[j]), free(hy[j]);
    free(hx);
    free(hy);
    free(px);
}

#endif
