#!/usr/bin/env bats
# hmc-mpi.bats -- lat-hmc over MPI ranks (issue 16): the gauge field cut into
# t-slabs, R = 1 (plain), 2 and 4 ranks (4 oversubscribed on two cores) must
# give the same output configuration byte for byte, the same log lines (all
# but the seconds column) and the same report, for N_f = 0, N_f = 4 exact HMC
# (npf 1) and N_f = 2 RHMC on 4^3x8 (Lt/R >= 2), a continuation across rank
# counts, standard output, and two threads per rank (N_f = 2 on 8^3x4).  Bad input stops every
# rank with one line.  --split pseudofermions (every rank a whole lattice,
# the pseudofermion fields shared out): one process's bytes.  The pieces on slabs (forces, actions, the staggered
# operator) against one process: build/tests/test_hmc_mpi.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"

setup_file() {
    lat_test_paths lat-hmc lat-measure lat-convert || return 1
    export OMP_NUM_THREADS=1
}

setup() { mpi_setup; }

# lat-hmc ARGS... --log h.log -o h.lime --format json in r1 (plain), r2, r4;
# files, logs (without the seconds columns) and reports (without the "seconds*" keys)
# compared (the history holds the command line: the same in each)
hmc_all_R() {
    mkdir -p r1 r2 r4
    (cd r1 && "$BIN/lat-hmc" -q "$@" --log h.log -o h.lime --format json > rep.json)
    (cd r2 && mpi 2 "$BIN/lat-hmc" -q "$@" --log h.log -o h.lime --format json > rep.json)
    (cd r4 && mpi 4 "$BIN/lat-hmc" -q "$@" --log h.log -o h.lime --format json > rep.json)
    for r in 2 4; do
        cmp r1/h.lime r$r/h.lime
        diff <(cut -f 1-9 r1/h.log) <(cut -f 1-9 r$r/h.log)
        diff <(grep -v '"seconds' r1/rep.json) <(grep -v '"seconds' r$r/rep.json)
    done
    cat r1/h.log
}

@test "the pieces on slabs (momenta, energies, gauge and staggered forces and actions, the operator, solves): one process's bits on R = 2, 4" {
    [ -x "$ROOT/build/tests/test_hmc_mpi" ] || skip "build/tests/test_hmc_mpi not built"
    run "$ROOT/build/tests/test_hmc_mpi"
    echo "$output"
    [ "$status" -eq 0 ]
    one=$(echo "$output" | grep '^value ')
    [ -n "$one" ]
    for r in 2 4; do
        run mpi $r "$ROOT/build/tests/test_hmc_mpi"
        echo "$output"
        [ "$status" -eq 0 ]
        echo "$output" | grep -q 'test_hmc_mpi: [0-9]* passed, 0 failed'
        [ "$(echo "$output" | grep '^value ')" = "$one" ]
    done
}

@test "lat-hmc N_f = 0, hot 4^3x8, 3 trajectories: files, log lines and reports the same for R = 1, 2, 4" {
    hmc_all_R --beta 5.7 --lattice 4x4x4x8 --start hot --trajectories 3 --md-steps 4 --seed 3
    [ "$(wc -l < r4/h.log)" -eq 4 ]
    # the plaquette moved off the hot start's and every rank count agrees with lat-measure
    p=$("$BIN/lat-measure" --format tsv r4/h.lime | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "plaquette") c = i } NR == 2 { print $c }')
    [ -n "$p" ]
    awk -v p="$p" -F'\t' 'END { d = $2 - p; exit !(d * d < 1e-22 && p > 0.2) }' r1/h.log
}

@test "lat-hmc N_f = 4 exact HMC (npf 1) and N_f = 2 RHMC, 4^3x8: files, logs and reports the same for R = 1, 2, 4" {
    hmc_all_R --beta 5.6 --lattice 4x4x4x8 --start hot --nf 4 --mass 0.4 --trajectories 2 --md-steps 4 --noise 2
    grep -a -q 'exact_hmc=1' r4/h.lime
    # CG iterations and condensates were there to compare
    awk -F'\t' 'NR > 1 && !($8 > 0 && $9 > 0) { bad = 1 } END { exit bad }' r1/h.log
    rm -r r1 r2 r4
    hmc_all_R --beta 5.6 --lattice 4x4x4x8 --start hot --nf 2 --mass 0.5 --trajectories 2 --md-steps 4 --noise 2 --precision mixed
    grep -a -q 'rhmc=1' r4/h.lime
    awk -F'\t' 'NR > 1 && !($8 > 0 && $9 > 0) { bad = 1 } END { exit bad }' r1/h.log
}

@test "lat-hmc continued on another rank count, to standard output, two threads a rank: the bytes of one run" {
    # 1 + 1 trajectories on 2 then 4 ranks = 2 on one process (the history differs: compare the
    # links); --spectral-hi 20 (above the bound m^2 + 16): the same rationals in both parts
    F="--nf 2 --mass 0.5 --spectral-hi 20 --md-steps 3 --noise 0"
    "$BIN/lat-hmc" -q --beta 5.6 --lattice 4x4x4x8 --start hot $F --trajectories 2 -o one.lime
    mpi 2 "$BIN/lat-hmc" -q --beta 5.6 --lattice 4x4x4x8 --start hot $F --trajectories 1 -o a.lime
    mpi 4 "$BIN/lat-hmc" -q --beta 5.6 --start a.lime $F --trajectories 1 -o b.lime
    grep -a -q 'first_trajectory=1 .*next_trajectory=2' b.lime
    # the links as NERSC 3x3 in 64 bits: the last 512 sites x 4 links x 18 reals x 8 bytes
    "$BIN/lat-convert" -q --to nersc --3x3 one.lime -o one.nersc
    "$BIN/lat-convert" -q --to nersc --3x3 b.lime -o b.nersc
    cmp <(tail -c 294912 one.nersc) <(tail -c 294912 b.nersc)
    # standard output under mpirun, and OMP_NUM_THREADS=2 on each of 2 ranks: the same file
    "$BIN/lat-hmc" -q --beta 5.7 --lattice 4x4x4x8 --start hot --trajectories 2 --md-steps 3 > s1.lime
    mpi 4 "$BIN/lat-hmc" -q --beta 5.7 --lattice 4x4x4x8 --start hot --trajectories 2 --md-steps 3 > s4.lime
    cmp s1.lime s4.lime
    # 8^3x4 (1024 owned sites a rank: the staggered site loops run threaded), N_f = 2 mixed
    F="--beta 5.6 --lattice 8x8x8x4 --start hot --nf 2 --mass 0.3 --trajectories 1 --md-steps 2 --noise 1 --precision mixed"
    "$BIN/lat-hmc" -q $F > t1.lime
    OMP_NUM_THREADS=2 mpi 2 "$BIN/lat-hmc" -q $F > t2.lime
    cmp t1.lime t2.lime
}

@test "lat-hmc under mpirun, bad input: one line, the same exit status, nothing written" {
    # 3 ranks do not divide Lt = 8
    run --separate-stderr mpi 3 "$BIN/lat-hmc" --beta 5.7 --lattice 4x4x4x8 -o o.lime
    echo "$stderr"
    [ "$status" -eq 1 ]
    [ "$(echo "$stderr" | grep -c 'lat-hmc')" -eq 1 ]
    run --separate-stderr mpi 2 "$BIN/lat-hmc" --beta -1 --lattice 4x4x4x8 -o o.lime
    [ "$status" -eq 2 ]
    [ "$(echo "$stderr" | grep -c 'beta must be positive')" -eq 1 ]
    run --separate-stderr mpi 2 "$BIN/lat-hmc" --beta 5.7 --lattice 4x4x4x8 --log no/such/dir/h.log -o o.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$stderr" | grep -c 'cannot open the log')" -eq 1 ]
    ls -A
    [ ! -e o.lime ] && [ -z "$(ls -A | grep 'o\.lime\|h\.log')" ]
}

@test "lat-hmc --device gpu under mpirun with an odd number of timeslices per rank: one line, exit 1, nothing written" {
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr mpi 2 "$BIN/lat-hmc" --device gpu --beta 5.6 --lattice 4x4x4x2 --nf 2 --mass 0.1 --log h.log -o h.lime
    echo "$stderr"
    [ "$status" -eq 1 ]
    [ "$(printf '%s\n' "$stderr" | grep -c '^lat-hmc: ')" -eq 1 ]
    printf '%s\n' "$stderr" | grep -q 'even number of timeslices per rank (2 / 2 ranks = 1)'
    [ ! -e h.lime ] && [ ! -e h.log ]
}

@test "lat-hmc --split pseudofermions: R = 2 ranks (a whole lattice each, field k on rank k mod 2) give one process's file, log and report" {
    # npf 2 (one field a rank) and npf 3 (the second round one rank's alone), RHMC and exact HMC
    for F in "--nf 2 --npf 2 --mass 0.3" "--nf 2 --npf 3 --mass 0.3 --precision mixed" "--nf 8 --npf 2 --mass 0.5"; do
        rm -rf r1 r2 && mkdir -p r1 r2
        A="--beta 5.6 --lattice 4x4x4x8 --start hot --trajectories 2 --md-steps 3 --noise 2 $F"
        (cd r1 && "$BIN/lat-hmc" -q $A --log h.log -o h.lime --format json > rep.json)
        (cd r2 && mpi 2 "$BIN/lat-hmc" -q $A --split pseudofermions --log h.log -o h.lime --format json > rep.json)
        # the links (the history holds the command line, which differs): NERSC 3x3 in 64 bits, the last
        # 512 sites x 4 links x 18 reals x 8 bytes
        "$BIN/lat-convert" -q --to nersc --3x3 r1/h.lime -o r1/h.nersc
        "$BIN/lat-convert" -q --to nersc --3x3 r2/h.lime -o r2/h.nersc
        cmp <(tail -c 294912 r1/h.nersc) <(tail -c 294912 r2/h.nersc)
        diff <(cut -f 1-9 r1/h.log) <(cut -f 1-9 r2/h.log)
        diff <(grep -v '"seconds' r1/rep.json) <(grep -v '"seconds' r2/rep.json)
        # solver iterations (every rank's) and condensates were there to compare
        awk -F'\t' 'NR > 1 && !($8 > 0 && $9 != 0) { bad = 1 } END { exit bad || NR != 3 }' r1/h.log
    done
    # the split is the t-slab's business no more: 3 ranks, Lt = 8, npf 3
    mpi 3 "$BIN/lat-hmc" -q --beta 5.6 --lattice 4x4x4x8 --start hot --trajectories 1 --md-steps 2 --noise 0 --nf 3 --npf 3 --mass 0.4 --split pseudofermions -o s3.lime
    "$BIN/lat-hmc" -q --beta 5.6 --lattice 4x4x4x8 --start hot --trajectories 1 --md-steps 2 --noise 0 --nf 3 --npf 3 --mass 0.4 -o s1.lime
    "$BIN/lat-convert" -q --to nersc --3x3 s1.lime -o s1.nersc
    "$BIN/lat-convert" -q --to nersc --3x3 s3.lime -o s3.nersc
    cmp <(tail -c 294912 s1.nersc) <(tail -c 294912 s3.nersc)
}

@test "lat-hmc --split pseudofermions with fewer fields than ranks, or without fermions: one line, exit 2; a bad start or log: one line, exit 1; nothing written" {
    run --separate-stderr mpi 2 "$BIN/lat-hmc" --beta 5.6 --lattice 4x4x4x8 --nf 2 --mass 0.3 --split pseudofermions -o o.lime
    echo "$stderr"
    [ "$status" -eq 2 ]
    [ "$(echo "$stderr" | grep -c 'split pseudofermions: 2 ranks need --npf 2 or more (got 1)')" -eq 1 ]
    run --separate-stderr mpi 2 "$BIN/lat-hmc" --beta 5.6 --lattice 4x4x4x8 --split pseudofermions -o o.lime
    [ "$status" -eq 2 ]
    [ "$(echo "$stderr" | grep -c 'needs staggered fermions')" -eq 1 ]
    # an input every replica reads and refuses alike, and a log only the first opens: one line, exit 1
    echo garbage > bad.lime
    for a in "--start bad.lime" "--start no-such.lime" "--lattice 4x4x4x8 --log no/such/dir/h.log"; do
        run --separate-stderr mpi 2 "$BIN/lat-hmc" -q --beta 5.6 $a --nf 2 --npf 2 --mass 0.3 --split pseudofermions -o o.lime
        echo "$stderr"
        [ "$status" -eq 1 ]
        [ "$(echo "$stderr" | grep -c '^lat-hmc: ')" -eq 1 ]
    done
    [ ! -e o.lime ]
}
