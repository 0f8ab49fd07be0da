#!/usr/bin/env bats
# hmc.bats -- lat-hmc as a program.  With staggered fermions (4^4, a few
# trajectories): the log's CG and condensate columns, the rational errors
# (<= 1e-12 heatbath/Metropolis, <= 1e-6 MD) printed and in the history,
# the default npf and exact HMC for nf = 4 npf, --rhmc, the range-widening
# warning (provoked by --spectral-hi), the same bytes for 1 and 2 threads
# (mixed precision), the fermion refusals.  N_f = 0: the per-trajectory log,
# <exp(-dH)> = 1, the same bytes for 1 and 2 threads, continuation from
# its own output (trajectory counter, the links of one uninterrupted run),
# --save-every files, an interrupted run that leaves the previous file
# whole, bad input (one line, exit 1 or 2, nothing written), the
# --format json report (MPI ranks: tests/hmc-mpi.bats).  The
# physics of the pieces is tests/unit/test_hmc.c.

bats_require_minimum_version 1.5.0

setup_file() {
    load common.bash
    lat_test_paths lat-hmc lat-heatbath lat-measure
}

setup() {
    load common.bash
    load lime.bash
    lat_test_dirs
    HMC="$BIN/lat-hmc"
    cd "$W"
}

links() { lime_payload "$1" ildg-binary-data | od -An -v -t f8 --endian=big -w8; }

@test "lat-hmc: --help and --version" {
    has_help_and_version "$HMC"
}

@test "lat-hmc: the log has one line per trajectory, nf 0 columns, and the history its counter" {
    "$HMC" --beta 5.7 --lattice 4 --trajectories 3 --md-steps 4 --seed 2 --log l.tsv -o a.lime 2>/dev/null
    [ "$(head -n 1 l.tsv)" = "$(printf 'trajectory\tplaquette\tpolyakov_re\tpolyakov_im\tdH\texp_minus_dH\taccepted\tcg_iterations\tcondensate\tseconds\tsolver_seconds\ttransfer_seconds\tforce_seconds\tupdate_seconds\tmeasure_seconds\tcondensate_error\tbytes_to_device\tbytes_from_device\tlargest_copy')" ]
    [ "$(wc -l < l.tsv)" -eq 4 ]
    awk -F'\t' 'NR > 1 { if ($1 != NR - 2 || $8 != 0 || $9 != "nan" || ($7 != 0 && $7 != 1)) exit 1
                         d = $6 - exp(-$5); if (d < 0) d = -d; if (d > 1e-6 * $6) exit 1 }' l.tsv
    last_results a.lime | grep -q 'next_trajectory=3 trajectories=3 '
    # the plaquette of the last line is the file's
    p=$(mval a.lime plaquette)
    close "$p" "$(tail -n 1 l.tsv | cut -f 2)" 1e-11
}

@test "lat-hmc --device gpu without a usable GPU: one line, exit 1, nothing written" {
    export CUDA_VISIBLE_DEVICES= # a CUDA build on a GPU machine sees none
    expect_error 1 lat-hmc 'GPU' -- "$HMC" --beta 5.7 --lattice 4 --nf 2 --mass 0.1 --device gpu --log l.tsv -o o.lime
    # N_f = 0 (the whole trajectory on the device) asks for the GPU alike
    expect_error 1 lat-hmc 'GPU' -- "$HMC" --beta 5.7 --lattice 4 --device gpu --log l.tsv -o o.lime
    expect_clean
}

@test "lat-hmc: the time split -- solver, force, update, measure within the trajectory's seconds, device=cpu recorded" {
    # 6^4: on 4^4 the measurements (one noise vector) can take under the
    # log's 0.5 ms resolution and print as 0.000 (the clean-clone CI, 2026-11-26)
    "$HMC" --beta 5.7 --lattice 6 --nf 2 --mass 0.1 --trajectories 2 --md-steps 3 --noise 1 --log l.tsv --format json -o a.lime > r.json 2>/dev/null
    # solver + force + update <= seconds (the energies, momenta and refresh
    # are the rest); every part > 0 but the transfers (0 on the CPU)
    awk -F'\t' 'NR > 1 { if (!($11 > 0 && $12 == 0 && $13 > 0 && $14 > 0 && $15 > 0)) exit 1
                         if ($11 + $13 + $14 > $10 + 0.002) exit 1 }' l.tsv
    grep -q '"device": *"cpu"' r.json
    for k in solver transfer force update measure; do grep -q "\"seconds_$k\"" r.json; done
    "$BIN/lat-measure" --history a.lime 2>/dev/null | grep -q ' device=cpu '
}

@test "lat-hmc: <exp(-dH)> = 1 within 2 sigma over 250 trajectories (4^4, beta 5.7)" {
    "$HMC" --beta 5.7 --lattice 4 --trajectories 280 --md-steps 4 --seed 11 --log l.tsv -o a.lime 2>/dev/null
    # the first 30 thermalise from the cold start
    awk -F'\t' 'NR > 31 { n++; s += $6; s2 += $6 * $6; a += $7; dh += $5 }
        END { m = s / n; sd = sqrt((s2 / n - m * m) / (n - 1))
              printf "n %d <exp(-dH)> %.4f +- %.4f acceptance %.3f <dH> %.4f\n", n, m, sd, a / n, dh / n
              d = m - 1; if (d < 0) d = -d; exit !(n == 250 && d < 2 * sd && a / n > 0.3 && a / n < 0.99) }' l.tsv
}

@test "lat-hmc: the same bytes for 1 and 2 threads" {
    # the same command line (it is in the history): two folders
    mkdir one two
    (cd one && OMP_NUM_THREADS=1 "$HMC" --beta 6.0 --lattice 4x4x4x8 --start hot --trajectories 3 --md-steps 5 --seed 4 -o c.lime 2>/dev/null)
    (cd two && OMP_NUM_THREADS=2 "$HMC" --beta 6.0 --lattice 4x4x4x8 --start hot --trajectories 3 --md-steps 5 --seed 4 -o c.lime 2>/dev/null)
    cmp one/c.lime two/c.lime
}

@test "lat-hmc: --start FILE continues the trajectory counter: 2 + 2 = 4 trajectories, the same links" {
    "$HMC" --beta 5.7 --lattice 4 --start hot --trajectories 4 --md-steps 4 --seed 6 -o whole.lime 2>/dev/null
    "$HMC" --beta 5.7 --lattice 4 --start hot --trajectories 2 --md-steps 4 --seed 6 -o half.lime 2>/dev/null
    "$HMC" --beta 5.7 --start half.lime --trajectories 2 --md-steps 4 --seed 6 --log l.tsv -o cont.lime 2>/dev/null
    [ "$(sed -n 2p l.tsv | cut -f 1)" = 2 ]
    last_results cont.lime | grep -q 'next_trajectory=4 '
    "$BIN/lat-measure" -q --history cont.lime | grep -q 'first_trajectory=2'
    links whole.lime > w.txt
    links cont.lime > c.txt
    cmp w.txt c.txt
}

@test "lat-hmc: --save-every K writes conf.NNNNNN.lime, the last one equal to -o" {
    "$HMC" --beta 5.7 --lattice 4 --trajectories 4 --md-steps 3 --save-every 2 -o conf.lime 2>/dev/null
    [ -f conf.000002.lime ] && [ -f conf.000004.lime ] && [ -f conf.lime ]
    [ "$(ls | wc -l)" -eq 3 ]
    links conf.000004.lime > a.txt
    links conf.lime > b.txt
    cmp a.txt b.txt
    last_results conf.000002.lime | grep -q 'next_trajectory=2 '
}

@test "lat-hmc: an interrupted run leaves the previous file whole" {
    "$HMC" --beta 5.7 --lattice 4 --trajectories 1 --md-steps 2 -o a.lime 2>/dev/null
    cp a.lime before.lime
    "$HMC" --beta 5.7 --lattice 8 --trajectories 100000 --md-steps 10 -o a.lime 2>/dev/null &
    pid=$!
    sleep 1.5
    kill -TERM "$pid"
    run wait "$pid"
    [ "$status" -ne 0 ]
    cmp a.lime before.lime
    [ "$(ls -A | sort | tr '\n' ' ')" = "a.lime before.lime " ]
}

@test "lat-hmc: bad parameters: one line, exit 2, nothing written" {
    expect_error 2 lat-hmc -- "$HMC" --nf -1 --beta 5.7 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'beta' -- "$HMC" --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'beta' -- "$HMC" --beta 0 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'beta' -- "$HMC" --beta -1 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'mass' -- "$HMC" --beta 5.7 --mass -0.1 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'md-steps' -- "$HMC" --beta 5.7 --md-steps 0 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'tau' -- "$HMC" --beta 5.7 --tau 0 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'even' -- "$HMC" --beta 5.7 --lattice 5 -o o.lime
    expect_error 2 lat-hmc 'lattice' -- "$HMC" --beta 5.7 -o o.lime
    expect_error 2 lat-hmc -- "$HMC" --beta 5.7 --lattice 4 --nf 2 --mass 0.1 --device tpu -o o.lime
    expect_error 2 lat-hmc 'save-every' -- "$HMC" --beta 5.7 --lattice 4 --save-every 2
    expect_error 2 lat-hmc 'npf' -- "$HMC" --beta 5.7 --lattice 4 --npf 0 -o o.lime
    expect_error 2 lat-hmc -- "$HMC" --beta 5.7 --lattice 4 --precision single -o o.lime
    expect_clean
}

@test "lat-hmc: bad start files: one line, exit 1, nothing written" {
    "$BIN/lat-heatbath" --sweeps 0 --start hot --nc 2 --lattice 4 -o su2.lime
    expect_error 1 lat-hmc 'SU\(2\)' -- "$HMC" --beta 5.7 --start su2.lime -o o.lime
    printf 'not a configuration\n' > junk
    expect_error 1 lat-hmc -- "$HMC" --beta 5.7 --start junk -o o.lime
    expect_error 1 lat-hmc -- "$HMC" --beta 5.7 --start missing.lime -o o.lime
    expect_clean su2.lime junk
}

@test "lat-hmc --format json: the run's numbers, the plaquette as lat-measure gives it" {
    "$HMC" --beta 5.7 --lattice 4 --trajectories 2 --md-steps 3 --format json -o a.lime > r.json
    grep -q '"trajectories": *2' r.json
    grep -q '"next_trajectory": *2' r.json
    grep -q '"acceptance"' r.json && grep -q '"mean_dH"' r.json
    p=$(sed -n 's/.*"plaquette": *\([0-9.e+-]*\).*/\1/p' r.json | head -n 1)
    close "$p" "$(mval a.lime plaquette)" 1e-11
}

# the number after KEY= in the info line / history (first match)
kv() { grep -o "$1=[^ ]*" | head -n 1 | cut -d= -f2- | cut -d, -f1; }
# the error of the rational NAME (heatbath, metropolis, md) in a description
rerr() { grep -o "$1=x^([^ ]*" | head -n 1 | sed 's/.*error=//'; }

@test "lat-hmc --nf 2: RHMC, rational errors <= 1e-12 / 1e-6 printed and in the history, CG and condensate columns" {
    run --separate-stderr "$HMC" --nf 2 --mass 0.1 --beta 5.5 --lattice 4 --trajectories 3 --md-steps 6 --gauge-substeps 2 \
        --noise 2 --seed 3 --log l.tsv -o a.lime
    [ "$status" -eq 0 ]
    info=$(printf '%s\n' "$stderr" | grep 'nf = 2, npf = 1, m = 0.1: range=0.01,')
    for r in heatbath metropolis; do awk -v e="$(printf '%s' "$info" | rerr $r)" 'BEGIN { exit !(e > 0 && e <= 1e-12) }'; done
    awk -v e="$(printf '%s' "$info" | rerr md)" 'BEGIN { exit !(e > 0 && e <= 1e-6) }'
    printf '%s' "$info" | grep -q 'heatbath=x^(2/8),order=[1-9][0-9]*,.*metropolis=x^(-2/4),order=[1-9]'
    [ "$(wc -l < l.tsv)" -eq 4 ]
    # CG iterations > 0; the condensate finite, > 0 (Re Tr M^-1 = 2m Tr K^-1 > 0) and below the bound 3/m;
    # its noise error (2 vectors) positive and smaller than the condensate
    awk -F'\t' 'NR > 1 { if (!($8 > 0) || !($9 > 0 && $9 < 30) || !($16 > 0 && $16 < $9)) exit 1 }' l.tsv
    h=$(last_results a.lime)
    printf '%s' "$h" | grep -q 'nf=2 mass=0.1 npf=1 '
    printf '%s' "$h" | grep -q 'rhmc=1 '
    printf '%s' "$h" | grep -q 'mean_condensate=0\.[0-9]'
    awk -v e="$(printf '%s' "$h" | rerr metropolis)" 'BEGIN { exit !(e > 0 && e <= 1e-12) }'
}

@test "lat-hmc --nf 4: exact HMC by default, --rhmc rational; --nf 6 takes npf 2" {
    "$HMC" --nf 4 --mass 0.2 --beta 5.5 --lattice 4 --trajectories 1 --md-steps 4 --noise 0 -o a.lime 2> e.txt
    grep -q 'nf = 4, npf = 1, m = 0.2: exact_hmc=1' e.txt
    "$HMC" --nf 4 --rhmc --mass 0.2 --beta 5.5 --lattice 4 --trajectories 1 --md-steps 4 --noise 0 -o b.lime 2> e.txt
    grep -q 'heatbath=x^(4/8)' e.txt
    grep -q 'metropolis=x^(-4/4),order=1,' e.txt
    "$HMC" --nf 6 --mass 0.2 --beta 5.5 --lattice 4 --trajectories 1 --md-steps 4 --noise 0 -o c.lime 2> e.txt
    grep -q 'nf = 6, npf = 2, .*metropolis=x^(-6/8)' e.txt
    last_results c.lime | grep -q 'nf=6 mass=0.2 npf=2 '
}

@test "lat-hmc --nf 2: a range that lambda_max leaves is widened with one warning (--spectral-hi 1)" {
    run --separate-stderr "$HMC" --nf 2 --mass 0.1 --beta 5.5 --lattice 4 --start hot --trajectories 3 --md-steps 6 \
        --noise 0 --spectral-hi 1 -o a.lime
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$stderr" | grep -c 'left the range \[0.01, 1\]: widening')" -eq 1 ]
    [ "$(printf '%s\n' "$stderr" | grep -c 'warning')" -eq 1 ]
    h=$(last_results a.lime)
    [ "$(printf '%s' "$h" | kv range_refits)" -ge 1 ]
    awk -v e="$(printf '%s' "$h" | rerr metropolis)" 'BEGIN { exit !(e > 0 && e <= 1e-12) }'
}

@test "lat-hmc --nf 2 --precision mixed: the same bytes for 1 and 2 threads" {
    mkdir one two
    (cd one && OMP_NUM_THREADS=1 "$HMC" --nf 2 --mass 0.1 --beta 5.5 --lattice 4 --start hot --trajectories 2 --md-steps 5 --seed 4 --precision mixed --log l.tsv -o c.lime 2>/dev/null)
    (cd two && OMP_NUM_THREADS=2 "$HMC" --nf 2 --mass 0.1 --beta 5.5 --lattice 4 --start hot --trajectories 2 --md-steps 5 --seed 4 --precision mixed --log l.tsv -o c.lime 2>/dev/null)
    cmp one/c.lime two/c.lime
    cmp <(cut -f 1-9 one/l.tsv) <(cut -f 1-9 two/l.tsv)
}

@test "lat-hmc --nf: bad fermion parameters: one line, exit 2 (data: 1), nothing written" {
    expect_error 2 lat-hmc 'mass must be > 0' -- "$HMC" --nf 2 --beta 5.7 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'mass must be > 0' -- "$HMC" --nf 2 --mass 0 --beta 5.7 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'mass' -- "$HMC" --nf 2 --mass -0.1 --beta 5.7 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'nf' -- "$HMC" --nf -2 --mass 0.1 --beta 5.7 --lattice 4 -o o.lime
    # the power -6/4 is outside -1 <= p < 1, what the Remez algorithm fits
    expect_error 2 lat-hmc 'outside what the Remez algorithm fits' -- "$HMC" --nf 6 --npf 1 --mass 0.1 --beta 5.7 --lattice 4 -o o.lime
    expect_error 2 lat-hmc 'even' -- "$HMC" --nf 2 --mass 0.1 --beta 5.7 --lattice 4x4x4x5 -o o.lime
    expect_error 2 lat-hmc 'tol-md' -- "$HMC" --nf 2 --mass 0.1 --beta 5.7 --lattice 4 --tol-md 0 -o o.lime
    expect_error 2 lat-hmc 'tol-metropolis' -- "$HMC" --nf 2 --mass 0.1 --beta 5.7 --lattice 4 --tol-metropolis 1 -o o.lime
    expect_error 2 lat-hmc 'noise' -- "$HMC" --nf 2 --mass 0.1 --beta 5.7 --lattice 4 --noise -1 -o o.lime
    expect_error 2 lat-hmc 'spectral-hi' -- "$HMC" --nf 2 --mass 0.1 --beta 5.7 --lattice 4 --spectral-hi 0.001 -o o.lime
    "$BIN/lat-heatbath" --sweeps 0 --start hot --nc 2 --lattice 4 -o su2.lime
    expect_error 1 lat-hmc 'SU\(2\)' -- "$HMC" --nf 2 --mass 0.1 --beta 5.7 --start su2.lime -o o.lime
    expect_clean su2.lime
}

@test "lat-hmc --nf 2: on the unit field the condensate is the free momentum sum within 2 sigma" {
    # one 2MN step over tau 3 from the cold start is always rejected (checked), so every
    # measurement is on unit links; free value (3 m / V) sum_p 1 / (m^2 + sum_mu sin^2 p_mu),
    # p_t antiperiodic, m 0.1 on 4^4: 0.20353720083822 (python, 256 momenta)
    "$HMC" --nf 2 --mass 0.1 --beta 5.5 --lattice 4 --trajectories 10 --tau 3 --md-steps 1 --noise 64 --log l.tsv -o a.lime 2>/dev/null
    awk -F'\t' 'NR > 1 { n++; s += $9; s2 += $9 * $9; a += $7; if ($2 != 1) bad = 1 }
        END { m = s / n; e = sqrt((s2 / n - m * m) / (n - 1)); d = m - 0.20353720083822
              printf "condensate %.6f +- %.6f, free 0.203537, %.2f sigma\n", m, e, d / e
              exit !(n == 10 && a == 0 && !bad && e > 0 && d < 2 * e && -d < 2 * e) }' l.tsv
}

@test "lat-hmc --nf 2: an interrupted run leaves the last saved file and -o whole" {
    "$HMC" --nf 2 --mass 0.2 --beta 5.5 --lattice 4 --trajectories 1 --md-steps 3 --noise 0 -o a.lime 2>/dev/null
    cp a.lime before.lime
    "$HMC" --nf 2 --mass 0.2 --beta 5.5 --start a.lime --trajectories 100000 --md-steps 3 --noise 0 --save-every 1 -o a.lime 2>/dev/null &
    pid=$!
    # until the first file is saved (the rational fits alone take over a second on a loaded machine), then a little more
    for i in $(seq 300); do ls a.0*.lime > /dev/null 2>&1 && break; sleep 0.1; done
    sleep 0.3
    kill -TERM "$pid"
    run wait "$pid"
    [ "$status" -ne 0 ]
    cmp a.lime before.lime
    # the saved files are whole: each one reads, the last one included
    n=0
    for f in a.0*.lime; do "$BIN/lat-measure" -q "$f" > /dev/null; n=$((n + 1)); done
    [ "$n" -ge 1 ]
    [ -z "$(ls -A | grep -v -e '^a\.lime$' -e '^before\.lime$' -e '^a\.0[0-9]*\.lime$')" ]
}

@test "scripts/beta-scan-analyse: susceptibilities and the peak from synthetic logs; bad input one line, exit 2" {
    # |L| alternates between 0.1 and 0.3 at beta 5.2 only: chi_L = V_s * 0.01 there, 0 elsewhere, peak at 5.2;
    # the condensate 0.5 with noise error 0.1: <psibar psi> = (2/4) 0.5, chi_disc = (1/4) V (0.25 - 0.01 - 0.25) < 0
    for b in 5.1 5.2 5.3; do
        awk -v b=$b 'BEGIN { OFS = "\t"; print "trajectory", "plaquette", "polyakov_re", "polyakov_im", "dH", "exp_minus_dH", "accepted", "cg_iterations", "condensate", "condensate_error"
            for (t = 0; t < 40; t++) print t, 0.5, (b == 5.2 ? (t % 2 ? 0.3 : 0.1) : 0.2), 0, 0, 1, 1, 10, 0.5, 0.1 }' > log.$b.x.tsv
    done
    run "$ROOT/scripts/beta-scan-analyse" --lattice 4x4x4x2 --therm 0 --bins 4 log.5.1.x.tsv log.5.2.x.tsv log.5.3.x.tsv
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^# peak of chi_L: beta = 5.2000 '
    # columns: beta n acc exp(-dH) plaquette [tau] |L| [tau] chi_L psibar_psi [tau] chi_disc
    echo "$output" | awk 'function abs(x) { return x < 0 ? -x : x }
        $1 == "5.2000" { if (abs($9 - 0.64) > 1e-12) exit 1; f = 1 }
        $1 == "5.1000" { if (abs($9 + 0) > 1e-12) exit 1; g = 1 }
        $1 == "5.3000" { if ($10 + 0 != 0.25 || abs($12 + 0.32) > 1e-12) exit 1; h = 1 } END { exit !(f && g && h) }'
    run "$ROOT/scripts/beta-scan-analyse" --lattice 4x4 log.5.1.x.tsv
    [ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ]
    # a trajectory twice in one log: an error
    { cat log.5.1.x.tsv; tail -n 1 log.5.1.x.tsv; } > log.5.1.d.tsv
    run "$ROOT/scripts/beta-scan-analyse" --lattice 4x4x4x2 log.5.1.d.tsv
    [ "$status" -eq 2 ] && [[ "$output" == *"trajectory 39 appears twice"* ]]
    # a continuation from the configuration saved after trajectory 29: trajectories 30..45 replace the
    # first log's unsaved 30..39 (46 used, with a note), |L| 0.4 from 30 on
    awk 'BEGIN { OFS = "\t"; print "trajectory", "plaquette", "polyakov_re", "polyakov_im", "dH", "exp_minus_dH", "accepted", "cg_iterations", "condensate", "condensate_error"
        for (t = 30; t < 46; t++) print t, 0.5, 0.4, 0, 0, 1, 1, 10, 0.5, 0.1 }' > log.5.1.y.tsv
    run "$ROOT/scripts/beta-scan-analyse" --lattice 4x4x4x2 --therm 0 --bins 2 log.5.1.y.tsv log.5.1.x.tsv
    [ "$status" -eq 0 ]
    [[ "$output" == *"continues from trajectory 30: 10 unsaved trajectories of the log before dropped"* ]]
    echo "$output" | awk '$1 == "5.1000" { if ($2 != 46) exit 1; f = 1 } END { exit !f }'
}
