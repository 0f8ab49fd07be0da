/* hmc_gauge_gpu.c -- benchmark of the GPU HMC's gauge part (kernels/hmc/
 * gpu.h; make bench, GPU present).
 *
 *   build/bench/hmc_gauge_gpu [L [reps]]     (default 32, 20)
 *
 * First a check: one 2MN trajectory (beta 5.7, tau 0.5, 10 steps) on 8^4
 * on the GPU (hmc_integrate_gpu) and with the CPU integrator from the same smooth links and
 * momenta: "PASS" when the links agree to 1e-12 and dH to 1e-10, else
 * "FAIL" (exit 1).  Then on L^4 (SU(3), double, 18-real links) each kernel
 * `reps` times after a warm-up, timed with CUDA events: µs per call, G
 * site/s, and the bytes per site as the kernels load and store them (one
 * 3x3 double matrix = 144 bytes; caches make the DRAM traffic smaller):
 *     momenta draw 4 stores (576), kinetic energy 4 loads (576), link
 *     update 4 x (P, U, U stored) (1728), momentum update P += eps F 1728,
 *     gauge force 4 x (18 staple links, U, F loaded and stored) (12096),
 *     action: obs_thread's 4 + 12 links (2304),
 *     one 2MN step (2 forces, 2 link updates): 27648;
 * GB/s and the percentage of the device-to-device copy bandwidth.  Exits 0
 * with a note when built without CUDA or no GPU is present. */
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>

#ifndef LAT_HAVE_CUDA
int main(void)
{
    printf("hmc_gauge_gpu: built without CUDA: nothing to measure\n");
    return 0;
}
#else
#include "base/log.h"
#include "gpu/field.h"
#include "hmc/gauge.h"
#include "hmc/gpu.h"
#include "hmc/integrator.h"
#include "hmc/momenta.h"
#include "../tests/gpu/gpu_fields.h"
#include <math.h>
#include <string.h>

static double maxdiff(const double *a, const double *b, size_t n)
{
    double w = 0;
    for (size_t i = 0; i < n; i++) w = fmax(w, fabs(a[i] - b[i]));
    return w;
}

/* the GPU trajectory against the CPU integrator on 8^4: 1 if they agree */
static int check_trajectory(void)
{
    const double beta = 5.7, tau = 0.5;
    const int steps = 10;
    struct lattice lat;
    fields_lattice(&lat, 8, 8);
    struct field u0, uc, ug;
    fields_weak(&u0, &lat, 3, 0.3, 5);
    field_copy(&uc, &u0);
    field_alloc(&ug, &lat, 3, 64);
    struct hmc_gauge_ctx ctx;
    struct hmc_monomial m = hmc_gauge_monomial(&ctx, beta, 0);
    struct hmc_integrator it = {tau, steps, 1};
    double *p = hmc_momenta_alloc(&uc);
    hmc_momenta_draw(p, &uc, 1, 2);
    double h0 = hmc_hamiltonian(&m, 1, &uc, p, NULL);
    hmc_integrate(&it, &m, 1, &uc, p, NULL);
    double dh_cpu = hmc_hamiltonian(&m, 1, &uc, p, NULL) - h0;
    struct gpu_field U, P;
    hmc_gpu_field_create(&U, &u0);
    hmc_gpu_field_create(&P, &u0);
    hmc_gpu_links_upload(&U, &u0);
    hmc_gpu_momenta_draw(&P, 1, 2);
    double g0 = hmc_gpu_kinetic_energy(&P) + hmc_gpu_gauge_action(&U, beta);
    hmc_integrate_gpu(&it, &m, 1, &U, &P, NULL);
    double dh_gpu = hmc_gpu_kinetic_energy(&P) + hmc_gpu_gauge_action(&U, beta) - g0;
    hmc_gpu_links_download(&U, &ug);
    double d = maxdiff(ug.d, uc.d, (size_t)lat.V * 4 * 18);
    int ok = d <= 1e-12 && fabs(dh_gpu - dh_cpu) <= 1e-10;
    printf("%s: 8^4 2MN trajectory (beta 5.7, tau 0.5, 10 steps) GPU vs CPU: links %.2e, dH %.12g vs %.12g\n",
           ok ? "PASS" : "FAIL", d, dh_gpu, dh_cpu);
    gpu_field_free(&U);
    gpu_field_free(&P);
    field_free(&u0);
    field_free(&uc);
    field_free(&ug);
    free(p);
    return ok;
}

enum { K_DRAW, K_KIN, K_UPDATE, K_ADD, K_FORCE, K_ACTION, K_STEP, K_N };
static const char *names[K_N] = {"momenta draw", "kinetic energy", "link update", "momentum update", "gauge force", "action",
                                 "2MN step"};
static const double bytes_per_site[K_N] = {576, 576, 1728, 1728, 12096, 2304, 27648};

static void run(int k, struct gpu_field *U, struct gpu_field *P, struct gpu_field *F, int i)
{
    static struct hmc_gauge_ctx ctx;
    static const struct hmc_integrator step = {0.01, 1, 1};
    const struct hmc_monomial m = hmc_gauge_monomial(&ctx, 5.7, 0);
    switch (k) {
    case K_DRAW: hmc_gpu_momenta_draw(P, 9, (uint32_t)i); break;
    case K_KIN: (void)hmc_gpu_kinetic_energy(P); break;
    case K_UPDATE: hmc_gpu_link_update(U, P, 1e-3); break;
    case K_ADD: hmc_gpu_momenta_add(P, 1e-3, F); break;
    case K_FORCE: hmc_gpu_gauge_force(U, 5.7, 1e-3, F); break;
    case K_ACTION: (void)hmc_gpu_gauge_action(U, 5.7); break;
    default: hmc_integrate_gpu(&step, &m, 1, U, P, NULL); break;
    }
}

int main(int argc, char **argv)
{
    lat_progname = "hmc_gauge_gpu";
    int L = argc > 1 ? atoi(argv[1]) : 32, reps = argc > 2 ? atoi(argv[2]) : 20;
    if (L < 4 || L % 2 || reps < 1) {
        fprintf(stderr, "usage: hmc_gauge_gpu [L (even, >= 4) [reps (>= 1)]]\n");
        return 2;
    }
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("hmc_gauge_gpu: no GPU (%s): nothing to measure\n", why);
        return 0;
    }
    char dev[256];
    gpu_device_name(dev, sizeof dev);
    double bw = gpu_copy_bandwidth((size_t)1 << 30, 20);
    printf("device: %s\ndevice-to-device copy bandwidth (1 GiB cudaMemcpy, read + write): %.1f GB/s\n", dev, bw * 1e-9);
    int ok = check_trajectory();
    struct lattice lat;
    fields_lattice(&lat, L, L);
    struct field u;
    fields_weak(&u, &lat, 3, 0.3, 7);
    struct gpu_field U, P, F;
    hmc_gpu_field_create(&U, &u);
    hmc_gpu_field_create(&P, &u);
    hmc_gpu_field_create(&F, &u);
    hmc_gpu_links_upload(&U, &u);
    hmc_gpu_momenta_draw(&P, 9, 0);
    printf("%d^4 SU(3) double, 18-real links, %d calls each:\n%-16s %10s %10s %10s %8s\n", L, reps, "kernel", "us/call",
           "Gsite/s", "GB/s", "% copy");
    for (int k = 0; k < K_N; k++) {
        run(k, &U, &P, &F, 0); /* warm-up */
        gpu_timer_start();
        for (int i = 0; i < reps; i++) run(k, &U, &P, &F, i + 1);
        double t = gpu_timer_stop() / reps;
        double sites = (double)lat.V / t, gbs = sites * bytes_per_site[k];
        printf("%-16s %10.1f %10.3f %10.1f %8.1f\n", names[k], t * 1e6, sites * 1e-9, gbs * 1e-9, 100 * gbs / bw);
    }
    gpu_field_free(&U);
    gpu_field_free(&P);
    gpu_field_free(&F);
    field_free(&u);
    return ok ? 0 : 1;
}
#endif
