/* test_gpu_observables.c -- `make check-gpu`: the GPU layer's device field
 * and observables (kernels/gpu: gpu_field_create/upload/download/free,
 * gpu_field_observables) against the CPU's (lattice/observables.c), which
 * share their per-site formulas (lattice/observables_site.h):
 *   - SU(3) and SU(2), Haar-random (hot) and smooth fields, 8^3x4 and a
 *     6x6x8x4 box: plaquette (all, spatial, temporal), link trace, Polyakov
 *     loop (re, im), unitarity mean/max and |det - 1| mean/max agree to
 *     1e-14 (absolute; the unitarity values, ~1e-15, to 1e-14 too) in double
 *     storage; in single and mixed storage to 1e-6 (float rounding of the
 *     links) -- the unitarity of float links is not compared.
 *   - upload then download in double storage gives the field back exactly.
 *   - the same field twice gives bit-identical results (deterministic).
 * Exported: main (prints "test_gpu_observables: N passed, M failed"). */
#include "lattice/field.h"
#include "gpu/gpu.h"
#include "gpu/field.h"
#include "gpu_fields.h"
#include "base/log.h"
#include "lattice/observables.h"
#include "unit.h"
#include <stdlib.h>
#include <string.h>

static void lattice_of(struct lattice *lat, int lx, int ly, int lz, int lt)
{
    int L[4] = {lx, ly, lz, lt};
    const char *why;
    if (lattice_init(lat, L, &why)) { fprintf(stderr, "lattice: %s\n", why); exit(1); }
}

static void compare(const char *what, const struct field *u, char prec)
{
    struct gpu_field f;
    struct gpu_observables o, o2;
    gpu_field_create(&f, u, prec, 0);
    gpu_field_upload(&f, u, NULL);
    gpu_field_observables(&f, &o);
    gpu_field_observables(&f, &o2);
    if (prec == 'd') { /* the round trip */
        struct field w;
        field_alloc(&w, &u->lat, u->nc, 64);
        gpu_field_download(&f, &w, NULL);
        double worst = 0;
        size_t nr = (size_t)u->lat.V * 4 * field_link_reals(u->nc);
        for (size_t i = 0; i < nr; i++) {
            double d = fabs(w.d[i] - u->d[i]);
            if (d > worst) worst = d;
        }
        CHECK(worst <= (u->nc == 3 ? 1e-14 : 0), "%s: download differs from the upload by %g", what, worst);
        field_free(&w);
    }
    gpu_field_free(&f);
    CHECK(memcmp(&o, &o2, sizeof o) == 0, "%s %c: two measurements of one field differ", what, prec);
    struct plaquette p = measure_plaquette(u);
    double lt = measure_link_trace(u), re, im;
    measure_polyakov(u, &re, &im);
    struct unitarity un = measure_unitarity(u);
    double tol = prec == 'd' ? 1e-14 : 1e-6;
    if (lat_verbosity > 0)
        printf("%s %c: plaquette GPU %.17g CPU %.17g; Polyakov %.3g%+.3gi vs %.3g%+.3gi\n", what, prec, o.plaq, p.all,
               o.poly_re, o.poly_im, re, im);
    CHECK_CLOSE(o.plaq, p.all, tol);
    CHECK_CLOSE(o.plaq_s, p.spatial, tol);
    CHECK_CLOSE(o.plaq_t, p.temporal, tol);
    CHECK_CLOSE(o.link_trace, lt, tol);
    CHECK_CLOSE(o.poly_re, re, tol);
    CHECK_CLOSE(o.poly_im, im, tol);
    if (prec == 'd') {
        CHECK_CLOSE(o.unit_mean, un.mean, 1e-14);
        CHECK_CLOSE(o.unit_max, un.max, 1e-14);
        CHECK_CLOSE(o.det_mean, un.det_mean, 1e-14);
        CHECK_CLOSE(o.det_max, un.det_max, 1e-14);
    }
}

int main(int argc, char **argv)
{
    lat_progname = "test_gpu_observables";
    if (argc > 1 && strcmp(argv[1], "-v") == 0) lat_verbosity = 1;
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("test_gpu_observables: no GPU (%s)\n", why);
        printf("test_gpu_observables: 0 passed, 1 failed\n");
        return 1;
    }
    struct lattice l8, box;
    lattice_of(&l8, 8, 8, 8, 4);
    lattice_of(&box, 6, 6, 8, 4);
    const char precs[3] = {'d', 's', 'm'};
    for (int nc = 2; nc <= 3; nc++) {
        struct field hot, weak, hb;
        fields_haar(&hot, &l8, nc, 11 + nc);
        fields_weak(&weak, &l8, nc, 0.3, 17 + nc);
        fields_haar(&hb, &box, nc, 23 + nc);
        for (int k = 0; k < 3; k++) {
            compare(nc == 3 ? "SU(3) hot 8^3x4" : "SU(2) hot 8^3x4", &hot, precs[k]);
            compare(nc == 3 ? "SU(3) smooth 8^3x4" : "SU(2) smooth 8^3x4", &weak, precs[k]);
            compare(nc == 3 ? "SU(3) hot 6x6x8x4" : "SU(2) hot 6x6x8x4", &hb, precs[k]);
        }
        field_free(&hot);
        field_free(&weak);
        field_free(&hb);
    }
    return unit_done("test_gpu_observables");
}
