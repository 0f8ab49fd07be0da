#!/usr/bin/env bats
# mpi.bats -- the programs under mpirun (common/comm.h, domain.h): the
# lattice cut into slabs of timeslices, R = 1, 2, 4 ranks (4 oversubscribed
# on CI's two cores).  Outputs must be bit-identical for every R (the same
# seed, counter-based random numbers, reductions in a fixed order); gauge
# invariance and convergence hold on ranks; a bad input or R not dividing
# Lt stops every rank with one line and writes nothing.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"

setup_file() {
    lat_test_paths lat-heatbath lat-randomize-orbit lat-overrelax lat-anneal lat-measure lat-unitarity lat-fourier lat-convert || return 1
    export OMP_NUM_THREADS=1
    local d="$BATS_FILE_TMPDIR"
    "$BIN/lat-heatbath" -q --beta 6.0 --lattice 4x4x4x8 --start hot --therm 20 --sweeps 0 --seed 4 -o "$d/c48.lime"
    "$BIN/lat-randomize-orbit" -q --seed 9 "$d/c48.lime" -o "$d/r48.lime"
}

setup() { mpi_setup; }

# run "PROGRAM ARGS... -o OUT" for R = 1 (plain), 2, 4 in directories
# r1, r2, r4 (the history records the command line, so names must agree)
# and compare the outputs byte for byte
same_for_all_R() { # OUTNAME PROGRAM ARGS...
    local out=$1
    shift
    mkdir -p r1 r2 r4
    (cd r1 && "$@" -o "$out")
    (cd r2 && mpi 2 "$@" -o "$out")
    (cd r4 && mpi 4 "$@" -o "$out")
    cmp r1/"$out" r2/"$out"
    cmp r1/"$out" r4/"$out"
}

@test "randomize-orbit: bit-identical on 1, 2 and 4 ranks, with the tracked transform" {
    same_for_all_R o.lime "$BIN/lat-randomize-orbit" -q --seed 5 --copy 2 --track-transform "$T/c48.lime"
}

@test "overrelax Landau: bit-identical on 1, 2 and 4 ranks and converged" {
    same_for_all_R o.lime "$BIN/lat-overrelax" -q --gauge landau --theta 1e-12 "$T/r48.lime"
    th=$(mval r4/o.lime theta --gauge landau)
    awk -v t="$th" 'BEGIN{exit !(t < 1e-12)}'
}

@test "overrelax Coulomb (per-timeslice freezing) and MAG: bit-identical on 1, 2 and 4 ranks" {
    same_for_all_R c.lime "$BIN/lat-overrelax" -q --gauge coulomb --theta 1e-11 "$T/r48.lime"
    same_for_all_R m.lime "$BIN/lat-overrelax" -q --gauge mag --theta 1e-9 "$T/r48.lime"
}

@test "lat-fourier Landau (transpose between slabs) and Coulomb, transform tracked: bit-identical on 1, 2 and 4 ranks" {
    same_for_all_R f.lime "$BIN/lat-fourier" -q --gauge landau --theta 1e-12 --track-transform "$T/r48.lime"
    th=$(mval r4/f.lime theta --gauge landau)
    awk -v t="$th" 'BEGIN{exit !(t < 1e-12)}'
    same_for_all_R c.lime "$BIN/lat-fourier" -q --gauge coulomb --theta 1e-12 --precision mixed "$T/r48.lime"
}

@test "Coulomb gauge exchanges nothing while it iterates, Landau does; Coulomb with the transform tracked is R-independent" {
    mpi 2 "$BIN/lat-overrelax" -v --gauge coulomb --theta 1e-11 "$T/r48.lime" -o c.lime 2> c.err
    grep -q 'halo exchange while iterating: 0 bytes' c.err
    mpi 2 "$BIN/lat-overrelax" -v --gauge landau --theta 1e-11 "$T/r48.lime" -o l.lime 2> l.err
    n=$(sed -n 's/.*halo exchange while iterating: \([0-9]*\) bytes.*/\1/p' l.err)
    [ "${n:-0}" -gt 0 ]
    same_for_all_R t.lime "$BIN/lat-overrelax" -q --gauge coulomb --theta 1e-11 --track-transform "$T/r48.lime"
    same_for_all_R a.lime "$BIN/lat-anneal" -q --gauge coulomb --steps 20 --tmax 2 --tmin 0.1 "$T/r48.lime"
    # the plaquette survives the time links' one move at the end
    p0=$(mval "$T/r48.lime" plaquette)
    p1=$(mval r2/t.lime plaquette)
    [ -n "$p0" ] && [ -n "$p1" ]
    awk -v a="$p0" -v b="$p1" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d < 1e-12)}'
}

@test "stochastic relaxation and single precision: bit-identical on 1, 2 and 4 ranks" {
    same_for_all_R s.lime "$BIN/lat-overrelax" -q --gauge landau --stochastic 0.3 --theta 1e-4 "$T/r48.lime"
    same_for_all_R f.lime "$BIN/lat-overrelax" -q --gauge landau --precision single --theta 1e-6 "$T/r48.lime"
}

@test "anneal: bit-identical on 1, 2 and 4 ranks (random numbers by global site)" {
    same_for_all_R a.lime "$BIN/lat-anneal" -q --gauge landau --steps 20 --micro 1 --seed 3 --track-transform "$T/r48.lime"
}

@test "heatbath: hot start, chain and --every files bit-identical on 1, 2 and 4 ranks" {
    same_for_all_R h.lime "$BIN/lat-heatbath" -q --beta 5.7 --lattice 4x4x4x8 --start hot --sweeps 3 --or 2 --seed 7
    for r in 1 2 4; do
        (cd r$r && if [ $r = 1 ]; then "$BIN/lat-heatbath" -q --beta 5.7 --start h.lime --sweeps 2 --every 1 --output-pattern 'c%02d.lime' --log l.tsv;
                   else mpi $r "$BIN/lat-heatbath" -q --beta 5.7 --start h.lime --sweeps 2 --every 1 --output-pattern 'c%02d.lime' --log l.tsv; fi)
    done
    for f in c04.lime c05.lime; do cmp r1/$f r2/$f; cmp r1/$f r4/$f; done
    # the log's measurements (not its seconds column) agree too
    cmp <(cut -f1-6 r1/l.tsv) <(cut -f1-6 r4/l.tsv)
    [ "$(wc -l < r4/l.tsv)" -eq 4 ]
}

@test "SU(2) heatbath in single precision: bit-identical on 1 and 4 ranks" {
    same_for_all_R h2.lime "$BIN/lat-heatbath" -q --beta 2.3 --nc 2 --lattice 4x4x4x8 --start cold --sweeps 2 --precision single --seed 2
}

@test "lat-measure and lat-unitarity: the same report on 1, 2, 4 and 8 ranks" {
    "$BIN/lat-measure" --format tsv --gauge coulomb "$T/r48.lime" > m1.tsv
    for r in 2 4 8; do
        mpi $r "$BIN/lat-measure" --format tsv --gauge coulomb "$T/r48.lime" > m$r.tsv
        cmp m1.tsv m$r.tsv
    done
    "$BIN/lat-unitarity" "$T/r48.lime" > u1.txt
    mpi 4 "$BIN/lat-unitarity" "$T/r48.lime" > u4.txt
    cmp u1.txt u4.txt
    same_for_all_R p.lime "$BIN/lat-unitarity" -q --reproject --file-precision 32 "$T/r48.lime"
}

@test "gauge invariance on ranks: plaquette and Polyakov loop unchanged by randomize-orbit + overrelax on 4 ranks" {
    mpi 4 "$BIN/lat-randomize-orbit" -q --seed 1 "$T/c48.lime" -o g.lime
    mpi 4 "$BIN/lat-overrelax" -q --gauge landau --theta 1e-12 g.lime -o f.lime
    for q in plaquette polyakov_re polyakov_im; do
        a=$(mval "$T/c48.lime" $q) b=$(mval f.lime $q)
        awk -v a="$a" -v b="$b" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d < 1e-12)}'
    done
}

@test "pipes under mpirun: rank 0 reads standard input and writes standard output" {
    mpirun_stdin "$T/c48.lime" 2 "$BIN/lat-randomize-orbit" -q --seed 5 > r.lime
    mpirun_stdin r.lime 4 "$BIN/lat-overrelax" -q --gauge landau --theta 1e-10 > p.lime
    "$BIN/lat-randomize-orbit" -q --seed 5 < "$T/c48.lime" | "$BIN/lat-overrelax" -q --gauge landau --theta 1e-10 > q.lime
    cmp p.lime q.lime
}

@test "R not dividing Lt: one line from rank 0, exit 1, nothing written" {
    run mpi 3 "$BIN/lat-overrelax" -q "$T/r48.lime" -o x.lime
    [ "$status" -ne 0 ]
    [ "$(echo "$output" | grep -c '^lat-overrelax:')" -eq 1 ]
    echo "$output" | grep -q '3 ranks do not divide the 8 timeslices'
    [ ! -e x.lime ]
}

@test "a bad input stops every rank: one line, non-zero exit, existing output untouched" {
    head -c 3000 "$T/r48.lime" > trunc.lime
    echo keep > out.lime
    run mpi 4 "$BIN/lat-overrelax" -q trunc.lime -o out.lime
    [ "$status" -ne 0 ]
    [ "$(echo "$output" | grep -c '^lat-overrelax:')" -eq 1 ]
    echo "$output" | grep -q 'trunc.lime: truncated'
    [ "$(cat out.lime)" = keep ]
    run mpi 2 "$BIN/lat-heatbath" -q --beta 6 --start trunc.lime -o h.lime
    [ "$status" -ne 0 ]
    [ "$(echo "$output" | grep -c '^lat-heatbath:')" -eq 1 ]
    [ ! -e h.lime ]
    # a usage error is reported once, not once per rank
    run mpi 4 "$BIN/lat-overrelax" --omega 7 "$T/r48.lime"
    [ "$status" -ne 0 ]
    [ "$(echo "$output" | grep -c '^lat-overrelax:')" -eq 1 ]
}

@test "one rank failing in the middle of a run (LAT_FAULT_AT) stops every rank: one lat line, exit 1, no output, no log" {
    echo keep > out.lime
    run mpi 2 -x LAT_FAULT_AT=1:7 "$BIN/lat-overrelax" -q --gauge landau --log l.tsv "$T/r48.lime" -o out.lime
    [ "$status" -ne 0 ]
    [ "$(echo "$output" | grep -c '^lat-overrelax:')" -eq 1 ]
    echo "$output" | grep -q 'rank 1: fault injected after 7 sweeps'
    [ "$(cat out.lime)" = keep ]
    [ ! -e l.tsv ]
    run mpi 2 -x LAT_FAULT_AT=1:7 "$BIN/lat-overrelax" -q --gauge landau "$T/r48.lime" -o new.lime
    [ "$status" -ne 0 ]
    [ ! -e new.lime ]
    [ -z "$(ls -A | grep -v -e '^out.lime$')" ] # no temporary left either
}

@test "--device gpu where no rank has a usable GPU: one line, exit 1, existing output untouched" {
    if nvidia-smi -L >/dev/null 2>&1; then skip "a GPU is present (make check-gpu covers the GPU ranks)"; fi
    echo keep > out.lime
    run mpi 2 "$BIN/lat-overrelax" -q --device gpu "$T/r48.lime" -o out.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c '^lat-overrelax:')" -eq 1 ]
    echo "$output" | grep -q -e 'no usable GPU' -e 'not built'
    [ "$(cat out.lime)" = keep ]
    run mpi 2 "$BIN/lat-heatbath" -q --device gpu --beta 6 -L 4x4x4x8 --start hot -n 1 -o h.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c '^lat-heatbath:')" -eq 1 ]
    [ ! -e h.lime ]
}

@test "MPI-IO: the ranks read a file's slabs themselves and verify the checksum together" {
    # one flipped byte in the middle of the binary record
    cp "$T/r48.lime" bad.lime
    printf '\001' | dd of=bad.lime bs=1 seek=150000 conv=notrunc 2>/dev/null
    run mpi 4 "$BIN/lat-measure" bad.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c '^lat-measure:')" -eq 1 ]
    echo "$output" | grep -Eq 'bad.lime: (scidac-checksum mismatch|ildg-binary-data: a non-finite)'
    # the serial reader finds the same
    run "$BIN/lat-measure" bad.lime
    [ "$status" -eq 1 ]
    # a file cut short inside the binary record
    head -c 200000 "$T/r48.lime" > cut.lime
    run mpi 2 "$BIN/lat-measure" cut.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c '^lat-measure:')" -eq 1 ]
    echo "$output" | grep -q 'cut.lime: truncated'
}

@test "MPI-IO: a file written by 4 ranks reads back the same with 1 and 2 ranks" {
    mpi 4 "$BIN/lat-overrelax" -q --gauge landau --theta 1e-10 "$T/r48.lime" -o w.lime
    "$BIN/lat-convert" --check w.lime
    "$BIN/lat-measure" --format tsv w.lime > s.tsv
    mpi 2 "$BIN/lat-measure" --format tsv w.lime > p.tsv
    cmp s.tsv p.tsv
}

@test "lat-convert is a one-process program: under mpirun rank 0 alone works" {
    mpi 2 "$BIN/lat-convert" --check "$T/r48.lime" > c.txt
    [ "$(grep -c 'checksum scidac' c.txt)" -eq 1 ]
    mpi 2 "$BIN/lat-convert" --to nersc "$T/r48.lime" -o n.nersc
    "$BIN/lat-convert" --to nersc "$T/r48.lime" -o m.nersc
    cmp n.nersc m.nersc
}

@test "GPU backends on slabs (gauge fixing, heatbath), kernels emulated on the host: R=1,2,4 bit-identical and equal to the CPU" {
    grep -q 'CUDA=1' "$ROOT/build/.config" || skip "built without CUDA"
    run "$ROOT/scripts/gpu-slab-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | grep -c 'identical: yes;.* ok$')" -eq 6 ]
}

@test "the halo of any field kind (spinor double, links single) and one named face, on 2 and 4 ranks" {
    for r in 2 4; do
        run mpi $r "$ROOT/build/tests/test_field"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$(echo "$output" | grep -c '4 passed, 0 failed')" -eq $r ]
    done
}
