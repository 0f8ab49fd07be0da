/* blas_blockop.h -- the second half of blas_checks.h (included by it): a
 * site-local test operator on either layout and the whole-solve checks
 * bc_solves and bc_determinism (contracts in blas_checks.h).
 *
 * The operator: per site s a complex m x m block M_s (m = site_reals / 2),
 * out_s = M_s in_s (dag: M_s^dag in_s), in double with double blocks or in
 * float with the blocks rounded to float -- the same site function for
 * both layouts, so the GPU-layout operator gives the CPU-layout one's bits.
 * On the device layout every application downloads the whole vector,
 * applies on the host and uploads the result (padding written as zeros);
 * apply_vec (what a GPU operator offers) takes double and single directly
 * and half as the CPU solvers' sloppy operator does it: copied to single
 * by the table's copy, applied in float, copied back. */
#ifndef LAT_TEST_BLAS_BLOCKOP_H
#define LAT_TEST_BLAS_BLOCKOP_H

struct bc_op {
    size_t ns, sr, m;
    int gpu;                   /* 1: device layout (gpu/spinor.h), 0: site after site on the host */
    const double *mat;         /* ns x m x m complex, row-major, re/im */
    const float *mat_f;
    const struct solver_blas *blas;   /* gpu: its table (apply_vec's half) */
    struct solver_vec *tf1, *tf2;     /* gpu: single work vectors */
    double *hin, *hout;               /* gpu: host copies of the stored reals */
};

/* out = M in (dag: M^dag in) on every site; single: float arithmetic */
static void bc_apply_any(struct bc_op *o, int dag, int single, void *out, const void *in)
{
    size_t m = o->m, sr = o->sr, es = single ? sizeof(float) : sizeof(double);
    size_t stored = o->gpu ? gpu_spinor_storage((int64_t)o->ns, (int)sr) : o->ns * sr;
    int nc = gpu_spinor_ncomp((int)sr);
    const void *src = in;
    void *dst = out;
    if (o->gpu) {
        gpu_download(o->hin, in, stored * es);
        memset(o->hout, 0, stored * es);
        src = o->hin;
        dst = o->hout;
    }
    for (size_t s = 0; s < o->ns; s++) {
        double vd[2 * 512];
        float vf[2 * 512];
        for (size_t c = 0; c < sr; c++) {
            size_t i = o->gpu ? gpu_spinor_index(nc, (int)c, (int64_t)s) : s * sr + c;
            if (single) vf[c] = ((const float *)src)[i];
            else vd[c] = ((const double *)src)[i];
        }
        for (size_t r = 0; r < m; r++) {
            double sd_re = 0, sd_im = 0;
            float sf_re = 0, sf_im = 0;
            for (size_t j = 0; j < m; j++) {
                /* element (r, j) of M or of M^dag = conj(M[j][r]) */
                size_t e = s * m * m + (dag ? j * m + r : r * m + j);
                if (single) {
                    float are = o->mat_f[2 * e], aim = dag ? -o->mat_f[2 * e + 1] : o->mat_f[2 * e + 1];
                    sf_re += are * vf[2 * j] - aim * vf[2 * j + 1];
                    sf_im += are * vf[2 * j + 1] + aim * vf[2 * j];
                } else {
                    double are = o->mat[2 * e], aim = dag ? -o->mat[2 * e + 1] : o->mat[2 * e + 1];
                    sd_re += are * vd[2 * j] - aim * vd[2 * j + 1];
                    sd_im += are * vd[2 * j + 1] + aim * vd[2 * j];
                }
            }
            size_t i0 = o->gpu ? gpu_spinor_index(nc, (int)(2 * r), (int64_t)s) : s * sr + 2 * r;
            size_t i1 = o->gpu ? gpu_spinor_index(nc, (int)(2 * r + 1), (int64_t)s) : s * sr + 2 * r + 1;
            if (single) ((float *)dst)[i0] = sf_re, ((float *)dst)[i1] = sf_im;
            else ((double *)dst)[i0] = sd_re, ((double *)dst)[i1] = sd_im;
        }
    }
    if (o->gpu) gpu_upload(out, o->hout, stored * es);
}
static void bc_apply(void *c, double *out, const double *in) { bc_apply_any((struct bc_op *)c, 0, 0, out, in); }
static void bc_apply_dag(void *c, double *out, const double *in) { bc_apply_any((struct bc_op *)c, 1, 0, out, in); }
static void bc_apply_f(void *c, float *out, const float *in) { bc_apply_any((struct bc_op *)c, 0, 1, out, in); }
static void bc_apply_dag_f(void *c, float *out, const float *in) { bc_apply_any((struct bc_op *)c, 1, 1, out, in); }
static void bc_apply_vec(void *c, int dag, struct solver_vec *out, const struct solver_vec *in)
{
    struct bc_op *o = (struct bc_op *)c;
    if (in->prec == SOLVER_DOUBLE) bc_apply_any(o, dag, 0, out->data, in->data);
    else if (in->prec == SOLVER_SINGLE) bc_apply_any(o, dag, 1, out->data, in->data);
    else {
        o->blas->copy(o->blas->ctx, o->tf1, in);
        bc_apply_any(o, dag, 1, o->tf2->data, o->tf1->data);
        o->blas->copy(o->blas->ctx, out, o->tf2);
    }
}

static struct solver_op bc_make_op(struct bc_op *o, int gpu, const struct solver_blas *blas, size_t ns, size_t sr,
                                   const double *mat, const float *mat_f)
{
    memset(o, 0, sizeof *o);
    o->ns = ns, o->sr = sr, o->m = sr / 2, o->gpu = gpu, o->mat = mat, o->mat_f = mat_f, o->blas = blas;
    struct solver_op op;
    memset(&op, 0, sizeof op);
    op.n = ns * sr;
    op.site_reals = sr;
    op.ctx = o;
    op.apply = bc_apply;
    op.apply_dag = bc_apply_dag;
    op.apply_f = bc_apply_f;
    op.apply_dag_f = bc_apply_dag_f;
    if (gpu) {
        size_t stored = gpu_spinor_storage((int64_t)ns, (int)sr);
        o->hin = (double *)calloc(stored + 1, sizeof(double));
        o->hout = (double *)calloc(stored + 1, sizeof(double));
        o->tf1 = blas->alloc(blas->ctx, ns * sr, sr, SOLVER_SINGLE);
        o->tf2 = blas->alloc(blas->ctx, ns * sr, sr, SOLVER_SINGLE);
        op.apply_vec = bc_apply_vec;
    }
    return op;
}
static void bc_free_op(struct bc_op *o)
{
    if (!o->gpu) return;
    o->blas->free(o->blas->ctx, o->tf1);
    o->blas->free(o->blas->ctx, o->tf2);
    free(o->hin);
    free(o->hout);
}

/* the blocks: hermitian: B^dag B / m + 0.1 (positive, condition ~50);
 * otherwise 2 + B / sqrt(m) (eigenvalues in the disc |z - 2| <= 1) */
static void bc_blocks(double *mat, float *mat_f, size_t ns, size_t m, int hermitian)
{
    double *b = (double *)malloc(2 * m * m * sizeof(double));
    for (size_t s = 0; s < ns; s++) {
        double *a = mat + 2 * s * m * m;
        for (size_t k = 0; k < 2 * m * m; k++) b[k] = bc_gauss() / sqrt(2.0);
        for (size_t r = 0; r < m; r++)
            for (size_t c = 0; c < m; c++) {
                double re = 0, im = 0;
                if (hermitian) { /* (B^dag B)_rc = sum_k conj(B_kr) B_kc */
                    for (size_t k = 0; k < m; k++) {
                        double xr = b[2 * (k * m + r)], xi = -b[2 * (k * m + r) + 1];
                        double yr = b[2 * (k * m + c)], yi = b[2 * (k * m + c) + 1];
                        re += xr * yr - xi * yi, im += xr * yi + xi * yr;
                    }
                    re /= (double)m, im /= (double)m;
                    if (r == c) re += 0.1, im = 0;
                } else {
                    re = b[2 * (r * m + c)] / sqrt((double)m), im = b[2 * (r * m + c) + 1] / sqrt((double)m);
                    if (r == c) re += 2;
                }
                a[2 * (r * m + c)] = re, a[2 * (r * m + c) + 1] = im;
            }
        if (hermitian) /* exactly Hermitian: the upper triangle mirrored */
            for (size_t r = 0; r < m; r++)
                for (size_t c = 0; c < r; c++)
                    a[2 * (r * m + c)] = a[2 * (c * m + r)], a[2 * (r * m + c) + 1] = -a[2 * (c * m + r) + 1];
    }
    for (size_t k = 0; k < 2 * ns * m * m; k++) mat_f[k] = (float)mat[k];
    free(b);
}

static double bc_norm(const double *v, size_t n)
{
    double s = 0;
    for (size_t k = 0; k < n; k++) s += v[k] * v[k];
    return sqrt(s);
}
static double bc_diff(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t k = 0; k < n; k++) s += (a[k] - b[k]) * (a[k] - b[k]);
    return sqrt(s) / bc_norm(b, n);
}
/* |b - A x| / |b| on the host (A: the CPU-layout operator, shift sigma on
 * A^dag A when normal) */
static double bc_true_res(struct solver_op *op, const double *b, const double *x, int normal, double sigma)
{
    size_t n = op->n;
    double *t = (double *)malloc(n * sizeof(double)), *r = (double *)malloc(n * sizeof(double));
    op->apply(op->ctx, r, x);
    if (normal) {
        memcpy(t, r, n * sizeof(double));
        op->apply_dag(op->ctx, r, t);
        for (size_t k = 0; k < n; k++) r[k] += sigma * x[k];
    }
    for (size_t k = 0; k < n; k++) r[k] = b[k] - r[k];
    double e = bc_norm(r, n) / bc_norm(b, n);
    free(t);
    free(r);
    return e;
}

enum { BC_CG, BC_BICGSTAB, BC_CGNE, BC_MULTISHIFT };
static const char *bc_sname[] = {"cg", "bicgstab", "cgne", "multishift"};
#define BC_NSHIFT 4
static const double bc_sigma[BC_NSHIFT] = {0.01, 0.1, 1, 5};
#define BC_TOL 1e-10

static int bc_solves(const struct solver_blas *gpu, const struct solver_blas *cpu, size_t ns, size_t sr, int margin)
{
    size_t n = ns * sr, m = sr / 2, stored = gpu_spinor_storage((int64_t)ns, (int)sr);
    double *mh = (double *)malloc(2 * ns * m * m * sizeof(double)), *mg = (double *)malloc(2 * ns * m * m * sizeof(double));
    float *mhf = (float *)malloc(2 * ns * m * m * sizeof(float)), *mgf = (float *)malloc(2 * ns * m * m * sizeof(float));
    bc_blocks(mh, mhf, ns, m, 1);
    bc_blocks(mg, mgf, ns, m, 0);
    double *bh = (double *)malloc(n * sizeof(double)), *xh = (double *)malloc(n * sizeof(double));
    double *xc[BC_NSHIFT], *xgp[BC_NSHIFT];
    struct solver_vec *xg[BC_NSHIFT];
    for (size_t k = 0; k < n; k++) bh[k] = bc_gauss();
    struct solver_vec *bg = gpu->alloc(gpu->ctx, n, sr, SOLVER_DOUBLE);
    gpu_spinor_upload((double *)bg->data, bh, (int64_t)ns, (int)sr);
    for (int i = 0; i < BC_NSHIFT; i++) {
        xc[i] = (double *)calloc(n, sizeof(double));
        xg[i] = gpu->alloc(gpu->ctx, n, sr, SOLVER_DOUBLE);
        xgp[i] = (double *)xg[i]->data;
    }
    int worst = 0;
    for (int sv = BC_CG; sv <= BC_MULTISHIFT; sv++)
        for (int p = 0; p < 3; p++) {
            const double *mat = sv == BC_CG ? mh : mg;
            const float *mat_f = sv == BC_CG ? mhf : mgf;
            struct bc_op og, oc;
            struct solver_op opg = bc_make_op(&og, 1, gpu, ns, sr, mat, mat_f), opc = bc_make_op(&oc, 0, cpu, ns, sr, mat, mat_f);
            struct solver_params par;
            memset(&par, 0, sizeof par);
            par.tol = BC_TOL;
            par.max_iter = 3000;
            par.sloppy = (enum solver_prec)p;
            struct solver_result rg[BC_NSHIFT], rc[BC_NSHIFT];
            int nsol = sv == BC_MULTISHIFT ? BC_NSHIFT : 1;
            for (int i = 0; i < nsol; i++) {
                gpu->zero(gpu->ctx, xg[i]);
                memset(xc[i], 0, n * sizeof(double));
            }
            if (sv == BC_CG) {
                solver_cg(&opg, gpu, (const double *)bg->data, xgp[0], &par, &rg[0]);
                solver_cg(&opc, cpu, bh, xc[0], &par, &rc[0]);
            } else if (sv == BC_BICGSTAB) {
                solver_bicgstab(&opg, gpu, (const double *)bg->data, xgp[0], &par, &rg[0]);
                solver_bicgstab(&opc, cpu, bh, xc[0], &par, &rc[0]);
            } else if (sv == BC_CGNE) {
                solver_cgne(&opg, gpu, (const double *)bg->data, xgp[0], &par, &rg[0]);
                solver_cgne(&opc, cpu, bh, xc[0], &par, &rc[0]);
            } else {
                solver_multishift_cg(&opg, gpu, (const double *)bg->data, BC_NSHIFT, bc_sigma, NULL, xgp, &par, rg);
                solver_multishift_cg(&opc, cpu, bh, BC_NSHIFT, bc_sigma, NULL, xc, &par, rc);
            }
            for (int i = 0; i < nsol; i++) {
                gpu_spinor_download(xh, (const double *)xg[i]->data, (int64_t)ns, (int)sr);
                double res = bc_true_res(&opc, bh, xh, sv == BC_MULTISHIFT, bc_sigma[i]);
                double dx = bc_diff(xh, xc[i], n);
                int di = abs(rg[i].iterations - rc[i].iterations);
                if (di > worst) worst = di;
                /* the solution's padding: zero */
                double *raw = (double *)calloc(stored, sizeof(double));
                gpu_download(raw, xg[i]->data, stored * sizeof(double));
                double pad = 0, all = 0;
                for (size_t k = 0; k < stored; k++) all += raw[k] * raw[k];
                pad = fabs(all - bc_norm(xh, n) * bc_norm(xh, n)) / all;
                free(raw);
                char what[96];
                snprintf(what, sizeof what, "%zu x %zu %s %s%s", ns, sr, bc_sname[sv], solver_prec_name((enum solver_prec)p),
                         sv == BC_MULTISHIFT ? " shift" : "");
                CHECK(rg[i].status == SOLVER_CONVERGED && rc[i].status == SOLVER_CONVERGED,
                      "%s %d: GPU %s, CPU %s", what, i, solver_status_name(rg[i].status), solver_status_name(rc[i].status));
                CHECK(res <= 1.01 * BC_TOL && rg[i].residual <= BC_TOL, "%s %d: true residual %.3g (solver: %.3g), tol %g",
                      what, i, res, rg[i].residual, BC_TOL);
                CHECK(dx <= 1e-8, "%s %d: |x_gpu - x_cpu| / |x_cpu| = %.3g", what, i, dx);
                CHECK(di <= margin, "%s %d: iterations GPU %d, CPU %d (margin %d)", what, i, rg[i].iterations,
                      rc[i].iterations, margin);
                CHECK(pad <= 1e-12, "%s %d: the stored solution holds more than the vector (%.3g)", what, i, pad);
                if (sv == BC_MULTISHIFT) snprintf(what + strlen(what), sizeof what - strlen(what), " %d", i);
                printf("%s: iterations GPU %d CPU %d, reliable %d/%d, residual %.2e (host %.2e), |dx| %.1e\n", what,
                       rg[i].iterations, rc[i].iterations, rg[i].reliable_updates, rc[i].reliable_updates, rg[i].residual,
                       res, dx);
            }
            bc_free_op(&og);
            bc_free_op(&oc);
        }
    for (int i = 0; i < BC_NSHIFT; i++) {
        free(xc[i]);
        gpu->free(gpu->ctx, xg[i]);
    }
    gpu->free(gpu->ctx, bg);
    free(mh), free(mg), free(mhf), free(mgf), free(bh), free(xh);
    return worst;
}

/* two identical solves and reductions give the same bits */
static void bc_determinism(const struct solver_blas *gpu, size_t ns, size_t sr)
{
    size_t n = ns * sr, m = sr / 2, stored = gpu_spinor_storage((int64_t)ns, (int)sr);
    double *mh = (double *)malloc(2 * ns * m * m * sizeof(double)), *bh = (double *)malloc(n * sizeof(double));
    float *mhf = (float *)malloc(2 * ns * m * m * sizeof(float));
    bc_blocks(mh, mhf, ns, m, 1);
    for (size_t k = 0; k < n; k++) bh[k] = bc_gauss();
    struct solver_vec *bg = gpu->alloc(gpu->ctx, n, sr, SOLVER_DOUBLE);
    gpu_spinor_upload((double *)bg->data, bh, (int64_t)ns, (int)sr);
    double *raw[2];
    int it[2];
    double nrm[2];
    solver_complex dt[2];
    for (int run = 0; run < 2; run++) {
        struct bc_op og;
        struct solver_op opg = bc_make_op(&og, 1, gpu, ns, sr, mh, mhf);
        struct solver_vec *x = gpu->alloc(gpu->ctx, n, sr, SOLVER_DOUBLE);
        struct solver_params par;
        struct solver_result r;
        memset(&par, 0, sizeof par);
        par.tol = BC_TOL, par.max_iter = 3000, par.sloppy = SOLVER_HALF;
        solver_cg(&opg, gpu, (const double *)bg->data, (double *)x->data, &par, &r);
        it[run] = r.iterations;
        raw[run] = (double *)malloc(stored * sizeof(double));
        gpu_download(raw[run], x->data, stored * sizeof(double));
        nrm[run] = gpu->norm2(gpu->ctx, x);
        dt[run] = gpu->cdot(gpu->ctx, x, bg);
        gpu->free(gpu->ctx, x);
        bc_free_op(&og);
    }
    int same = it[0] == it[1] && !memcmp(raw[0], raw[1], stored * sizeof(double)) && !memcmp(&nrm[0], &nrm[1], sizeof(double)) &&
               !memcmp(&dt[0], &dt[1], sizeof dt[0]);
    CHECK(same, "%zu x %zu: two half-CG solves (%d, %d iterations) or their norm2/cdot differ", ns, sr, it[0], it[1]);
    printf("%zu x %zu determinism: two mixed-half CG solves, %d iterations each, solutions and norm2, cdot %s\n", ns, sr,
           it[0], same ? "bit-identical" : "DIFFER");
    gpu->free(gpu->ctx, bg);
    free(raw[0]), free(raw[1]), free(mh), free(mhf), free(bh);
}

#endif
