/* bsign.c -- the antiperiodic boundary sign some writers (QUDA,
 * SIMULATeQCD) bake into a configuration: every time link U_t(x) on the
 * last timeslice t = LT-1 multiplied by -1 (FORMATS.md §2.3).
 *
 * Exports (confio.h, conf.h):
 *   conf_boundary_sign_find(u, where)   on a double field, the whole lattice
 *       (dom NULL) or this rank's slab (dom set: a collective call, every
 *       rank returns the same).  Returns
 *         1  the time links at t = LT-1 are all minus an SU(N) matrix and no
 *            other link is (the sign is there),
 *         0  no link is minus an SU(N) matrix,
 *        -1  N is even: det(-U) = det U, the sign cannot be seen.
 *       Any other pattern of such links is a broken file: one line naming
 *       the first link out of place (lat_die, or lat_die_all on a slab),
 *       exit 1.
 *   conf_boundary_sign_refuse(c)   the one refusal of the programs that
 *       compute with the links (dist_read): exit 1 on every rank when
 *       c->check.boundary_sign is 1, naming the cause and the remedy.
 *   conf_strip_boundary_sign(c)    multiply those links by -1; exit 1 when
 *       the sign was not detected (never creates one).
 *   conf_boundary_sign_word(b)     "antiperiodic", "none", "undetectable"
 *       for the reports' key boundary_sign.
 *
 * "Minus an SU(N) matrix" (odd N): ||U^dag U - 1||_F <= 0.1 and
 * |det U + 1| <= 0.1.  An SU(N) link has det U = 1 to rounding, -U has
 * det -1, and a matrix that far from unitary cannot be near det = -1 by
 * accident; links that are not near U(N) at all are left to the unitarity
 * checks of the programs.  The wide margin finds the sign also in a
 * single-precision or poorly reunitarised file. */
#include "io/confio.h"
#include "base/log.h"
#include "lattice/geometry.h"
#include "math/sun.h"
#include <math.h>
#include <stdint.h>

#define BSIGN_TOL 0.1
#define NONE ((int64_t)1 << 62) /* no such link; exact as a double */

/* U = -(an SU(N) matrix), N odd */
static int is_minus_sun(int n, const double *link)
{
    const lat_complex *m = (const lat_complex *)link;
    lat_complex d = sun_det(n, m);
    /* the determinant first: almost every link stops there */
    return hypot(d.re + 1, d.im) <= BSIGN_TOL && sun_unitarity_dev(n, m) <= BSIGN_TOL;
}

/* "U_t at site x=1 y=0 z=2 t=3" of a global link index site*LAT_ND + mu */
static void name_link(const struct lattice *glob, int64_t link, char *buf, size_t n)
{
    int x[LAT_ND];
    lattice_coords(glob, link / LAT_ND, x);
    snprintf(buf, n, "U_%c at site x=%d y=%d z=%d t=%d", "xyzt"[link % LAT_ND], x[0], x[1], x[2], x[3]);
}

int conf_boundary_sign_find(const struct field *u, const char *where)
{
    const int n = u->nc;
    if (n % 2 == 0) return -1;
    const struct geometry *d = u->dom;
    const struct lattice *glob = geometry_global(d, &u->lat);
    const int lt = glob->L[3], tb = geometry_t_begin(d), te = geometry_t_end(d, &u->lat);
    const int64_t v3 = u->lat.V / u->lat.L[3];
    /* counts, and the first (global link index) of each kind */
    int64_t nflip = 0, nbound = 0, nother = 0;
    int64_t first_other = NONE, first_bflip = NONE, first_bplain = NONE;
#pragma omp parallel for schedule(static) reduction(+ : nflip, nbound, nother) \
    reduction(min : first_other, first_bflip, first_bplain)
    for (int64_t s = (int64_t)tb * v3; s < (int64_t)te * v3; s++) {
        const int64_t g = geometry_global_site(d, s);
        const int last = g / v3 == lt - 1;
        for (int mu = 0; mu < LAT_ND; mu++) {
            const int flip = is_minus_sun(n, field_link(u, s, mu));
            const int64_t link = g * LAT_ND + mu;
            if (last && mu == LAT_ND - 1) {
                nbound++;
                if (flip) {
                    nflip++;
                    if (link < first_bflip) first_bflip = link;
                } else if (link < first_bplain) first_bplain = link;
            } else if (flip) {
                nother++;
                if (link < first_other) first_other = link;
            }
        }
    }
    if (d) { /* the whole lattice's counts and firsts on every rank */
        double sums[3] = {(double)nflip, (double)nbound, (double)nother};
        double neg[3] = {-(double)first_other, -(double)first_bflip, -(double)first_bplain}; /* max(-i) = -min(i) */
        comm_sum(sums, 3);
        comm_max(neg, 3);
        nflip = (int64_t)sums[0], nbound = (int64_t)sums[1], nother = (int64_t)sums[2];
        first_other = (int64_t)-neg[0], first_bflip = (int64_t)-neg[1], first_bplain = (int64_t)-neg[2];
    }
    void (*die)(int, const char *, const char *, ...) = d ? lat_die_all : lat_die;
    char at[128];
    if (nother > 0) {
        name_link(glob, first_other, at, sizeof at);
        die(1, where,
            "broken configuration: the link %s is minus an SU(%d) matrix (det U = -1; %lld such link%s outside the "
            "time links at t=LT-1=%d): neither SU(%d) nor an antiperiodic boundary sign, which is on all time links "
            "at t=LT-1 and nowhere else",
            at, n, (long long)nother, nother == 1 ? "" : "s", lt - 1, n);
    }
    if (nflip > 0 && nflip < nbound) {
        int most = 2 * nflip > nbound; /* name the odd one out */
        name_link(glob, most ? first_bplain : first_bflip, at, sizeof at);
        if (most)
            die(1, where,
                "broken configuration: the link %s has det U = +1, but %lld of the %lld time links at t=LT-1=%d "
                "have det U = -1: an antiperiodic boundary sign is on all of them",
                at, (long long)nflip, (long long)nbound, lt - 1);
        die(1, where,
            "broken configuration: the link %s is minus an SU(%d) matrix (det U = -1), but only %lld of the %lld "
            "time links at t=LT-1=%d are: an antiperiodic boundary sign is on all of them",
            at, n, (long long)nflip, (long long)nbound, lt - 1);
    }
    return nflip > 0 ? 1 : 0;
}

void conf_boundary_sign_refuse(const struct conf *c)
{
    if (c->check.boundary_sign != 1) return;
    lat_die_all(1, c->name,
                "the time links at t=LT-1=%d carry an antiperiodic boundary sign (det U = -1; written by "
                "QUDA/SIMULATeQCD): remove it with lat-convert --strip-boundary-sign",
                c->u.lat.L[3] - 1);
}

int64_t conf_strip_boundary_sign(struct conf *c)
{
    const struct field *u = &c->u;
    if (c->check.boundary_sign < 0)
        lat_die(1, c->name,
                "SU(%d): for even N det(-U) = det U, so whether the time links at t=LT-1 carry the antiperiodic "
                "sign cannot be seen; --strip-boundary-sign will not guess",
                u->nc);
    if (c->check.boundary_sign == 0)
        lat_die(1, c->name,
                "no antiperiodic boundary sign to strip: the time links at t=LT-1=%d have det U = +1 like all the "
                "others",
                u->lat.L[3] - 1);
    const int64_t v3 = u->lat.V / u->lat.L[3];
    const size_t nr = field_link_reals(u->nc);
    for (int64_t s = (int64_t)(u->lat.L[3] - 1) * v3; s < u->lat.V; s++) {
        double *m = field_link(u, s, LAT_ND - 1);
        for (size_t i = 0; i < nr; i++) m[i] = -m[i];
    }
    c->check.boundary_sign = 0;
    return v3;
}

const char *conf_boundary_sign_word(int boundary_sign)
{
    return boundary_sign > 0 ? "antiperiodic" : boundary_sign < 0 ? "undetectable" : "none";
}
