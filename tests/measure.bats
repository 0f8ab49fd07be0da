#!/usr/bin/env bats
# measure.bats -- lat-measure and lat-unitarity on the real configurations in
# ../shared/data (known values from its README), report formats, gauge
# functional and theta, tolerance exit codes, reprojection, usage errors.
# Tests that need ../shared/data skip with a message when it is absent; the
# others run on configurations made here by lat-heatbath (SU(2), SU(3), SU(4))
# and lat-randomize-orbit (gauge invariance end to end).

bats_require_minimum_version 1.5.0

setup_file() {
    B="$BATS_TEST_DIRNAME/../bin"
    G="$BATS_FILE_TMPDIR"
    export LAT_DEVICE=cpu
    "$B/lat-heatbath" -q --start hot -b 5.7 -L 4x4x4x6 -n 2 -s 3 -o "$G/su3.lime"
    "$B/lat-heatbath" -q --start hot -N 2 -b 2.3 -L 4x2x2x4 -n 2 -s 4 -o "$G/su2.lime"
    "$B/lat-heatbath" -q --start hot -N 4 -b 11 -L 2x2x4x4 -n 2 -s 5 -o "$G/su4.lime"
    "$B/lat-heatbath" -q --start cold -L 4x4x4x6 -n 0 -o "$G/cold.lime"
    for n in 2 3 4; do "$B/lat-randomize-orbit" -q --seed 11 -o "$G/su$n.rot.lime" "$G/su$n.lime"; done
}

setup() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
    BIN="$ROOT/bin"
    DATA="$ROOT/../shared/data"
    MILC="$DATA/milc-l4444.ildg"
    SIMQCD="$DATA/simulateqcd-l6666.nersc"
    TMLQCD="$DATA/tmlqcd-unit-l4444.lime"
    CPS="$DATA/cps-l4448.nersc"
    TMP="$BATS_TEST_TMPDIR"
    GEN="$BATS_FILE_TMPDIR"
}

need_data() {
    [ -d "$DATA" ] || skip "../shared/data is absent: no real configurations to test against"
    [ -f "$1" ] || skip "$1 is absent"
}

# column NAME of a two-line TSV report on stdin
col() { awk -F'\t' -v k="$1" 'NR==1{for(i=1;i<=NF;i++) if($i==k) c=i} NR==2{if(c) print $c; else exit 1}'; }

# |a - b| <= tol, with a message when not
close_to() {
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN{d=a-b; if(d<0)d=-d; if(d<=t) exit 0;
        printf "got %s, expected %s (tolerance %s)\n", a, b, t > "/dev/stderr"; exit 1}'
}

measure_tsv() { "$BIN/lat-measure" --format tsv "$@"; }

@test "gauge invariance end to end: lat-randomize-orbit keeps plaquette and Polyakov loop (SU(2), SU(3), SU(4))" {
    for n in 2 3 4; do
        a=$(measure_tsv "$GEN/su$n.lime")
        b=$(measure_tsv "$GEN/su$n.rot.lime")
        [ "$(echo "$a" | col nc)" = $n ]
        for k in plaquette plaquette_spatial plaquette_temporal polyakov_re polyakov_im; do
            close_to "$(echo "$b" | col $k)" "$(echo "$a" | col $k)" 1e-12
        done
        # the transformation did something: the link trace is not invariant
        ! close_to "$(echo "$b" | col link_trace)" "$(echo "$a" | col link_trace)" 1e-4 2>/dev/null || false
        # a heatbath configuration is not the unit field
        ! close_to "$(echo "$a" | col plaquette)" 1 0.1 2>/dev/null || false
    done
}

@test "a cold (unit) configuration: plaquette 1, Landau F 1 and theta 0" {
    run -0 measure_tsv --gauge landau "$GEN/cold.lime"
    for k in plaquette link_trace polyakov_re F; do close_to "$(echo "$output" | col $k)" 1 1e-15; done
    for k in polyakov_im theta unitarity_max unitarity_det_max; do close_to "$(echo "$output" | col $k)" 0 1e-15; done
}

@test "--gauge coulomb: one F_t and theta_t per timeslice, means equal F and theta" {
    run -0 "$BIN/lat-measure" --format json --gauge coulomb "$GEN/su3.lime"
    echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["F_t"]) == 6 and len(d["theta_t"]) == 6, d
assert abs(sum(d["F_t"]) / 6 - d["F"]) < 1e-14
assert abs(sum(d["theta_t"]) / 6 - d["theta"]) < 1e-13
assert min(d["theta_t"]) > 0
'
    run -0 measure_tsv --gauge coulomb "$GEN/su4.lime"
    [ "$(echo "$output" | col nc)" = 4 ]
    echo "$output" | head -1 | tr '\t' '\n' | grep -qx theta_t3
    ! echo "$output" | head -1 | tr '\t' '\n' | grep -qx theta_t4 || false
}

@test "lat-unitarity on generated SU(2)/SU(4) files: 64-bit tolerance, reprojection" {
    for n in 2 4; do
        run -0 "$BIN/lat-unitarity" --format tsv "$GEN/su$n.rot.lime"
        [ "$(echo "$output" | col tolerance)" = 1e-10 ]
        [ "$(echo "$output" | col links)" = "$(echo "$output" | col lattice | tr x '*' | sed 's/$/*4/' | bc)" ]
        run -0 "$BIN/lat-unitarity" -q --reproject --file-precision 32 -o "$TMP/r$n.lime" "$GEN/su$n.rot.lime"
        run -0 "$BIN/lat-unitarity" --format tsv "$TMP/r$n.lime"
        [ "$(echo "$output" | col file_precision)" = 32 ]
        [ "$(echo "$output" | col nc)" = $n ]
        awk -v m="$(echo "$output" | col unitarity_max)" 'BEGIN{exit !(m > 1e-9 && m < 1e-6)}'
    done
}

@test "milc-l4444.ildg: plaquette, link trace and unitarity as in the README" {
    need_data "$MILC"
    run -0 measure_tsv "$MILC"
    [ "$(echo "$output" | col lattice)" = 4x4x4x4 ]
    [ "$(echo "$output" | col nc)" = 3 ]
    [ "$(echo "$output" | col file_precision)" = 32 ]
    close_to "$(echo "$output" | col plaquette)" 0.5948501589 1e-10
    close_to "$(echo "$output" | col link_trace)" 0.6467587374 1e-10
    # MILC: space-space 1.794675 and space-time 1.774426 in Re tr units
    close_to "$(echo "$output" | col plaquette_spatial)" "$(awk 'BEGIN{print 1.794675/3}')" 1e-6
    close_to "$(echo "$output" | col plaquette_temporal)" "$(awk 'BEGIN{print 1.774426/3}')" 1e-6
    # README: max 5.0e-7 in the largest-element sense; the Frobenius norm
    # of lat (SPEC §3) is larger by up to sqrt(N^2) and is 6.0e-7 here
    close_to "$(echo "$output" | col unitarity_max)" 5.998e-7 0.001e-7
}

@test "simulateqcd-l6666.nersc: plaquette and link trace as recomputed in the README" {
    need_data "$SIMQCD"
    run -0 measure_tsv "$SIMQCD"
    [ "$(echo "$output" | col lattice)" = 6x6x6x6 ]
    close_to "$(echo "$output" | col plaquette)" 0.6606482307 1e-10
    close_to "$(echo "$output" | col link_trace)" 0.9015920045 1e-10
}

@test "tmlqcd-unit-l4444.lime: the unit configuration measures 1 and 0" {
    need_data "$TMLQCD"
    run -0 measure_tsv "$TMLQCD"
    [ "$(echo "$output" | col file_precision)" = 64 ]
    for k in plaquette plaquette_spatial plaquette_temporal link_trace polyakov_re polyakov_abs; do
        close_to "$(echo "$output" | col $k)" 1 1e-15
    done
    for k in polyakov_im unitarity_mean unitarity_max unitarity_det_mean unitarity_det_max; do
        close_to "$(echo "$output" | col $k)" 0 1e-15
    done
}

@test "cps-l4448.nersc: plaquette, link trace and unitarity as in the README" {
    need_data "$CPS"
    run -0 measure_tsv "$CPS"
    [ "$(echo "$output" | col lattice)" = 4x4x4x8 ]
    close_to "$(echo "$output" | col plaquette)" 0.5985455591 1e-10
    close_to "$(echo "$output" | col link_trace)" -0.0007741846376 1e-13
    close_to "$(echo "$output" | col unitarity_max)" 0 1e-14
}

@test "lat-measure reads standard input (a pipe) like the file" {
    need_data "$MILC"
    a=$(measure_tsv "$MILC" | col plaquette)
    b=$(cat "$MILC" | measure_tsv | col plaquette)
    c=$(measure_tsv - < "$MILC" | col plaquette)
    [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ]
    [ "$(cat "$MILC" | measure_tsv | col file)" = "standard input" ]
}

@test "--format tsv: one header line and one row with the same number of columns" {
    need_data "$MILC"
    run -0 measure_tsv --gauge coulomb "$MILC"
    [ "${#lines[@]}" -eq 2 ]
    h=$(echo "$output" | awk -F'\t' 'NR==1{print NF}')
    r=$(echo "$output" | awk -F'\t' 'NR==2{print NF}')
    [ "$h" -eq "$r" ]
    for k in plaquette plaquette_spatial plaquette_temporal link_trace polyakov_re polyakov_im polyakov_abs \
             unitarity_mean unitarity_max unitarity_det_mean unitarity_det_max lattice nc F theta \
             F_t0 F_t3 theta_t0 theta_t3; do
        echo "$output" | head -1 | tr '\t' '\n' | grep -qx "$k" || { echo "no column $k"; false; }
    done
    # 4 timeslices: no F_t4
    ! echo "$output" | head -1 | tr '\t' '\n' | grep -qx F_t4 || false
}

@test "--format json: valid JSON with the measurements" {
    need_data "$MILC"
    run -0 "$BIN/lat-measure" --format json --gauge coulomb "$MILC"
    echo "$output" | python3 -m json.tool > /dev/null
    echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert abs(d["plaquette"] - 0.5948501589) < 1e-10, d["plaquette"]
assert abs(d["link_trace"] - 0.6467587374) < 1e-10, d["link_trace"]
assert d["nc"] == 3 and d["lattice"] == "4x4x4x4"
assert len(d["F_t"]) == 4 and len(d["theta_t"]) == 4
assert abs(sum(d["theta_t"]) / 4 - d["theta"]) < 1e-12
assert abs(sum(d["F_t"]) / 4 - d["F"]) < 1e-12
assert abs(d["polyakov_abs"] ** 2 - d["polyakov_re"] ** 2 - d["polyakov_im"] ** 2) < 1e-15
'
}

@test "--format text: aligned name value lines" {
    need_data "$MILC"
    run -0 "$BIN/lat-measure" "$MILC"
    echo "$output" | grep -Eq '^plaquette +0\.59485015'
    echo "$output" | grep -Eq '^link_trace +0\.64675873'
    echo "$output" | grep -Eq '^lattice +4x4x4x4$'
    # the values start in one column
    [ "$(echo "$output" | awk '{print index($0, $2)}' | sort -u | wc -l)" -eq 1 ]
}

@test "--gauge landau on milc-l4444.ildg: F and theta as in the README" {
    need_data "$MILC"
    run -0 measure_tsv --gauge landau "$MILC"
    close_to "$(echo "$output" | col F)" 0.6467587374 1e-10
    close_to "$(echo "$output" | col theta)" 9.317056555 1e-8
    [ "$(echo "$output" | col gauge)" = landau ]
    ! echo "$output" | head -1 | tr '\t' '\n' | grep -qx F_t0 || false
}

@test "--gauge coulomb on milc-l4444.ildg: theta as in the README, per timeslice" {
    need_data "$MILC"
    run -0 measure_tsv --gauge coulomb "$MILC"
    close_to "$(echo "$output" | col theta)" 5.780218054 1e-8
    run -0 "$BIN/lat-measure" --gauge coulomb "$MILC"
    [ "$(echo "$output" | awk '$1=="theta_t"{print NF-1}')" -eq 4 ]
    [ "$(echo "$output" | awk '$1=="F_t"{print NF-1}')" -eq 4 ]
}

@test "--theta-convention culgt prints 4x the paper's theta" {
    need_data "$MILC"
    p=$(measure_tsv --gauge landau "$MILC" | col theta)
    c=$(measure_tsv --gauge landau --theta-convention culgt "$MILC" | col theta)
    close_to "$c" "$(awk -v p="$p" 'BEGIN{printf "%.17g", 4*p}')" 1e-12
    close_to "$c" 37.26822622 1e-7
    # F does not change
    [ "$(measure_tsv --gauge landau --theta-convention culgt "$MILC" | col F)" = "$(measure_tsv --gauge landau "$MILC" | col F)" ]
}

@test "--gauge mag reports F and theta" {
    need_data "$MILC"
    run -0 measure_tsv --gauge mag "$MILC"
    f=$(echo "$output" | col F)
    awk -v f="$f" 'BEGIN{exit !(f > 0 && f <= 1)}'
    [ -n "$(echo "$output" | col theta)" ]
}

@test "--device cpu and auto give the same numbers" {
    need_data "$MILC"
    a=$(measure_tsv --device cpu "$MILC")
    b=$(LAT_DEVICE=cpu measure_tsv --device auto "$MILC")
    [ "$a" = "$b" ]
}

# the observables on the GPU (kernels/gpu/observables.cu): where no GPU is
# usable, --device gpu is one line and exit 1 and auto is the CPU, byte for
# byte; on a GPU machine the numbers agree with the CPU's to 1e-13
# (tests/gpu/test_gpu_observables.c checks 1e-14 there)
has_gpu() { LAT_DEVICE= "$BIN/lat-measure" -q --device gpu "$GEN/cold.lime" >/dev/null 2>&1; }

@test "--device gpu without a GPU: one clear line, exit 1, nothing on stdout" {
    has_gpu && skip "a GPU is usable here"
    run -1 --separate-stderr "$BIN/lat-measure" --device gpu --format tsv "$GEN/su3.lime"
    [ -z "$output" ]
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
    [[ "$stderr" == "lat-measure: "*"--device gpu: no usable GPU"* ]]
}

@test "--device auto (the default) falls back to the CPU with identical output; --device gpu agrees with it" {
    for f in su2 su3 su4 cold; do
        c=$(LAT_DEVICE= measure_tsv --device cpu "$GEN/$f.lime")
        a=$(LAT_DEVICE= measure_tsv --device auto "$GEN/$f.lime" 2>/dev/null)
        d=$(LAT_DEVICE= measure_tsv "$GEN/$f.lime")
        if ! has_gpu; then
            [ "$a" = "$c" ]
            [ "$d" = "$c" ]
        elif [ "$f" != su4 ]; then
            g=$(LAT_DEVICE= measure_tsv --device gpu "$GEN/$f.lime")
            for k in plaquette plaquette_spatial plaquette_temporal link_trace polyakov_re polyakov_im unitarity_mean unitarity_max; do
                x=$(echo "$g" | col $k) y=$(echo "$c" | col $k)
                awk -v a="$x" -v b="$y" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(a != "" && d <= 1e-13)}' || { echo "$f $k: GPU $x CPU $y"; false; }
            done
        fi
    done
}

@test "--history: no record in a foreign file, an entry after lat-unitarity --reproject" {
    need_data "$MILC"
    run --separate-stderr -0 "$BIN/lat-measure" --history --format json "$MILC"
    echo "$stderr" | grep -q 'no lat-history record'
    echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["history"] == []'
    "$BIN/lat-unitarity" --reproject -o "$TMP/r.lime" "$MILC" > /dev/null
    run -0 "$BIN/lat-measure" --history --format tsv "$TMP/r.lime"
    [ "${#lines[@]}" -eq 2 ]
    [ "$(echo "$output" | col program | cut -d' ' -f1)" = lat-unitarity ]
    echo "$output" | col results | grep -q 'reprojected='
    run -0 "$BIN/lat-measure" --history "$TMP/r.lime"
    echo "${lines[0]}" | grep -q '^\[1\] .*lat-unitarity'
    run -0 "$BIN/lat-measure" --history --format json "$TMP/r.lime"
    echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); h=d["history"]; assert len(h)==1 and h[0]["program"].startswith("lat-unitarity"), h'
}

@test "lat-unitarity: default tolerance by file precision, --tolerance sets exit 0 or 1" {
    need_data "$MILC"
    run -0 "$BIN/lat-unitarity" --format tsv "$MILC"
    close_to "$(echo "$output" | col unitarity_max)" 5.998e-7 0.001e-7
    [ "$(echo "$output" | col tolerance)" = 1.0000000000000001e-05 ]
    [ "$(echo "$output" | col status)" = ok ]
    run -0 "$BIN/lat-unitarity" --tolerance 1e-6 "$MILC"
    run --separate-stderr -1 "$BIN/lat-unitarity" --tolerance 1e-8 "$MILC"
    [ "${#stderr_lines[@]}" -eq 1 ]
    echo "$stderr" | grep -q "^lat-unitarity: .*milc-l4444.ildg: .*exceeds the tolerance 1e-08"
    echo "$output" | grep -Eq '^status +fail$'
    # -q: the one error line on stderr; the report on stdout is the output
    run --separate-stderr -1 "$BIN/lat-unitarity" -q --tolerance 1e-8 "$MILC"
    [ "${#stderr_lines[@]}" -eq 1 ]
    echo "$output" | grep -Eq '^status +fail$'
}

@test "lat-unitarity: a 64-bit file is held to 1e-10 by default" {
    need_data "$CPS"
    run -0 "$BIN/lat-unitarity" --format json "$CPS"
    echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["tolerance"]==1e-10 and d["status"]=="ok" and d["unitarity_max"] < 1e-14, d'
    run -0 "$BIN/lat-unitarity" --tolerance 1e-14 "$CPS"
    run -1 "$BIN/lat-unitarity" --tolerance 1e-18 "$CPS"
}

@test "lat-unitarity --reproject: the output is in SU(3) and keeps the plaquette" {
    need_data "$MILC"
    run --separate-stderr -0 "$BIN/lat-unitarity" --reproject --file-precision 64 --format tsv -o "$TMP/r64.lime" "$MILC"
    [ "$(echo "$output" | col status)" = ok ]
    close_to "$(echo "$output" | col reprojected_unitarity_max)" 0 1e-14
    [ -s "$TMP/r64.lime" ]
    run -0 "$BIN/lat-unitarity" --tolerance 1e-14 --format tsv "$TMP/r64.lime"
    [ "$(echo "$output" | col file_precision)" = 64 ]
    close_to "$(echo "$output" | col unitarity_det_max)" 0 1e-14
    p0=$(measure_tsv "$MILC" | col plaquette)
    p1=$(measure_tsv "$TMP/r64.lime" | col plaquette)
    close_to "$p1" "$p0" 1e-6
    # default: the input's precision (32 bit), unitary to single precision
    run -0 "$BIN/lat-unitarity" --reproject -o "$TMP/r32.lime" "$MILC"
    run -0 "$BIN/lat-unitarity" --format tsv "$TMP/r32.lime"
    [ "$(echo "$output" | col file_precision)" = 32 ]
    awk -v m="$(echo "$output" | col unitarity_max)" 'BEGIN{exit !(m < 1e-6)}'
}

@test "lat-unitarity --reproject of a NERSC file writes ILDG with the history" {
    need_data "$CPS"
    run -0 "$BIN/lat-unitarity" -q --reproject -o "$TMP/c.lime" "$CPS"
    [ -z "$output" ]
    run -0 measure_tsv "$TMP/c.lime"
    [ "$(echo "$output" | col file_format)" = ildg ]
    [ "$(echo "$output" | col file_precision)" = 64 ]
    close_to "$(echo "$output" | col plaquette)" 0.5985455591 1e-10
    run -0 "$BIN/lat-measure" --history --format tsv "$TMP/c.lime"
    echo "$output" | col results | grep -q '^reprojected=SU(3) '
}

@test "lat-unitarity --reproject without -o: configuration on stdout, report on stderr" {
    need_data "$MILC"
    "$BIN/lat-unitarity" --reproject --format tsv "$MILC" > "$TMP/s.lime" 2> "$TMP/report"
    grep -q reprojected_unitarity_max "$TMP/report"
    run -0 measure_tsv "$TMP/s.lime"
    close_to "$(echo "$output" | col plaquette)" 0.5948501589 1e-6
}

@test "lat-unitarity --reproject failing the tolerance writes nothing" {
    need_data "$MILC"
    run -1 "$BIN/lat-unitarity" --reproject --tolerance 1e-12 -o "$TMP/f.lime" "$MILC"
    [ ! -e "$TMP/f.lime" ]
    [ -z "$(ls "$TMP" | grep 'f.lime')" ]
}

@test "usage errors exit 2 with one line" {
    run --separate-stderr -2 "$BIN/lat-measure" --no-such-option
    [ "${#stderr_lines[@]}" -eq 1 ]
    echo "$stderr" | grep -q '^lat-measure: '
    run -2 "$BIN/lat-measure" --format xml x
    run -2 "$BIN/lat-measure" --gauge axial x
    run -2 "$BIN/lat-measure" --theta-convention glu x
    run -2 "$BIN/lat-measure" --device tpu x
    run -2 "$BIN/lat-measure" a b
    run -2 "$BIN/lat-measure" --history --gauge landau x
    run -2 "$BIN/lat-unitarity" --tolerance abc x
    run -2 "$BIN/lat-unitarity" --tolerance -1 x
    run -2 "$BIN/lat-unitarity" -o out.lime x
    run -2 "$BIN/lat-unitarity" --file-precision 32 x
    run -2 "$BIN/lat-unitarity" --reproject --file-precision 16 x
    run -2 "$BIN/lat-unitarity" a b
}

@test "a missing or unreadable input is a data error: exit 1, one line naming the file" {
    run --separate-stderr -1 "$BIN/lat-measure" "$TMP/does-not-exist.lime"
    [ "${#stderr_lines[@]}" -eq 1 ]
    echo "$stderr" | grep -q "^lat-measure: .*does-not-exist.lime"
    printf 'this is not a gauge configuration\n' > "$TMP/junk"
    run --separate-stderr -1 "$BIN/lat-unitarity" "$TMP/junk"
    [ "${#stderr_lines[@]}" -eq 1 ]
    echo "$stderr" | grep -q "^lat-unitarity: .*junk"
}

@test "--help and --version" {
    run -0 "$BIN/lat-measure" --help
    echo "$output" | grep -q -- '--gauge'
    echo "$output" | grep -q -- '--theta-convention'
    run -0 "$BIN/lat-unitarity" --version
    echo "$output" | grep -q '^lat-unitarity (lat) '
}

@test "no INPUT and a terminal on standard input: one line saying so, exit 2 (no waiting)" {
    command -v script >/dev/null || skip "script (util-linux) not found"
    for p in lat-measure lat-overrelax lat-fourier lat-convert; do
        # script gives the program a pseudo-terminal as standard input
        o="-o /dev/null"; [ $p = lat-measure ] && o=""
        run timeout 10 script -qec "$BIN/$p $o" /dev/null < /dev/null
        [ "$status" -eq 2 ] || { echo "$p: status $status: $output"; return 1; }
        [[ "$output" == *"$p: standard input: is a terminal: name an INPUT file or pipe a configuration in"* ]]
    done
}
