#!/usr/bin/env bats
# propagator.bats -- lat-propagator and lat-meson (issue 15) on 4^3x8:
#   - free field: the file, read by the independent reader tests/propagator.py
#     (LIME framing, QIO XML, SciDAC checksums with zlib), equals the analytic
#     momentum-space Wilson propagator computed there, to 1e-12, periodic and
#     antiperiodic, point source at and off the origin, 64- and 32-bit files;
#     the free pion C(t) of lat-meson equals the analytic one;
#   - gauge covariance: on a configuration moved by lat-randomize-orbit
#     --track-transform, S'(x,0) = g(x) S(x,0) g(0)^dag to 1e-10, and every
#     meson correlator unchanged to 1e-10;
#   - CG and BiCGstab, even-odd and full solves agree to the tolerance; the
#     true residuals of the report are <= --tol; mixed double-single and
#     double-half reach it in <= 1.3x the iterations of double;
#   - a wall source on a Coulomb-gauge configuration, refused on another;
#   - bad input: one line, the right exit status, no output file.

bats_require_minimum_version 1.5.0

setup_file() {
    B="$BATS_TEST_DIRNAME/../bin"
    G="$BATS_FILE_TMPDIR"
    export LAT_DEVICE=cpu
    "$B/lat-heatbath" -q --start cold -L 4x4x4x8 -n 0 -o "$G/unit.lime"
    "$B/lat-heatbath" -q --start hot -b 5.8 -L 4x4x4x8 -n 5 -s 7 -o "$G/hot.lime"
}

setup() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
    BIN="$ROOT/bin"
    PY="$ROOT/tests/propagator.py"
    G="$BATS_FILE_TMPDIR"
    T="$BATS_TEST_TMPDIR"
    export LAT_DEVICE=cpu OMP_NUM_THREADS=1
    source "$ROOT/tests/common.bash"
}

# a key of a one-line json report
jget() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(" ".join(map(str,v)) if isinstance(v,list) else v)' "$1" "$2"; }

@test "free field: the propagator file equals the analytic Wilson propagator to 1e-12 (periodic, antiperiodic, off-origin source, 32-bit file)" {
    "$BIN/lat-propagator" -q --kappa 0.11 --bc p,p,p,p "$G/unit.lime" -o "$T/per.lime"
    run python3 "$PY" free "$T/per.lime" 0.11 p,p,p,p
    echo "periodic: $output"
    [ "$status" -eq 0 ]
    less "$output" 1e-12
    "$BIN/lat-propagator" -q --kappa 0.124 --csw 1.769 --source point:1,2,3,5 "$G/unit.lime" -o "$T/anti.lime"
    run python3 "$PY" free "$T/anti.lime" 0.124 p,p,p,a
    echo "antiperiodic, clover term (zero on the unit field), source 1,2,3,5: $output"
    [ "$status" -eq 0 ]
    less "$output" 1e-12
    run python3 "$PY" read "$T/anti.lime"
    [ "$output" = "lattice=4x4x4x8 nc=3 prec=64 sources=1 first=1,2,3,5" ]
    "$BIN/lat-propagator" -q --kappa 0.124 --file-precision 32 "$G/unit.lime" -o "$T/f.lime"
    run python3 "$PY" free "$T/f.lime" 0.124 p,p,p,a
    echo "32-bit file: $output"
    [ "$status" -eq 0 ]
    less "$output" 1e-6
}

@test "free field: lat-meson's pion C(t) equals the analytic free one" {
    "$BIN/lat-propagator" -q --kappa 0.12 --source point:0,1,0,3 "$G/unit.lime" -o "$T/p.lime"
    want=$(python3 "$PY" freepion 4x4x4x8 0.12 p,p,p,a 0,1,0,3)
    got=$("$BIN/lat-meson" --format tsv "$T/p.lime" | awk -F'\t' '$1 == "pi" && $3 == 0 { printf "%s ", $5 }')
    echo "analytic: $want"
    echo "lat-meson: $got"
    python3 -c '
import sys
w = [float(v) for v in sys.argv[1].split()]; g = [float(v) for v in sys.argv[2].split()]
assert len(w) == len(g) == 8
assert all(v > 0 for v in g)
assert max(abs(a - b) / a for a, b in zip(w, g)) < 1e-12' "$want" "$got"
}

@test "gauge covariance: S'(x,0) = g(x) S(x,0) g(0)^dag to 1e-10, meson correlators unchanged" {
    "$BIN/lat-randomize-orbit" -q --seed 3 --track-transform "$G/hot.lime" -o "$T/rot.lime"
    "$BIN/lat-convert" -q --extract-transform "$T/g.lime" "$T/rot.lime" -o /dev/null
    "$BIN/lat-propagator" -q --kappa 0.12 --csw 1.0 "$G/hot.lime" -o "$T/s.lime"
    "$BIN/lat-propagator" -q --kappa 0.12 --csw 1.0 "$T/rot.lime" -o "$T/s2.lime"
    run python3 "$PY" covariance "$T/s.lime" "$T/s2.lime" "$T/g.lime"
    echo "max |S' - g S g(0)^dag|, max |S|: $output"
    [ "$status" -eq 0 ]
    less "${output%% *}" 1e-10
    "$BIN/lat-meson" --format tsv "$T/s.lime" > "$T/m1.tsv"
    "$BIN/lat-meson" --format tsv "$T/s2.lime" > "$T/m2.tsv"
    paste "$T/m1.tsv" "$T/m2.tsv" | awk -F'\t' 'NR > 1 { d = $5 - $12; if (d < 0) d = -d; s = $5 < 0 ? -$5 : $5; if (s < 1e-300) s = 1e-300; if (d / s > m) m = d / s; n++ }
        END { printf "%d values, largest relative change %.3e\n", n, m; exit !(n == 6 * 2 * 8 && m < 1e-10) }'
}

@test "CG and BiCGstab, even-odd and full solves agree; true residuals <= --tol" {
    for s in cg bicgstab; do
        for eo in "" --no-eo; do
            "$BIN/lat-propagator" -q --kappa 0.12 --csw 1.2 --solver $s $eo --tol 1e-12 --format json "$G/hot.lime" \
                -o "$T/$s$eo.lime" > "$T/$s$eo.json"
            run jget "$T/$s$eo.json" true_residuals
            echo "$s $eo: $output"
            for r in $output; do less "$r" 1e-12; done
            [ "$(jget "$T/$s$eo.json" converged)" = True ]
        done
    done
    for f in cg--no-eo bicgstab bicgstab--no-eo; do
        run python3 "$PY" diff "$T/cg.lime" "$T/$f.lime"
        echo "cg vs $f: $output"
        less "$output" 1e-10
    done
}

@test "mixed precision (single and half sloppy) reaches the tolerance in <= 1.3x the iterations of double" {
    "$BIN/lat-propagator" -q --kappa 0.12 --format json "$G/hot.lime" -o "$T/d.lime" > "$T/d.json"
    nd=$(jget "$T/d.json" iterations_total)
    for sl in single half; do
        "$BIN/lat-propagator" -q --kappa 0.12 --precision mixed --sloppy $sl --format json "$G/hot.lime" -o "$T/$sl.lime" > "$T/$sl.json"
        n=$(jget "$T/$sl.json" iterations_total)
        echo "double $nd iterations, mixed $sl $n: ratio $(awk -v a=$n -v b=$nd 'BEGIN { printf "%.3f", a / b }')"
        awk -v a=$n -v b=$nd 'BEGIN { exit !(a <= 1.3 * b) }'
        for r in $(jget "$T/$sl.json" true_residuals); do less "$r" 1e-12; done
    done
}

@test "--log: every column's solver steps, its last one a true residual, its iterations those of the report; the propagator the same with and without --log" {
    "$BIN/lat-propagator" -q --kappa 0.12 --precision mixed --sloppy half --format json "$G/hot.lime" -o "$T/a.lime" > "$T/a.json"
    "$BIN/lat-propagator" -q --kappa 0.12 --precision mixed --sloppy half --log "$T/l.tsv" --format json "$G/hot.lime" -o "$T/b.lime" > "$T/b.json"
    # the same propagator (the files' provenance differs: it records the command line)
    [ "$("$BIN/lat-meson" --format tsv "$T/a.lime")" = "$("$BIN/lat-meson" --format tsv "$T/b.lime")" ]
    [ "$(head -1 "$T/l.tsv")" = "$(printf 'column\titeration\treliable\tresidual')" ]
    # per column: the largest iteration, the last row's reliable flag, the rows
    awk -F'\t' 'NR > 1 { if ($2 > it[$1]) it[$1] = $2; last[$1] = $3; n[$1]++ }
        END { for (k = 0; k < 12; k++) printf "%d %d %d %d\n", k, it[k], last[k], n[k] }' "$T/l.tsv" > "$T/cols"
    cat "$T/cols"
    read -r -a iters <<< "$(jget "$T/b.json" iterations)"
    [ "${#iters[@]}" -eq 12 ]
    while read -r k it last n; do
        [ "$it" -eq "${iters[$k]}" ] && [ "$last" -eq 1 ] && [ "$n" -gt "$it" ]
    done < "$T/cols"
    # --log - with the propagator on standard output: refused
    run -2 "$BIN/lat-propagator" -q --kappa 0.12 --log - "$G/hot.lime"
    [ "${#lines[@]}" -eq 1 ]
}

@test "--reliable-delta: more true residuals the larger it is, the tolerance reached, recorded in the history; refused outside (0, 1) and without mixed" {
    for d in 0.5 0.01; do
        "$BIN/lat-propagator" -q --kappa 0.12 --precision mixed --sloppy half --reliable-delta $d --tol 1e-10 --log "$T/l$d.tsv" \
            --format json "$G/hot.lime" -o "$T/p$d.lime" > "$T/r$d.json"
        [ "$(jget "$T/r$d.json" converged)" = True ]
    done
    n5=$(awk -F'\t' 'NR > 1 && $3 == 1' "$T/l0.5.tsv" | wc -l)
    n01=$(awk -F'\t' 'NR > 1 && $3 == 1' "$T/l0.01.tsv" | wc -l)
    echo "reliable updates: delta 0.5 $n5, delta 0.01 $n01"
    [ "$n5" -gt "$n01" ]
    grep -a -q 'reliable_delta=0.5 ' "$T/p0.5.lime"
    run -2 "$BIN/lat-propagator" -q --kappa 0.12 --precision mixed --reliable-delta 1 "$G/hot.lime"
    [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *"must be in (0, 1)"* ]]
    run -2 "$BIN/lat-propagator" -q --kappa 0.12 --reliable-delta 0.2 "$G/hot.lime"
    [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *"applies to --precision mixed only"* ]]
}

@test "wall source: accepted on a Coulomb-gauge configuration, refused (exit 1, no file) on another" {
    "$BIN/lat-overrelax" -q --gauge coulomb --omega 1.7 --theta 1e-13 "$G/hot.lime" -o "$T/coul.lime"
    "$BIN/lat-propagator" -q --kappa 0.12 --source wall:2 "$T/coul.lime" -o "$T/w.lime"
    run python3 "$PY" read "$T/w.lime"
    [ "$output" = "lattice=4x4x4x8 nc=3 prec=64 sources=64 first=0,0,0,2" ]
    run "$BIN/lat-meson" --format json "$T/w.lime"
    [[ "$output" == *'"source": "wall:2"'* ]]
    expect_error 1 lat-propagator -- "$BIN/lat-propagator" --kappa 0.12 --source wall:2 "$G/hot.lime" -o "$T/x.lime"
    [[ "$stderr" == *"Coulomb"* ]]
    [ ! -e "$T/x.lime" ]
}

@test "lat-meson on propagator files encoded by tests/propagator.py (free field): pion = analytic C(t), every channel and momentum = propagator.py's contraction; truncated or corrupted copies refused" {
    python3 "$PY" writefree "$T/py.lime" 4x4x4x8 0.12 p,p,p,a 0,1,0,3
    want=$(python3 "$PY" freepion 4x4x4x8 0.12 p,p,p,a 0,1,0,3)
    got=$("$BIN/lat-meson" --format tsv "$T/py.lime" | awk -F'\t' '$1 == "pi" && $3 == 0 { printf "%s ", $5 }')
    echo "analytic: $want"
    echo "lat-meson: $got"
    python3 -c '
import sys
w = [float(v) for v in sys.argv[1].split()]; g = [float(v) for v in sys.argv[2].split()]
assert len(w) == len(g) == 8
assert max(abs(a - b) / a for a, b in zip(w, g)) < 1e-12' "$want" "$got"
    run "$BIN/lat-meson" --format json "$T/py.lime"
    [[ "$output" == *'"source": "point:0,1,0,3"'* ]]
    # every channel, p = 0 and |p|^2 = 1, against the 12x12 matrix products of propagator.py (4x2x2x4, source 1,0,1,2)
    python3 "$PY" writefree "$T/small.lime" 4x2x2x4 0.12 p,p,p,a 1,0,1,2
    python3 "$PY" mesons "$T/small.lime" | sort > "$T/py.tsv"
    "$BIN/lat-meson" --format tsv "$T/small.lime" | awk -F'\t' 'NR > 1 { k = $1 "\t" $3; a[k] = a[k] (a[k] == "" ? "" : " ") $5 }
        END { for (k in a) print k "\t" a[k] }' | sort > "$T/lat.tsv"
    python3 -c '
import sys
rows = lambda f: {tuple(l.split("\t")[:2]): [float(v) for v in l.split("\t")[2].split()] for l in open(f)}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert sorted(a) == sorted(b) and len(a) == 12, (sorted(a), sorted(b))
err = max(abs(x - y) / max(abs(x), 1e-300) for k in a for x, y in zip(a[k], b[k]))
print("12 correlators x 4 t, largest relative difference %.2e" % err)
assert err < 1e-12' "$T/lat.tsv" "$T/py.tsv"
    head -c 1500000 "$T/py.lime" > "$T/cut.prop"
    expect_error 1 lat-meson -- "$BIN/lat-meson" "$T/cut.prop"
    python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 1; open(sys.argv[2], "wb").write(b)' "$T/py.lime" "$T/flip.prop"
    expect_error 1 lat-meson -- "$BIN/lat-meson" "$T/flip.prop"
    [[ "$stderr" == *"checksum mismatch"* ]]
}

@test "a file lat writes (io/propagator.c through build/tests/test_propagator) reads back with propagator.py: framing, checksums, values" {
    [ -x "$ROOT/build/tests/test_propagator" ] || skip "build/tests/test_propagator is not built (make)"
    "$ROOT/build/tests/test_propagator" "$T/c.lime"
    run python3 "$PY" pattern "$T/c.lime"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == "[4, 2, 2, 4] [1, 0, 1, 2] 0.000e+00 <latPropagator><test>pattern</test></latPropagator>" ]]
}

@test "1 and 2 threads: the same hot start, the same propagator bytes (the encoder and checksums share the sites out); propagator.py reads the file" {
    # 8x4x4x8 = 1024 sites: the size from which the hot start, the readers'
    # and writers' chunks (io/confio.h: scidac_code_chunk) go to the threads
    export SOURCE_DATE_EPOCH=1
    mkdir "$T/one" "$T/two"
    for n in one two; do
        t=1; [ $n = two ] && t=2
        (cd "$T/$n" && OMP_NUM_THREADS=$t "$BIN/lat-heatbath" -q --start hot -b 5.8 -L 8x4x4x8 -n 0 -s 11 -o c.lime &&
            OMP_NUM_THREADS=$t "$BIN/lat-propagator" -q --kappa 0.12 --csw 1.769 --tol 1e-8 -o p.lime c.lime)
    done
    cmp "$T/one/c.lime" "$T/two/c.lime"
    cmp "$T/one/p.lime" "$T/two/p.lime"
    run python3 "$PY" read "$T/two/p.lime"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "lattice=8x4x4x8 nc=3 prec=64 sources=1 first=0,0,0,0" ]
}

@test "a spoilt source with valid checksums: the first bad value in file order is named, on 1 and 2 threads (1024 sites: the threaded check)" {
    # real 5 of the spin-0 colour-0 source: NaN at one site, 0.5 at another
    python3 "$PY" writefree "$T/a.lime" 4x4x4x16 0 p,p,p,a 0,0,0,0 half@300,nan@900
    python3 "$PY" writefree "$T/b.lime" 4x4x4x16 0 p,p,p,a 0,0,0,0 half@900,nan@300
    python3 "$PY" writefree "$T/ok.lime" 4x4x4x16 0 p,p,p,a 0,0,0,0
    "$BIN/lat-meson" "$T/ok.lime" > /dev/null
    for t in 1 2; do
        export OMP_NUM_THREADS=$t
        expect_error 1 lat-meson -- "$BIN/lat-meson" "$T/a.lime"
        [[ "$stderr" == *"the source of spin 0 colour 0 is not a unit source (site 300)"* ]]
        expect_error 1 lat-meson -- "$BIN/lat-meson" "$T/b.lime"
        [[ "$stderr" == *"non-finite number in the source of spin 0 colour 0"* ]]
    done
}

@test "bad input: one line, the right exit status, no partial output" {
    echo keep > "$T/old.lime"
    expect_error 2 lat-propagator -- "$BIN/lat-propagator" --kappa 0 "$G/hot.lime" -o "$T/old.lime"
    expect_error 2 lat-propagator -- "$BIN/lat-propagator" --kappa -0.1 "$G/hot.lime" -o "$T/old.lime"
    expect_error 2 lat-propagator -- "$BIN/lat-propagator" "$G/hot.lime" -o "$T/old.lime"
    expect_error 2 lat-propagator -- "$BIN/lat-propagator" --kappa 0.1 --bc p,p,x,a "$G/hot.lime" -o "$T/old.lime"
    expect_error 1 lat-propagator -- "$BIN/lat-propagator" --kappa 0.1 --source point:0,0,4,0 "$G/hot.lime" -o "$T/old.lime"
    [[ "$stderr" == *"outside the lattice"* ]]
    expect_error 1 lat-propagator -- "$BIN/lat-propagator" --kappa 0.1 --source wall:8 "$G/hot.lime" -o "$T/old.lime"
    head -c 100000 "$G/hot.lime" > "$T/cut.lime"
    expect_error 1 lat-propagator -- "$BIN/lat-propagator" --kappa 0.1 "$T/cut.lime" -o "$T/old.lime"
    [ "$(cat "$T/old.lime")" = keep ]
    expect_error 1 lat-propagator -- "$BIN/lat-propagator" --kappa 0.12 --source wall:2 "$G/hot.lime" -o "$T/old.lime"
    [[ "$stderr" == *"Coulomb"* ]]
    [ "$(cat "$T/old.lime")" = keep ]
    expect_error 1 lat-meson -- "$BIN/lat-meson" "$G/hot.lime"
    expect_error 2 lat-meson -- "$BIN/lat-meson"
    expect_error 2 lat-meson -- "$BIN/lat-meson" a b c
}

@test "bad input that needs solves: not converged (exit 3, file marked), truncated or corrupted propagator files" {
    # not converged: written, marked converged=no, exit 3 (as the gauge-fixing tools)
    run --separate-stderr "$BIN/lat-propagator" -q --kappa 0.12 --max-iter 3 "$G/hot.lime" -o "$T/nc.lime"
    [ "$status" -eq 3 ]
    python3 "$PY" read "$T/nc.lime"
    run --separate-stderr "$BIN/lat-meson" "$T/nc.lime"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"converged=no"* ]]
    # lat-meson: a truncated propagator, a gauge configuration
    "$BIN/lat-propagator" -q --kappa 0.12 "$G/hot.lime" -o "$T/ok.lime"
    head -c 2000000 "$T/ok.lime" > "$T/cut.prop"
    expect_error 1 lat-meson -- "$BIN/lat-meson" "$T/cut.prop"
}

@test "--columns together: refused on the CPU (exit 2, one line, no file); an existing output file kept" {
    echo keep > "$T/p.lime"
    run -2 "$BIN/lat-propagator" -q --kappa 0.12 --device cpu --columns together "$G/hot.lime" -o "$T/p.lime"
    echo "$output"
    # the reason: the GPU only (a CUDA build), or no CUDA in this build
    [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *"--columns together: "*@(GPU only|without CUDA)* ]]
    [ "$(cat "$T/p.lime")" = keep ]
    run -2 "$BIN/lat-propagator" -q --kappa 0.12 --columns sideways "$G/hot.lime"
    [ "${#lines[@]}" -eq 1 ]
}
