#!/usr/bin/env bats
# dirac.bats -- the Dirac stencil is written once for C and CUDA: the
# headers a CUDA backend will include (dirac/site.h, math/spinor.h) compile
# as C++ device code on the host (g++ through scripts/cuda-on-host.h, as the
# GPU emulations do), in double and in float, inside a __global__ kernel.
# (The numerical checks of the operators are tests/unit/test_dirac.c.)

setup() {
    ROOT="$BATS_TEST_DIRNAME/.."
}

@test "dirac/site.h and math/spinor.h compile as C++ device code (g++ host emulation), double and float" {
    command -v g++ >/dev/null || skip "g++ is missing: the host emulation of device code compiles with it"
    src="$BATS_TEST_TMPDIR/site.cpp"
    cat > "$src" <<'CPP'
#include "cuda-on-host.h"
#include "dirac/site.h"
__global__ void k_site(const lat_complex *u, const lat_complex *p, const lat_real *a, lat_complex *out)
{
    const lat_complex *uf[4], *pf[4], *ub[4], *pb[4];
    for (int m = 0; m < 4; m++) { uf[m] = u + 9 * m; ub[m] = u + 36 + 9 * m; pf[m] = p + 12 * m; pb[m] = p + 48 + 12 * m; }
    lat_complex acc[12];
    dirac_site_hop(3, -1, uf, pf, ub, pb, acc);
    clover_apply_site(3, a, acc, out + 12 * (threadIdx.x + blockDim.x * blockIdx.x));
}
int main() { return 0; }
CPP
    for real in double float; do
        run g++ -std=c++17 -Wall -Wextra -Werror -DLAT_REAL=$real -DDIRAC_NC_MAX=3 -I"$ROOT/scripts" -I"$ROOT/common" -I"$ROOT/kernels" \
            -c "$src" -o "$BATS_TEST_TMPDIR/site_$real.o"
        echo "$output"
        [ "$status" -eq 0 ]
    done
}
