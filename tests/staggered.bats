#!/usr/bin/env bats
# staggered.bats -- the staggered stencil is written once for C and CUDA:
# dirac/staggered_site.h compiles as C++ device code on the host (g++
# through scripts/cuda-on-host.h, as tests/dirac.bats does for site.h), in
# double and in float, inside a __global__ kernel.  (The numerical checks
# of the operator and the monomial are tests/unit/test_staggered.c.)

setup() {
    ROOT="$BATS_TEST_DIRNAME/.."
}

@test "dirac/staggered_site.h compiles as C++ device code (g++ host emulation), double and float" {
    command -v g++ >/dev/null || skip "g++ is missing: the host emulation of device code compiles with it"
    src="$BATS_TEST_TMPDIR/staggered_site.cpp"
    cat > "$src" <<'CPP'
#include "cuda-on-host.h"
#include "dirac/staggered_site.h"
__global__ void k_site(const struct lattice *lat, const lat_complex *u, const lat_complex *p, lat_complex *out)
{
    const lat_complex *uf[4], *pf[4], *ub[4], *pb[4];
    for (int m = 0; m < 4; m++) { uf[m] = u + 9 * m; ub[m] = u + 36 + 9 * m; pf[m] = p + 3 * m; pb[m] = p + 12 + 3 * m; }
    const int x = threadIdx.x + blockDim.x * blockIdx.x;
    staggered_site_hop(3, uf, pf, ub, pb, out + 3 * x);
    out[3 * x].re *= staggered_phase(lat, x, 3);
}
int main() { return 0; }
CPP
    for real in double float; do
        run g++ -std=c++17 -Wall -Wextra -Werror -DLAT_REAL=$real -DSTAGGERED_NC_MAX=3 -I"$ROOT/scripts" -I"$ROOT/common" -I"$ROOT/kernels" \
            -c "$src" -o "$BATS_TEST_TMPDIR/staggered_site_$real.o"
        echo "$output"
        [ "$status" -eq 0 ]
    done
}
