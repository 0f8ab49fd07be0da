#!/usr/bin/env bats
# heatbath-sun.bats -- the SU(4) and SU(6) heatbath against the strong-coupling
# limit (the quick part of docs/VALIDATION.md, "SU(4) and SU(6)"; the long
# chains in the scaling region are scripts/validate-heatbath --sun).
#
# At small beta the plaquette is the one-link average u(beta) =
# <(1/N) Re tr U> with weight exp((beta/N) Re tr U), up to
# 8 N^2 u^5 du/dbeta from the closed cube (below 2e-4 here).  The test
# computes u independently of lat, in python, from the SU(N) one-link
# integral z(beta) = sum_q det[I_{q+j-i}(beta/N)]_{i,j} (u = d ln z / d beta),
# and checks it first against the series the unit test uses for SU(4)
# (beta/32 + beta^3/12288 at beta = 1).

bats_require_minimum_version 1.5.0

setup() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
    HB="$ROOT/bin/lat-heatbath"
    cd "$BATS_TEST_TMPDIR"
}

# u(beta) for SU(N): strong_u N BETA
strong_u() {
    python3 - "$1" "$2" <<'EOF'
import math, sys
N, beta = int(sys.argv[1]), float(sys.argv[2])
def bessel_i(n, x):
    n = abs(n); t = (x / 2) ** n / math.factorial(n); s = 0.0; k = 0
    while t > 1e-300 and (s == 0 or t > 1e-18 * s):
        s += t; k += 1; t *= (x / 2) ** 2 / (k * (k + n))
    return s
def det(m):
    m = [r[:] for r in m]; n = len(m); d = 1.0
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if p != c: m[c], m[p] = m[p], m[c]; d = -d
        d *= m[c][c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n): m[r][k] -= f * m[c][k]
    return d
def z(b):
    return sum(det([[bessel_i(q + j - i, b / N) for j in range(N)] for i in range(N)]) for q in range(-12, 13))
h = 1e-4
print("%.9f" % ((math.log(z(beta + h)) - math.log(z(beta - h))) / (2 * h)))
EOF
}

# mean and binned error (bins of 10 sweeps) of the plaquette column of a
# --log file, the first THERM sweeps dropped: plaq_stats LOG THERM
plaq_stats() {
    awk -F'\t' -v therm="$2" 'NR > 2 && $1 > therm { x[n++] = $2 }
        END { b = int(n / 10); for (i = 0; i < b; i++) { s = 0; for (j = 0; j < 10; j++) s += x[10 * i + j]; m[i] = s / 10; t += m[i] }
              t /= b; for (i = 0; i < b; i++) v += (m[i] - t) ^ 2; printf "%.8f %.8f\n", t, sqrt(v / (b - 1) / b) }' "$1"
}

@test "strong coupling: the one-link u(beta) agrees with the SU(4) series (and with SU(2)'s I2/I1)" {
    u4=$(strong_u 4 1.0)
    close "$u4" 0.0313314 2e-6     # beta/32 + beta^3/12288 (+ O(beta^5))
    u2=$(strong_u 2 1.0)
    close "$u2" 0.2401937 2e-6     # I2(1)/I1(1)
    u6=$(strong_u 6 3.0)
    close "$u6" "$(awk 'BEGIN { print 3.0 / 72 }')" 2e-5   # beta/(2 N^2) at leading order
}

@test "SU(4) beta = 4 and SU(6) beta = 3 on 4^4: the plaquette is u(beta), not beta/N^2" {
    for case in "4 4.0" "6 3.0"; do
        set -- $case
        OMP_NUM_THREADS=1 "$HB" --nc "$1" --lattice 4 --beta "$2" --start hot --therm 10 --sweeps 100 --or 1 \
            --seed 11 --log "su$1.tsv" -q -o "su$1.lime"
        [ "$(wc -l < "su$1.tsv")" -eq 112 ]
        read -r mean err < <(plaq_stats "su$1.tsv" 10)
        u=$(strong_u "$1" "$2")
        echo "SU($1) beta=$2: plaquette $mean +- $err, u(beta) = $u"
        # within 5 sigma of u (the cube term, < 2e-4, is below one sigma here)
        close "$mean" "$u" "$(awk -v e="$err" 'BEGIN { print 5 * e + 2e-4 }')"
        # and far from the wrong normalisation beta/N^2 (twice u)
        less "$(awk -v m="$mean" -v n="$1" -v b="$2" 'BEGIN { d = m - b / (n * n); print d < 0 ? -d : d }')" 0.02 && return 1
        # hot start and the output file: SU(N) recorded, N read back
        "$ROOT/bin/lat-measure" -q --format tsv "su$1.lime" | awk -F'\t' -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "nc") c = i; next } { exit !($c == n) }'
    done
}

close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < t) }'; }
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
