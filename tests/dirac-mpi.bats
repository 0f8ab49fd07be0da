#!/usr/bin/env bats
# dirac-mpi.bats -- the Wilson-clover operator, its solves, lat-propagator
# and lat-meson over MPI ranks (kernels/dirac on t-slabs): R = 1 (plain), 2
# and 4 ranks (4 oversubscribed on two cores) must give the same bits --
# the operator's applications (build/tests/test_dirac_mpi, which also checks
# each against one process's operator on rank 0), the propagator files and
# the meson reports.  Bad input stops every rank with one line.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"

setup_file() {
    lat_test_paths lat-heatbath lat-propagator lat-meson lat-overrelax || return 1
    export OMP_NUM_THREADS=1
    "$BIN/lat-heatbath" -q --start hot -b 5.8 -L 4x4x4x8 -n 5 -s 7 -o "$BATS_FILE_TMPDIR/hot.lime"
}

setup() { mpi_setup; }

# lat-propagator ARGS... -o p.lime in r1 (plain), r2, r4; the files compared
# byte for byte (the history holds the command line: the same in each)
prop_all_R() {
    mkdir -p r1 r2 r4
    (cd r1 && "$BIN/lat-propagator" -q "$@" -o p.lime)
    (cd r2 && mpi 2 "$BIN/lat-propagator" -q "$@" -o p.lime)
    (cd r4 && mpi 4 "$BIN/lat-propagator" -q "$@" -o p.lime)
    cmp r1/p.lime r2/p.lime
    cmp r1/p.lime r4/p.lime
}

@test "the operator on ranks: M, M^dag, Mhat, A, A^-1 (double, single), prepare/reconstruct, CG/BiCGstab solves: the same bits for R = 1, 2, 4" {
    run "$ROOT/build/tests/test_dirac_mpi"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q 'test_dirac_mpi: 38 passed, 0 failed'
    one=$(echo "$output" | grep '^csw ')
    [ "$(echo "$one" | wc -l)" -eq 32 ]
    for r in 2 4; do
        run mpi $r "$ROOT/build/tests/test_dirac_mpi"
        echo "$output"
        [ "$status" -eq 0 ]
        echo "$output" | grep -q 'test_dirac_mpi: 38 passed, 0 failed'
        [ "$(echo "$output" | grep '^csw ')" = "$one" ]
    done
}

@test "lat-propagator, Wilson-clover point source, CG double and BiCGstab mixed: files byte-identical for R = 1, 2, 4" {
    prop_all_R --kappa 0.12 --csw 1.5 --source point:1,2,3,5 --tol 1e-10 "$T/hot.lime"
    grep -a -q '<converged>yes</converged>' r4/p.lime
    rm -r r1 r2 r4
    prop_all_R --kappa 0.12 --csw 1.5 --source point:0,1,0,7 --solver bicgstab --precision mixed --tol 1e-10 "$T/hot.lime"
    grep -a -q '<converged>yes</converged>' r4/p.lime
    # the slabs' answer is a propagator: lat-meson's pion of the R = 4 file is positive at every t
    "$BIN/lat-meson" --format tsv r4/p.lime | awk -F'\t' '$1 == "pi" && $3 == 0 { n++; if (!($5 > 0)) bad++ } END { exit !(n == 8 && !bad) }'
}

@test "lat-propagator on standard input/output under mpirun, full-lattice CG with half sloppy: the same bytes as one process" {
    "$BIN/lat-propagator" -q --kappa 0.12 --csw 1.5 --no-eo --precision mixed --sloppy half --tol 1e-9 < "$T/hot.lime" > one.lime
    mpirun_stdin "$T/hot.lime" 4 "$BIN/lat-propagator" -q --kappa 0.12 --csw 1.5 --no-eo --precision mixed --sloppy half --tol 1e-9 > four.lime
    cmp one.lime four.lime
}

@test "lat-meson under mpirun: text, tsv and json reports of one and of two propagators identical for R = 1, 2, 4" {
    "$BIN/lat-propagator" -q --kappa 0.12 --csw 1.5 --source point:1,2,3,5 --tol 1e-10 "$T/hot.lime" -o a.lime
    "$BIN/lat-propagator" -q --kappa 0.115 --csw 1.5 --source point:1,2,3,5 --tol 1e-10 "$T/hot.lime" -o b.lime
    for f in text tsv json; do
        "$BIN/lat-meson" --format $f a.lime > m1
        "$BIN/lat-meson" --format $f a.lime b.lime > n1
        for r in 2 4; do
            mpi $r "$BIN/lat-meson" --format $f a.lime > m$r
            mpi $r "$BIN/lat-meson" --format $f a.lime b.lime > n$r
            cmp m1 m$r
            cmp n1 n$r
        done
        [ -s m1 ] && [ -s n1 ]
    done
    # the two-propagator pion differs from the one-propagator pion (kappa differs): the second file is used
    ! cmp -s m1 n1
}

@test "bad input under mpirun: R not dividing Lt, a missing file: one line, exit 1, no output, existing output untouched" {
    run mpi 3 "$BIN/lat-propagator" -q --kappa 0.12 "$T/hot.lime" -o x.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c '^lat-propagator:')" -eq 1 ]
    echo "$output" | grep -q '3 ranks do not divide the 8 timeslices'
    [ ! -e x.lime ]
    echo keep > out.lime
    run mpi 4 "$BIN/lat-propagator" -q --kappa 0.12 --source point:0,0,0,9 "$T/hot.lime" -o out.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c '^lat-propagator:')" -eq 1 ]
    echo "$output" | grep -q 't = 9 is outside the lattice'
    # a wall source on a configuration not in Coulomb gauge: refused on every rank alike
    run mpi 2 "$BIN/lat-propagator" -q --kappa 0.12 --source wall:3 "$T/hot.lime" -o out.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c '^lat-propagator:')" -eq 1 ]
    echo "$output" | grep -q 'wall source needs a Coulomb-gauge configuration'
    [ "$(cat out.lime)" = keep ]
    run mpi 2 "$BIN/lat-meson" missing.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c '^lat-meson:')" -eq 1 ]
    echo "$output" | grep -q 'missing.lime'
    run mpi 3 "$BIN/lat-meson" "$T/hot.lime"
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c '^lat-meson:')" -eq 1 ]
}

@test "lat-propagator, wall source on a Coulomb-gauge configuration: the same file on 1 and 4 ranks" {
    "$BIN/lat-overrelax" -q --gauge coulomb --theta 1e-13 "$T/hot.lime" -o coul.lime
    mkdir -p r1 r4
    (cd r1 && "$BIN/lat-propagator" -q --kappa 0.12 --csw 1.5 --source wall:6 --solver bicgstab --tol 1e-10 ../coul.lime -o w.lime)
    (cd r4 && mpi 4 "$BIN/lat-propagator" -q --kappa 0.12 --csw 1.5 --source wall:6 --solver bicgstab --tol 1e-10 ../coul.lime -o w.lime)
    cmp r1/w.lime r4/w.lime
    grep -a -q '<source>wall:6</source>' r4/w.lime
}
