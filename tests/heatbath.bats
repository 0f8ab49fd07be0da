#!/usr/bin/env bats
# heatbath.bats -- lat-heatbath as a program: the --sweeps 0 test inputs
# (unit and Haar-random SU(N), checked byte by byte with an independent LIME
# reader), reproducibility by seed and thread count, chain continuation,
# --every output, and bad parameters (one line, exit 1 or 2, nothing written).

bats_require_minimum_version 1.5.0

setup() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
    HB="$ROOT/bin/lat-heatbath"
    load lime.bash
    cd "$BATS_TEST_TMPDIR"
    export SOURCE_DATE_EPOCH=1700000000
}

# the ildg-binary-data payload as big-endian doubles (or floats), one per line
doubles() { lime_payload "$1" ildg-binary-data | od -An -v -t "${2:-f8}" --endian=big -w8 | tr -s ' ' | sed 's/^ //'; }

@test "cold start: unit SU(3) links, ILDG framing and size" {
    run "$HB" --sweeps 0 --start cold --lattice 4x4x4x8 -o cold.lime
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    lime_list cold.lime > recs
    grep -q ' ildg-format$' recs
    grep -q ' ildg-data-lfn$' recs
    len=$(awk '$5 == "ildg-binary-data" {print $4}' recs)
    [ "$len" -eq $((512 * 4 * 18 * 8)) ]
    lime_payload cold.lime ildg-format > fmt
    grep -q '<field>su3gauge</field>' fmt
    grep -q '<lx>4</lx>' fmt && grep -q '<lt>8</lt>' fmt && grep -q '<precision>64</precision>' fmt
    doubles cold.lime | head -18 | tr '\n' ' ' > first
    # first link: 1 0 0 0 0 0 0 0 1 0 ... (row-major, re im)
    awk '{ for (i = 1; i <= 18; i++) { want = (i == 1 || i == 9 || i == 17) ? 1 : 0; if ($i + 0 != want) exit 1 } }' first
    # every diagonal real part is 1, everything else 0
    doubles cold.lime | awk '{ k = (NR - 1) % 18; want = (k == 0 || k == 8 || k == 16) ? 1 : 0; if ($1 + 0 != want) bad++ } END { exit bad ? 1 : 0 }'
    lime_payload cold.lime lat-history | grep -q 'next_sweep=0 plaquette=1.000000000000'
}

@test "hot start: Haar-random SU(2), SU(4); deterministic by seed" {
    "$HB" --sweeps 0 --start hot --nc 2 --lattice 4x2x2x2 --seed 9 > a.lime
    "$HB" --sweeps 0 --start hot --nc 2 --lattice 4x2x2x2 --seed 9 > b.lime
    "$HB" --sweeps 0 --start hot --nc 2 --lattice 4x2x2x2 --seed 10 > c.lime
    cmp a.lime b.lime
    ! cmp -s a.lime c.lime || false
    lime_payload a.lime ildg-format | grep -q '<field>su2gauge</field>'
    [ "$(lime_list a.lime | awk '$5 == "ildg-binary-data" {print $4}')" -eq $((32 * 4 * 8 * 8)) ]
    # each SU(2) link: |row 0|^2 = 1 and U11 = conj(U00); not the unit matrix
    doubles a.lime | paste - - - - - - - - | awk '
        { n = $1*$1 + $2*$2 + $3*$3 + $4*$4; if (n < 1 - 1e-12 || n > 1 + 1e-12) bad++
          if ($7 - $1 > 1e-12 || $7 - $1 < -1e-12 || $8 + $2 > 1e-12 || $8 + $2 < -1e-12) bad++
          if ($1 > 0.999) unit++ }
        END { exit (bad || unit > 2) ? 1 : 0 }'
    "$HB" --sweeps 0 --start hot --nc 4 --lattice 2 --seed 1 -o su4.lime
    lime_payload su4.lime ildg-format | grep -q '<field>su4gauge</field>'
    [ "$(lime_list su4.lime | awk '$5 == "ildg-binary-data" {print $4}')" -eq $((16 * 4 * 32 * 8)) ]
}

@test "--file-precision 32 halves the data" {
    "$HB" --sweeps 0 --start hot --lattice 2x2x2x4 --file-precision 32 -o f.lime
    lime_payload f.lime ildg-format | grep -q '<precision>32</precision>'
    [ "$(lime_list f.lime | awk '$5 == "ildg-binary-data" {print $4}')" -eq $((32 * 4 * 18 * 4)) ]
}

# column NAME of a one-row TSV report
col() { awk -F'\t' -v k="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 && c { print $c }'; }

@test "lat-measure reads the outputs: cold plaquette 1, hot near 0, N from the file, log agrees" {
    [ -x "$ROOT/bin/lat-measure" ] || skip "lat-measure not built"
    "$HB" --sweeps 0 --start cold --lattice 4 -o cold.lime
    "$HB" --sweeps 0 --start hot --lattice 4 --nc 2 -o hot.lime
    "$HB" --sweeps 0 --start hot --lattice 2 --nc 5 -o su5.lime
    "$ROOT/bin/lat-measure" --format tsv cold.lime > m
    [ "$(col plaquette < m)" = 1 ] && [ "$(col nc < m)" = 3 ] && [ "$(col link_trace < m)" = 1 ]
    "$ROOT/bin/lat-measure" --format tsv hot.lime > m
    [ "$(col nc < m)" = 2 ]
    awk -v p="$(col plaquette < m)" 'BEGIN { exit (p > -0.05 && p < 0.05) ? 0 : 1 }'
    awk -v u="$(col unitarity_max < m)" 'BEGIN { exit (u < 1e-13) ? 0 : 1 }'
    "$ROOT/bin/lat-measure" --format tsv su5.lime > m
    [ "$(col nc < m)" = 5 ]
    "$HB" --beta 2.4 --nc 2 --lattice 4 --sweeps 3 --log l.tsv -o run.lime
    "$ROOT/bin/lat-measure" --format tsv run.lime > m
    awk -v a="$(col plaquette < m)" -v b="$(tail -1 l.tsv | cut -f2)" 'BEGIN { d = a - b; exit (d < 1e-11 && d > -1e-11) ? 0 : 1 }'
}

@test "same seed -> same bytes, on 1 and 2 threads; another seed differs" {
    OMP_NUM_THREADS=1 "$HB" --beta 5.7 --lattice 8x8x4x4 --sweeps 2 --or 1 --seed 5 > t1.lime
    OMP_NUM_THREADS=2 "$HB" --beta 5.7 --lattice 8x8x4x4 --sweeps 2 --or 1 --seed 5 > t2.lime
    OMP_NUM_THREADS=2 "$HB" --beta 5.7 --lattice 8x8x4x4 --sweeps 2 --or 1 --seed 6 > t3.lime
    cmp t1.lime t2.lime
    ! cmp -s t1.lime t3.lime || false
    # single precision chains are reproducible too
    OMP_NUM_THREADS=1 "$HB" --beta 2.3 --nc 2 --lattice 8x8x4x4 --sweeps 2 --precision single --seed 5 > s1.lime
    OMP_NUM_THREADS=2 "$HB" --beta 2.3 --nc 2 --lattice 8x8x4x4 --sweeps 2 --precision single --seed 5 > s2.lime
    cmp s1.lime s2.lime
}

@test "a chain continued from its file equals the uninterrupted chain" {
    "$HB" --beta 6.0 --lattice 4 --sweeps 3 --or 2 --seed 4 -o part1.lime
    "$HB" --beta 6.0 --start part1.lime --sweeps 4 --or 2 --seed 4 --log part2.tsv -o part2.lime
    "$HB" --beta 6.0 --lattice 4 --sweeps 7 --or 2 --seed 4 --log whole.tsv -o whole.lime
    [ "$(head -1 whole.tsv)" = "$(printf 'sweep\tplaquette\tspatial\ttemporal\tpolyakov_re\tpolyakov_im\tseconds')" ]
    [ "$(wc -l < whole.tsv)" -eq 9 ]
    tail -5 whole.tsv | cut -f1-6 > w
    tail -5 part2.tsv | cut -f1-6 > p
    diff w p
    cmp <(doubles whole.lime) <(doubles part2.lime)
    lime_payload part2.lime lat-history > h
    [ "$(grep -c 'lat-heatbath' h)" -eq 2 ]
    grep -q 'first_sweep=3 next_sweep=7' h
    # --first-sweep 0 restarts the counter: another chain
    "$HB" --beta 6.0 --start part1.lime --sweeps 4 --or 2 --seed 4 --first-sweep 0 -o other.lime
    ! cmp -s <(doubles whole.lime) <(doubles other.lime) || false
}

@test "--every writes the configurations after thermalisation, named by sweep" {
    "$HB" --beta 2.3 --nc 2 --lattice 4 --therm 2 --sweeps 4 --every 2 --or 1 --output-pattern 'c.%03d.lime'
    [ -f c.004.lime ] && [ -f c.006.lime ]
    [ "$(ls c.*.lime | wc -l)" -eq 2 ]
    lime_payload c.004.lime lat-history | grep -q 'next_sweep=4 '
    lime_payload c.006.lime lat-history | grep -q 'next_sweep=6 '
}

@test "the plaquette of a short SU(3) run is sane and spatial/temporal average to it" {
    "$HB" --beta 6.0 --lattice 4 --sweeps 10 --log l.tsv -o x.lime
    awk -F'\t' 'NR > 1 { if ($2 < -1 || $2 > 1) bad++; d = $2 - ($3 + $4) / 2; if (d > 1e-9 || d < -1e-9) bad++ }
                END { exit bad ? 1 : 0 }' l.tsv
    last=$(tail -1 l.tsv | cut -f2)
    awk -v p="$last" 'BEGIN { exit (p > 0.5 && p < 0.7) ? 0 : 1 }'
}

# expect: exit status $1 (1 or 2), one line on stderr naming the program, no file
bad() {
    local want=$1; shift
    run "$HB" "$@"
    [ "$status" -eq "$want" ] || { echo "status $status, wanted $want: $output"; return 1; }
    [ "${#lines[@]}" -eq 1 ] || { echo "not one line: $output"; return 1; }
    [[ "${lines[0]}" == lat-heatbath:* ]]
    [ ! -e out.lime ] && [ -z "$(ls | grep -v '^in' | grep -v '^keep')" ]
}

@test "bad parameters: one line, exit 1 or 2, nothing written" {
    "$HB" --sweeps 0 --start cold --lattice 4 -o in3.lime
    "$HB" --sweeps 0 --start cold --nc 2 --lattice 4x4x4x6 -o in2.lime
    bad 2 --beta 0 --lattice 4 -o out.lime
    bad 2 --beta -1 --lattice 4 -o out.lime
    bad 2 --beta 5.7 --lattice 4x4x4x5 -o out.lime
    bad 2 --beta 5.7 --lattice 4x0x4x4 -o out.lime
    bad 2 --beta 5.7 --lattice 4xyz -o out.lime
    bad 2 --beta 5.7 --lattice 4 --nc 1 -o out.lime
    bad 2 --beta 5.7 --lattice 4 --nc 0 -o out.lime
    bad 2 --beta 5.7 --lattice 4 --nc 9 -o out.lime
    bad 2 --lattice 4 --sweeps 3 -o out.lime
    bad 2 --beta 5.7 --lattice 4 --sweeps -1 -o out.lime
    bad 2 --beta 5.7 --lattice 4 --or -1 -o out.lime
    bad 2 --beta 5.7 --lattice 4 --seed -3 -o out.lime
    bad 2 --beta 5.7 --lattice 4 --every 2 -o out.lime
    bad 2 --beta 5.7 --lattice 4 --every 2 --output-pattern 'c.lime'
    bad 2 --beta 5.7 --lattice 4 --every 2 --output-pattern 'c.%s.lime'
    bad 2 --beta 5.7 --lattice 4 --every 2 --output-pattern 'c.%d.%d.lime'
    bad 2 --beta 5.7 --lattice 4 --precision quad -o out.lime
    bad 2 --beta 5.7 --start hot -o out.lime
    bad 1 --beta 5.7 --start in3.lime --nc 2 -o out.lime
    bad 1 --beta 5.7 --start in2.lime --lattice 4 -o out.lime
    bad 1 --beta 5.7 --start no-such-file.lime -o out.lime
    printf 'not a configuration' > in-junk
    bad 1 --beta 5.7 --start in-junk -o out.lime
    # an existing output survives a failed run untouched
    cp in3.lime keep.lime
    run "$HB" --beta -2 --lattice 4 -o keep.lime
    [ "$status" -eq 2 ]
    cmp in3.lime keep.lime
}

@test "--start FILE takes N and the lattice from the file" {
    "$HB" --sweeps 0 --start hot --nc 2 --lattice 2x2x2x4 -o in.lime
    "$HB" --beta 2.5 --start in.lime --sweeps 1 --or 0 -o out.lime
    lime_payload out.lime ildg-format | grep -q '<field>su2gauge</field>'
    lime_payload out.lime ildg-format | grep -q '<lt>4</lt>'
    # and from standard input
    "$HB" --beta 2.5 --start - --sweeps 1 --or 0 < in.lime > out2.lime
    cmp <(doubles out.lime) <(doubles out2.lime)
}

@test "--help and --version" {
    run "$HB" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *--output-pattern* ]]
    run "$HB" --version
    [ "$status" -eq 0 ]
}

@test "a chain ends with one summary line (its plaquette is the file's); -q silences it" {
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr "$HB" --beta 6.0 --lattice 4 --start hot --therm 2 --sweeps 3 --seed 4 -o s.lime
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
    [[ "$stderr" == "lat-heatbath: SU(3) 4x4x4x4, beta = 6: 5 sweeps (1 heatbath + 4 OR each; 2 thermalisation) in "* ]]
    p=$("$ROOT/bin/lat-measure" -q --format tsv s.lime | awk -F'\t' 'NR==1{for(i=1;i<=NF;i++) if($i=="plaquette") c=i; next} {printf "%.12f", $c}')
    [[ "$stderr" == *"plaquette = $p" ]]
    run --separate-stderr "$HB" -q --beta 6.0 --lattice 4 --start hot --sweeps 1 -o q.lime
    [ "$status" -eq 0 ] && [ -z "$stderr" ]
}
