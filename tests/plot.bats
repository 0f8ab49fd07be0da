#!/usr/bin/env bats
# plot.bats -- lat-plot: every mode draws a valid PNG and SVG (magic bytes,
# the asked size, no gnuplot warning) from real logs of lat-overrelax,
# lat-fourier, lat-anneal, lat-heatbath and lat-gribov-scan; the numbers
# behind the pictures (--table) against independent computations: the last
# row of each log, awk's mean, the integrated autocorrelation time and the
# error of the mean of AR(1) series (python3) with the exact
# tau_int = (1 + rho)/(2 (1 - rho)), the Gribov bars of tables written by
# python3 (merged within --tolerance, apart beyond it); integer count
# ticks; bad inputs: one line, exit 1 or 2, an existing -o untouched, no
# temporary file left.  The picture tests skip only when gnuplot is absent
# (the --table tests need none).

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"

setup_file() {
    lat_test_paths lat-heatbath lat-overrelax lat-fourier lat-anneal || return 1
    export OMP_NUM_THREADS=1
    local d="$BATS_FILE_TMPDIR"
    # real logs on a 4^4 lattice: a heatbath history from a hot start (10
    # sweeps of thermalisation), gauge fixing of its last configuration
    "$BIN/lat-heatbath" -q --beta 6.0 --lattice 4 --start hot --therm 10 --sweeps 60 --seed 3 --log "$d/hb.tsv" -o "$d/c4.lime"
    "$BIN/lat-overrelax" -q --no-progress --omega 1.0 --log "$d/or10.tsv" -o /dev/null "$d/c4.lime"
    "$BIN/lat-overrelax" -q --no-progress --omega 1.7 --log "$d/or17.tsv" -o /dev/null "$d/c4.lime"
    "$BIN/lat-fourier" -q --no-progress --log "$d/fourier.tsv" -o /dev/null "$d/c4.lime"
    "$BIN/lat-anneal" -q --no-progress --steps 40 --log "$d/anneal.tsv" -o /dev/null "$d/c4.lime"
    "$PIPE/lat-gribov-scan" -q -n 3 --no-sa --no-sr --tsv "$d/scan.tsv" "$d/c4.lime"
}

setup() {
    lat_test_dirs
    cd "$W"
    HAVE_GNUPLOT=0
    command -v gnuplot > /dev/null && HAVE_GNUPLOT=1
}

need_gnuplot() { [ "$HAVE_GNUPLOT" -eq 1 ] || skip "gnuplot is not installed (make deps installs gnuplot-nox)"; }

# a PNG of the given size: the 8 magic bytes, then IHDR's width and height
is_png() { # FILE WIDTH HEIGHT
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "$1: not a PNG"; return 1; }
    [ "$(head -c 24 "$1" | tail -c 8 | od -An -tu1 | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }')" = "$2 $3" ] ||
        { echo "$1: not $2x$3"; return 1; }
}
is_svg() { # FILE
    head -n 1 "$1" | grep -q '^<?xml' && grep -q '<svg' "$1" && grep -v '^$' "$1" | tail -n 1 | grep -qx '</svg>' ||
        { echo "$1: not an SVG"; return 1; }
}
# a command that must succeed with nothing on standard error
quiet_ok() {
    run --separate-stderr "$@"
    [ "$status" -eq 0 ] || { echo "status $status: $stderr"; return 1; }
    [ -z "$stderr" ] || { echo "stderr: $stderr"; return 1; }
}
col() { # TSV NAME: the column NAME of the rows after the header
    awk -F'\t' -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$1"
}
# |a - b| <= tol (common.bash's close is strict)
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
# an AR(1) series x' = rho x + sqrt(1 - rho^2) eps (stationary, variance
# 1), shifted and scaled like a plaquette: 0.6 + 0.01 x
ar1() { # RHO N SEED
    python3 - "$@" <<'EOF'
import math, random, sys
rho, n, seed = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
r = random.Random(seed)
x = r.gauss(0, 1)
print("sweep\tplaquette")
for i in range(n):
    print("%d\t%.17g" % (i, 0.6 + 0.01 * x))
    x = rho * x + math.sqrt(1 - rho * rho) * r.gauss(0, 1)
EOF
}

@test "help, version and the man page" {
    has_help_and_version "$PIPE/lat-plot"
    [ -f "$ROOT/man/man1/lat-plot.1" ]
    grep -q lat-plot "$ROOT/pipelines/README.md"
}

@test "convergence: --table has each log's last row (lat-overrelax, lat-fourier, lat-anneal)" {
    run --separate-stderr "$PIPE/lat-plot" convergence --table --label "OR 1.0" --label "OR 1.7" --label CG --label SA \
        "$T/or10.tsv" "$T/or17.tsv" "$T/fourier.tsv" "$T/anneal.tsv"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    echo "$output" > t.tsv
    [ "$(col t.tsv label | tr '\n' ,)" = "OR 1.0,OR 1.7,CG,SA," ]
    i=0
    for f in or10 or17 fourier anneal; do
        i=$((i + 1))
        row=$(sed -n "$((i + 1))p" t.tsv)
        last=$(tail -n 1 "$T/$f.tsv")
        [ "$(echo "$row" | cut -f 5)" = "$(echo "$last" | cut -f 1)" ]   # step
        [ "$(echo "$row" | cut -f 6)" = "$(echo "$last" | cut -f 2)" ]   # F
        [ "$(echo "$row" | cut -f 7)" = "$(echo "$last" | cut -f 3)" ]   # theta
        [ "$(echo "$row" | cut -f 3)" = "$(($(wc -l < "$T/$f.tsv") - 1))" ]
    done
    # the relaxation runs reached lat-overrelax's default 1e-12
    within "$(sed -n 2p t.tsv | cut -f 7)" 0 1e-12
}

@test "convergence: PNG and SVG, several runs overlaid, no gnuplot warning" {
    need_gnuplot
    quiet_ok "$PIPE/lat-plot" convergence -o c.png --label "ω = 1.0" --label "ω = 1.7" --label "lat-fourier" \
        "$T/or10.tsv" "$T/or17.tsv" "$T/fourier.tsv"
    is_png c.png 800 720
    quiet_ok "$PIPE/lat-plot" convergence --size 640x480 -o c.svg "$T/or10.tsv" "$T/anneal.tsv"
    is_svg c.svg
    grep -q 'or10.tsv' c.svg    # the default legend: the file's name
    grep -q 'anneal.tsv' c.svg
    [ "$(ls -A)" = "$(printf 'c.png\nc.svg')" ]
    # a run at theta = 0 throughout (nothing on the log axis): in the key only
    printf 'step\tfunctional\ttheta\tseconds\n0\t1\t0\t0\n10\t1\t0\t0.1\n' > zero.tsv
    quiet_ok "$PIPE/lat-plot" convergence -o z.png zero.tsv "$T/or10.tsv"
    is_png z.png 800 720
    expect_error 1 lat-plot -- "$PIPE/lat-plot" convergence -o z.png zero.tsv
    [[ "$stderr" == *"no positive theta"* ]]
}

@test "history: mean and --therm against awk; PNG and SVG of a real heatbath log" {
    run --separate-stderr "$PIPE/lat-plot" history --table --therm 10 "$T/hb.tsv"
    [ "$status" -eq 0 ]
    echo "$output" > t.tsv
    # lat-heatbath --therm 10 --sweeps 60: the start (sweep 0) and sweeps
    # 1..10 left out, 60 analysed
    [ "$(col t.tsv sweeps)" = 60 ]
    [ "$(col t.tsv first_sweep)" = 11 ]
    [ "$(col t.tsv last_sweep)" = 70 ]
    m=$(awk -F'\t' 'NR > 1 && $1 > 10 { s += $2; n++ } END { printf "%.15g", s / n }' "$T/hb.tsv")
    within "$(col t.tsv mean)" "$m" 1e-13
    # the error is at least the naive one (tau_int >= 1/2 up to noise)
    awk -F'\t' 'NR == 2 { exit !($8 > 0 && $10 > 0.3 && $12 >= 1) }' t.tsv
    # another column
    run "$PIPE/lat-plot" history --table --column temporal --therm 10 "$T/hb.tsv"
    m=$(awk -F'\t' 'NR > 1 && $1 > 10 { s += $4; n++ } END { printf "%.15g", s / n }' "$T/hb.tsv")
    within "$(echo "$output" | tail -n 1 | cut -f 7)" "$m" 1e-13
    need_gnuplot
    quiet_ok "$PIPE/lat-plot" history --therm 10 -o h.png "$T/hb.tsv"
    is_png h.png 800 560
    quiet_ok "$PIPE/lat-plot" history --therm 10 --label "β = 6.0, 4⁴" -o h.svg "$T/hb.tsv"
    is_svg h.svg
    grep -q 'β = 6.0, 4⁴' h.svg
}

@test "history: tau_int and the error of AR(1) series as exact (1+rho)/(2(1-rho)) within their errors" {
    for rs in "0 1" "0.5 2" "0.8 3" "0.9 4"; do
        set -- $rs
        ar1 "$1" 20000 "$2" > ar.tsv
        run --separate-stderr "$PIPE/lat-plot" history --table ar.tsv
        [ "$status" -eq 0 ]
        [ -z "$stderr" ]
        echo "$output" > t.tsv
        tau=$(col t.tsv tau_int) dtau=$(col t.tsv tau_int_error) err=$(col t.tsv error) mean=$(col t.tsv mean)
        exact=$(awk -v r="$1" 'BEGIN { printf "%.6g", (1 + r) / (2 * (1 - r)) }')
        echo "rho $1: tau_int $tau +- $dtau (exact $exact), mean $mean +- $err"
        # within 2.5 of its error (and the error itself sensible: 3 to 15 %)
        within "$tau" "$exact" "$(awk -v d="$dtau" 'BEGIN { print 2.5 * d }')"
        awk -v t="$exact" -v d="$dtau" 'BEGIN { exit !(d > 0.01 * t && d < 0.15 * t) }'
        # error of the mean: 0.01 sqrt(2 tau_int / N) for the exact tau_int,
        # to the accuracy of the estimated tau (about half its relative error)
        e=$(awk -v t="$exact" 'BEGIN { printf "%.6g", 0.01 * sqrt(2 * t / 20000) }')
        within "$err" "$e" "$(awk -v e="$e" -v t="$exact" -v d="$dtau" 'BEGIN { print e * 1.5 * d / t + 1e-7 }')"
        within "$mean" 0.6 "$(awk -v e="$err" 'BEGIN { print 3 * e }')"
    done
}

@test "history: a constant series has error 0; fewer than 4 sweeps after --therm are an error" {
    printf 'sweep\tplaquette\n0\t1\n1\t1\n2\t1\n3\t1\n4\t1\n' > const.tsv
    run --separate-stderr "$PIPE/lat-plot" history --table const.tsv
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(echo "$output" | tail -n 1 | cut -f 4,7,8,13)" = "$(printf '5\t1\t0\tconstant')" ]
    expect_error 1 lat-plot -- "$PIPE/lat-plot" history --table --therm 2 const.tsv
    [[ "$stderr" == *"2 sweeps left after --therm 2"* ]]
    if [ "$HAVE_GNUPLOT" -eq 1 ]; then quiet_ok "$PIPE/lat-plot" history -o const.png const.tsv; is_png const.png 800 560; fi
}

# a lat-gribov-scan table with the given F values
gtable() { # F...
    python3 - "$@" <<'EOF'
import sys
print("copy\tseed\tF\ttheta\titerations\tconverged\tF_rel")
for k, f in enumerate(sys.argv[1:]):
    print("%d\t1\t%s\t1e-13\t100\tyes\t0" % (k, f))
EOF
}

@test "gribov: copies within --tolerance are one bar, beyond it apart; two tables counted per bar" {
    # 0.9 with rounding noise (3 copies), 2e-10 below it, two copies at
    # 0.899 that differ by 1e-12, one at 0.88
    gtable 0.9 0.90000000003 0.89999999995 0.8999999998 0.899 0.898999999999 0.88 > a.tsv
    run --separate-stderr "$PIPE/lat-plot" gribov --table a.tsv
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(echo "$output" | sed 1d | cut -f 1,5 | tr '\t\n' ':,')" = "1:3,2:1,3:2,4:1," ]
    echo "$output" | sed -n 2p | cut -f 3,4 | grep -qx "$(printf '0.89999999995\t0.90000000003')"
    # a tolerance of 1e-9 joins the copy 2e-10 below; 0 keeps only equal F together
    run "$PIPE/lat-plot" gribov --table --tolerance 1e-9 a.tsv
    [ "$(echo "$output" | sed 1d | cut -f 5 | tr '\n' ,)" = "4,2,1," ]
    run "$PIPE/lat-plot" gribov --table --tolerance 0 a.tsv
    [ "$(echo "$output" | sed 1d | cut -f 5 | tr '\n' ,)" = "1,1,1,1,1,1,1," ]
    # a second table: its copies go into the same bars
    gtable 0.90000000001 0.88 0.88 0.87 > b.tsv
    run "$PIPE/lat-plot" gribov --table --label A --label B a.tsv b.tsv
    [ "$(echo "$output" | head -n 1)" = "$(printf 'bar\tF\tF_min\tF_max\tA\tB')" ]
    [ "$(echo "$output" | sed 1d | cut -f 5,6 | tr '\t\n' ':,')" = "3:1,1:0,2:0,1:2,0:1," ]
    # the real scan: every copy counted once
    run "$PIPE/lat-plot" gribov --table "$T/scan.tsv"
    [ "$(echo "$output" | sed 1d | awk -F'\t' '{ s += $5 } END { print s }')" = 3 ]
}

@test "gribov: PNG and SVG, integer count ticks" {
    need_gnuplot
    quiet_ok "$PIPE/lat-plot" gribov -o g.png "$T/scan.tsv"
    is_png g.png 800 560
    # 23 copies in one bar: the count axis still has integer ticks only
    gtable $(for i in $(seq 23); do echo 0.9; done) 0.85 0.8 > many.tsv
    quiet_ok "$PIPE/lat-plot" gribov --label "many copies" --label scan -o g.svg many.tsv "$T/scan.tsv"
    is_svg g.svg
    # the y tick labels are the right-anchored texts of the SVG
    ticks=$(grep -A1 'text-anchor="end"' g.svg | sed -n 's/.*<tspan[^>]*>\([^<]*\)<.*/\1/p')
    [ "$(echo "$ticks" | wc -l)" -ge 4 ]
    echo "$ticks" | grep -qvx '[0-9][0-9]*' && { echo "non-integer ticks: $ticks"; return 1; }
    [ "$(echo "$ticks" | tail -n 1)" -gt 23 ]   # nothing clipped: the tallest bar below the top
    grep -q 'many copies: 25 copies, 3 distinct F' g.svg
}

@test "bad input: one line, exit 1 or 2, an existing -o untouched, no temporary file" {
    echo "an old picture" > old.png
    mkdir tmpd
    export TMPDIR=$PWD/tmpd   # lat-plot's working directory goes here: checked empty at the end
    printf 'step\tfunctional\n0\t0.5\n' > nocol.tsv
    : > empty.tsv
    printf 'step\tfunctional\ttheta\tseconds\n' > header.tsv
    printf 'step\tfunctional\ttheta\tseconds\n0\t0.5\tx\033[31m\t0\n' > nan.tsv
    printf 'sweep\tplaquette\n0\t0.5\n1\t0.6\n' > short.tsv
    expect_error 1 lat-plot -- "$PIPE/lat-plot" convergence -o old.png nocol.tsv
    [[ "$stderr" == *'no column "theta"'* ]]
    expect_error 1 lat-plot -- "$PIPE/lat-plot" convergence -o old.png empty.tsv
    [[ "$stderr" == *"empty file"* ]]
    expect_error 1 lat-plot -- "$PIPE/lat-plot" convergence -o old.png header.tsv
    [[ "$stderr" == *"no data rows"* ]]
    expect_error 1 lat-plot -- "$PIPE/lat-plot" convergence -o old.png "$T/or10.tsv" nan.tsv
    [[ "$stderr" == *'line 2: theta "x?[31m" is not a number'* ]]
    expect_error 1 lat-plot -- "$PIPE/lat-plot" history -o old.png short.tsv
    expect_error 1 lat-plot -- "$PIPE/lat-plot" history -o old.png "$T/or10.tsv"
    expect_error 1 lat-plot -- "$PIPE/lat-plot" gribov -o old.png "$T/hb.tsv"
    expect_error 1 lat-plot -- "$PIPE/lat-plot" gribov -o old.png missing.tsv
    expect_error 2 lat-plot -- "$PIPE/lat-plot" gribov -o old.gif "$T/scan.tsv"
    [[ "$stderr" == *"must end in .png or .svg"* ]]
    expect_error 2 lat-plot -- "$PIPE/lat-plot" gribov "$T/scan.tsv"
    expect_error 2 lat-plot -- "$PIPE/lat-plot" gribov -o old.png
    expect_error 2 lat-plot -- "$PIPE/lat-plot" plaquette -o old.png "$T/hb.tsv"
    expect_error 2 lat-plot -- "$PIPE/lat-plot" history --tolerance 1 -o old.png "$T/hb.tsv"
    expect_error 2 lat-plot -- "$PIPE/lat-plot" history --therm -3 -o old.png "$T/hb.tsv"
    expect_error 2 lat-plot -- "$PIPE/lat-plot" gribov --tolerance x -o old.png "$T/scan.tsv"
    expect_error 2 lat-plot -- "$PIPE/lat-plot" convergence --label a -o old.png "$T/or10.tsv" "$T/or17.tsv"
    expect_error 2 lat-plot -- "$PIPE/lat-plot" convergence --size 10x10 -o old.png "$T/or10.tsv"
    GNUPLOT=/nonexistent/gnuplot expect_error 1 lat-plot -- "$PIPE/lat-plot" gribov -o old.png "$T/scan.tsv"
    [ "$stderr" = "lat-plot: gnuplot not found: install gnuplot-nox" ]
    # a gnuplot that fails half-way through its picture
    printf '#!/bin/sh\necho partial\necho "plot.gp, line 3: something broke" >&2\nexit 1\n' > fakegnuplot
    chmod +x fakegnuplot
    GNUPLOT=$PWD/fakegnuplot expect_error 1 lat-plot -- "$PIPE/lat-plot" gribov -o old.png "$T/scan.tsv"
    [ "$stderr" = "lat-plot: gnuplot failed: plot.gp, line 3: something broke" ]
    [ "$(cat old.png)" = "an old picture" ]
    [ "$(ls -A | grep -c '^\.lat-plot')" -eq 0 ]
    [ -z "$(ls -A tmpd)" ]
    # the table alone needs no gnuplot
    GNUPLOT=/nonexistent/gnuplot run "$PIPE/lat-plot" gribov --table "$T/scan.tsv"
    [ "$status" -eq 0 ]
}

@test "replacing: -o through a symlink keeps the link and the mode; labels with quotes and controls; standard input" {
    need_gnuplot
    echo old > target.png
    chmod 640 target.png
    ln -s target.png link.png
    quiet_ok "$PIPE/lat-plot" gribov -o link.png --label "it's \"q\"$(printf '\033')[31m" - < "$T/scan.tsv"
    [ -L link.png ]
    is_png target.png 800 560
    [ "$(stat -c %a target.png)" = 640 ]
    run "$PIPE/lat-plot" gribov --table --label "it's$(printf '\t\033')x" - < "$T/scan.tsv"
    [ "$(echo "$output" | head -n 1 | cut -f 5)" = "it's??x" ]
    [ "$(ls -A | tr '\n' ' ')" = "link.png target.png " ]
}
