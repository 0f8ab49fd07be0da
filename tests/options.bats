#!/usr/bin/env bats
# options.bats -- one meaning per option across the programs and the
# pipelines, and --format json for every one of them (lat(7), "Options
# shared by the programs" and REPORTS):
#   - a short letter names the same long option in every --help, and a long
#     option that has a short letter somewhere has it everywhere;
#   - every program's --format json is one JSON object (python3's json
#     parser), on standard output, or on standard error when standard output
#     carries the configuration (a pipe of two --format json programs works);
#   - the same quantity has the same key everywhere, with the same value:
#     checked against lat-measure on the configuration written (and
#     lat-convert --check, lat-unitarity), and the pipelines' reports against
#     their own tables and outputs;
#   - lat-convert --precision 32 (old spelling) and --file-precision 32 give
#     the same bytes;
#   - -q leaves standard error empty on runs that warn without it;
#   - the old spellings -n of lat-gribov-scan/lat-gaugefix still work, warn.
# 4^4 lattices throughout.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/lime.bash"

PROGRAMS="lat-heatbath lat-randomize-orbit lat-anneal lat-overrelax lat-fourier lat-measure lat-unitarity lat-convert"
PIPELINES="lat-gaugefix lat-gribov-scan"

setup_file() {
    lat_test_paths $PROGRAMS || return 1
    export OMP_NUM_THREADS=1
    local d="$BATS_FILE_TMPDIR"
    "$BIN/lat-heatbath" -q -b 6 -L 4 --start hot --therm 20 --sweeps 0 -s 3 -o "$d/c4.lime"
}

setup() {
    lat_test_dirs
    cd "$W"
}

# FILE holds exactly one JSON object (python3's parser; nothing else)
is_json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d, dict), d' "$1"; }

# agree A.json B.json TOL KEY...: each KEY is in both reports with the same
# value: strings and integers equal, numbers (and lists of numbers) within
# TOL relative to max(1, |value|)
agree() {
    python3 - "$@" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
tol = float(sys.argv[3])
def same(x, y):
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
    if isinstance(x, float) or isinstance(y, float):
        return abs(x - y) <= tol * max(1.0, abs(x))
    return x == y
for k in sys.argv[4:]:
    assert k in a, "%s: no key %s" % (sys.argv[1], k)
    assert k in b, "%s: no key %s" % (sys.argv[2], k)
    assert same(a[k], b[k]), "%s: %r (%s) != %r (%s)" % (k, a[k], sys.argv[1], b[k], sys.argv[2])
EOF
}

# jget FILE KEY: one value of a JSON report
jget() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

@test "--help: a short letter names one long option everywhere, and a long option keeps its letter everywhere" {
    for p in $PROGRAMS; do "$BIN/$p" --help > "$p.help"; done
    for p in $PIPELINES; do "$PIPE/$p" --help > "$p.help"; done
    python3 - *.help <<'EOF'
import re, sys
short_of = {}   # long -> {letter: [programs]}
long_of = {}    # letter -> {long: [programs]}
has_long = {}   # long -> [programs]
for f in sys.argv[1:]:
    prog = f[:-5]
    n = 0
    for line in open(f):
        # an option line starts with blanks and a dash; its definition is the
        # part before the first gap of two blanks (then the description)
        if not re.match(r"\s+-", line):
            continue
        lhs = re.split(r"(?<=\S)\s{2,}", line.strip() + "  ", maxsplit=1)[0]
        for m in re.finditer(r"(?<![\w-])-([A-Za-z]), --([a-z0-9][a-z0-9-]*)", lhs):
            s, l = m.groups()
            long_of.setdefault(s, {}).setdefault(l, []).append(prog)
            short_of.setdefault(l, {}).setdefault(s, []).append(prog)
            n += 1
        for m in re.finditer(r"(?<![\w-])--([a-z0-9][a-z0-9-]*)", lhs):
            has_long.setdefault(m.group(1), set()).add(prog)
    assert n >= 4, "%s: only %d short options found in its --help" % (prog, n)
bad = []
for s, ls in sorted(long_of.items()):
    if len(ls) > 1:
        bad.append("-%s means %s" % (s, "; ".join("--%s in %s" % (l, ", ".join(p)) for l, p in ls.items())))
for l, ss in sorted(short_of.items()):
    with_letter = set(p for ps in ss.values() for p in ps)
    without = sorted(has_long.get(l, set()) - with_letter)
    if without:
        bad.append("--%s has -%s in %s but no short letter in %s" % (l, "/-".join(ss), ", ".join(sorted(with_letter)), ", ".join(without)))
assert not bad, "\n".join(bad)
# the vocabulary of lat(7): these letters, each for this long option
want = {"o": "output", "s": "seed", "g": "gauge", "n": "sweeps", "c": "copies", "q": "quiet", "v": "verbose",
        "h": "help", "V": "version", "w": "omega"}
for s, l in want.items():
    assert s in long_of and list(long_of[s]) == [l], "-%s: %r" % (s, long_of.get(s))
EOF
}

@test "lat-heatbath --format json: plaquette, link trace, Polyakov loop as lat-measure gives them; tsv the same numbers" {
    "$BIN/lat-heatbath" -b 6 -L 4 -n 3 -s 5 --format json -o h.lime > hb.json
    is_json hb.json
    "$BIN/lat-measure" --format json h.lime > m.json
    # the same double field measured by the same code: equal to the last bit
    agree hb.json m.json 0 lattice nc plaquette plaquette_spatial plaquette_temporal link_trace polyakov_re polyakov_im
    [ "$(jget hb.json sweeps)" = 3 ] && [ "$(jget hb.json next_sweep)" = 3 ] && [ "$(jget hb.json output)" = h.lime ]
    python3 -c 'import json; d=json.load(open("hb.json")); assert d["seconds"] > 0 and d["link_updates_per_second"] > 0, d'
    # tsv: a header line and one row with the same values
    "$BIN/lat-heatbath" -b 6 -L 4 -n 3 -s 5 --format tsv -o h2.lime > hb.tsv
    [ "$(wc -l < hb.tsv)" -eq 2 ]
    [ "$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "plaquette") c = i; next } { print $c }' hb.tsv)" = \
      "$(python3 -c 'import json; print("%.17g" % json.load(open("hb.json"))["plaquette"])')" ]
    cmp <(lime_payload h.lime ildg-binary-data) <(lime_payload h2.lime ildg-binary-data)
}

@test "configuration on stdout: the report goes to stderr, so two --format json programs make a pipe" {
    "$BIN/lat-heatbath" -b 6 -L 4 -n 2 --format json 2> hb.json |
        "$BIN/lat-overrelax" --format json -g landau 2> or.json > out.lime
    is_json hb.json
    is_json or.json
    [ "$(jget or.json output)" = - ] && [ "$(jget hb.json output)" = - ]
    "$BIN/lat-measure" --format json -g landau out.lime > m.json
    agree or.json m.json 1e-14 lattice nc gauge F theta
    # -o FILE: standard output is free and carries the report
    run --separate-stderr -0 "$BIN/lat-overrelax" --format json -g landau -o o2.lime out.lime
    [ -z "$stderr" ]
    echo "$output" > o2.json
    is_json o2.json
}

@test "lat-overrelax, lat-anneal, lat-fourier, lat-randomize-orbit --format json: F, theta, plaquette as lat-measure measures the output" {
    "$BIN/lat-randomize-orbit" -s 7 --format json -o r.lime "$T/c4.lime" > ro.json
    is_json ro.json
    "$BIN/lat-measure" --format json "$T/c4.lime" > m0.json
    agree ro.json m0.json 1e-13 lattice nc plaquette  # gauge invariant: the input's
    [ "$(jget ro.json seed)" = 7 ] && [ "$(jget ro.json copy)" = 0 ]
    for g in landau coulomb; do
        run -0 "$BIN/lat-overrelax" -g $g --format json -o or.lime r.lime
        echo "$output" > or.json
        is_json or.json
        "$BIN/lat-measure" --format json -g $g or.lime > m.json
        agree or.json m.json 1e-14 gauge F theta
        python3 -c 'import json; d=json.load(open("or.json")); assert d["converged"] is True and d["iterations"] > 0 and d["method"] == "overrelaxation", d'
        run -0 "$BIN/lat-anneal" -g $g --steps 20 --format json -o sa.lime r.lime
        echo "$output" > sa.json
        is_json sa.json
        "$BIN/lat-measure" --format json -g $g sa.lime > m.json
        agree sa.json m.json 1e-12 gauge F theta
        python3 -c 'import json; d=json.load(open("sa.json")); assert "converged" not in d and d["steps"] == 20 and d["iterations"] == 20, d'
        run -0 "$BIN/lat-fourier" -g $g --format json -o fa.lime r.lime
        echo "$output" > fa.json
        is_json fa.json
        "$BIN/lat-measure" --format json -g $g fa.lime > m.json
        agree fa.json m.json 1e-14 gauge F theta
        # per timeslice: the same sums in another order (rounding)
        if [ $g = coulomb ]; then agree fa.json m.json 1e-12 F_t theta_t; agree or.json m.json 1e-12 F_t theta_t; fi
    done
}

@test "lat-convert: --precision 32 (old spelling) and --file-precision 32 give the same bytes; the reports' keys are lat-measure's" {
    "$BIN/lat-convert" -q --to nersc --precision 32 -o a.nersc "$T/c4.lime"
    "$BIN/lat-convert" -q --to nersc --file-precision 32 -o b.nersc "$T/c4.lime"
    cmp a.nersc b.nersc
    grep -a -q '^FLOATING_POINT = IEEE32BIG' a.nersc
    "$BIN/lat-convert" --precision 32 -o a.lime "$T/c4.lime"
    "$BIN/lat-convert" --file-precision 32 -o b.lime "$T/c4.lime"
    cmp <(lime_payload a.lime ildg-binary-data) <(lime_payload b.lime ildg-binary-data)
    [ "$(lime_payload a.lime ildg-binary-data | wc -c)" -eq $((256 * 4 * 18 * 4)) ]
    # the conversion's report: the input's measurements, the written precision
    "$BIN/lat-convert" --format json --file-precision 32 -o c.lime "$T/c4.lime" > cv.json
    is_json cv.json
    "$BIN/lat-measure" --format json "$T/c4.lime" > m0.json
    "$BIN/lat-measure" --format json c.lime > m1.json
    agree cv.json m0.json 0 file lattice nc plaquette link_trace
    agree cv.json m1.json 0 file_precision
    [ "$(jget cv.json to)" = ildg ] && [ "$(jget cv.json from)" = ildg ]
    # configuration on stdout: the report on stderr (-q: without the warning
    # that NERSC cannot hold the history)
    "$BIN/lat-convert" -q --format json --to nersc "$T/c4.lime" 2> cv2.json > c.nersc
    is_json cv2.json
    "$BIN/lat-measure" --format json c.nersc > m2.json
    agree cv2.json m2.json 1e-10 plaquette
    # --check: lat-measure's keys too (format and precision stay for old scripts)
    "$BIN/lat-convert" --check --format json c.nersc > ck.json
    is_json ck.json
    agree ck.json m2.json 0 file file_format file_precision lattice nc plaquette link_trace unitarity_max
    [ "$(jget ck.json precision)" = "$(jget ck.json file_precision)" ]
}

@test "lat-measure and lat-unitarity --format json agree; lat-unitarity --reproject's report follows the configuration" {
    "$BIN/lat-measure" --format json "$T/c4.lime" > m.json
    "$BIN/lat-unitarity" --format json "$T/c4.lime" > u.json
    is_json m.json
    is_json u.json
    agree u.json m.json 0 file file_format file_precision lattice nc unitarity_mean unitarity_max unitarity_det_mean unitarity_det_max
    run --separate-stderr -0 "$BIN/lat-unitarity" --reproject --format json -o r.lime "$T/c4.lime"
    [ -z "$stderr" ]
    echo "$output" > r.json
    is_json r.json
    "$BIN/lat-unitarity" --reproject --format json "$T/c4.lime" 2> r2.json > r2.lime
    is_json r2.json
    cmp <(lime_payload r.lime ildg-binary-data) <(lime_payload r2.lime ildg-binary-data)
    # -q: the report on stdout stays (the program's output), stderr is empty
    run --separate-stderr -0 "$BIN/lat-unitarity" -q --format json "$T/c4.lime"
    [ -z "$stderr" ]
    echo "$output" > q.json
    agree q.json u.json 0 unitarity_max status
}

@test "lat-gaugefix --format json: the final stage's report; F and theta as lat-measure measures the result" {
    "$PIPE/lat-gaugefix" -q --randomize -s 3 --sa-steps 20 --format json -o gf.lime "$T/c4.lime" > gf.json
    is_json gf.json
    "$BIN/lat-measure" --format json -g landau gf.lime > m.json
    agree gf.json m.json 1e-14 gauge F theta
    [ "$(jget gf.json method)" = overrelaxation ] && [ "$(jget gf.json converged)" = True ]
    # standard output carries the configuration: the report on stderr
    "$PIPE/lat-gaugefix" -q --randomize -s 3 --sa-steps 20 --format json "$T/c4.lime" 2> gf2.json > gf2.lime
    is_json gf2.json
    agree gf.json gf2.json 0 F theta iterations
    cmp <(lime_payload gf.lime ildg-binary-data) <(lime_payload gf2.lime ildg-binary-data)
    run -2 "$PIPE/lat-gaugefix" --format xml "$T/c4.lime"
}

@test "lat-gribov-scan --format json: the scan's summary and table, the same numbers as its TSV table and the best copy" {
    "$PIPE/lat-gribov-scan" -q -c 3 -s 5 --sa-steps 20 --tsv t.tsv -o best.lime --format json "$T/c4.lime" > s.json
    is_json s.json
    "$BIN/lat-measure" --format json -g landau best.lime > m.json
    python3 - <<'EOF'
import csv, json
s = json.load(open("s.json")); m = json.load(open("m.json"))
rows = list(csv.DictReader(open("t.tsv"), delimiter="\t"))
assert s["copies"] == len(rows) == 3 and s["seed"] == 5 and s["first_copy"] == 0 and s["gauge"] == "landau", s
assert len(s["table"]) == 3
for r, j in zip(rows, s["table"]):
    assert int(r["copy"]) == j["copy"] and float(r["F"]) == j["F"] and float(r["theta"]) == j["theta"], (r, j)
    assert int(r["iterations"]) == j["sweeps"] and (r["converged"] == "yes") == j["converged"], (r, j)
    assert float(r["F_rel"]) == j["F_rel"], (r, j)
fs = [float(r["F"]) for r in rows]
assert s["F_max"] == max(fs) and abs(s["F_mean"] - sum(fs) / 3) < 1e-15, s
assert s["converged_copies"] == sum(r["converged"] == "yes" for r in rows)
assert s["at_F_max"] == sum((max(fs) - f) / max(fs) < 1e-10 for f in fs)
best = [j for j in s["table"] if j["copy"] == s["best_copy"]][0]
assert s["best_F"] == best["F"] and abs(best["F"] - m["F"]) < 1e-13, (s, m)
EOF
    # text: the same summary as name-value lines on stdout; tsv (the default): the table
    "$PIPE/lat-gribov-scan" -q -c 3 -s 5 --sa-steps 20 --format text "$T/c4.lime" > s.txt
    [ "$(awk '$1 == "best_copy" { print $2 }' s.txt)" = "$(jget s.json best_copy)" ]
    [ "$(awk '$1 == "copies" { print $2 }' s.txt)" = 3 ]
    "$PIPE/lat-gribov-scan" -q -c 3 -s 5 --sa-steps 20 "$T/c4.lime" > t2.tsv
    cmp t.tsv t2.tsv
}

@test "-q: standard error stays empty on runs that warn without it" {
    export SOURCE_DATE_EPOCH=yesterday # not a number: every history entry warns
    run --separate-stderr -0 "$BIN/lat-randomize-orbit" -o r.lime "$T/c4.lime"
    [[ "$stderr" == *"warning: "*"SOURCE_DATE_EPOCH"* ]]
    run --separate-stderr -0 "$BIN/lat-randomize-orbit" -q -o r.lime "$T/c4.lime"
    [ -z "$stderr" ]
    run --separate-stderr -0 "$BIN/lat-heatbath" -b 6 -L 4 -n 1 -o h.lime
    [[ "$stderr" == *"warning: "* ]]
    for cmd in "$BIN/lat-heatbath -b 6 -L 4 -n 1" "$BIN/lat-overrelax $T/c4.lime" "$BIN/lat-anneal --steps 5 $T/c4.lime" \
               "$BIN/lat-fourier $T/c4.lime" "$BIN/lat-unitarity --reproject $T/c4.lime" "$BIN/lat-convert $T/c4.lime" \
               "$PIPE/lat-gaugefix --randomize --sa-steps 5 $T/c4.lime"; do
        run --separate-stderr -0 $cmd -q -o out.lime
        [ -z "$stderr" ] || { echo "$cmd -q: $stderr"; return 1; }
        [ -s out.lime ]
        rm out.lime
    done
    unset SOURCE_DATE_EPOCH
    # a NERSC file cannot hold the history: a warning, silenced by -q
    "$BIN/lat-heatbath" -q -b 6 -L 4 -n 1 -o h.lime
    run --separate-stderr -0 "$BIN/lat-convert" --to nersc -o h.nersc h.lime
    [[ "$stderr" == *"warning: "*"cannot hold the history"* ]]
    run --separate-stderr -0 "$BIN/lat-convert" -q --to nersc -o h.nersc h.lime
    [ -z "$stderr" ]
    # --format json is asked for: -q keeps it
    run --separate-stderr -0 "$BIN/lat-overrelax" -q --format json -o o.lime h.lime
    [ -z "$stderr" ] && echo "$output" > o.json && is_json o.json
}

@test "-s is --seed, -o is --output, -c is --copies; the old spelling -n still works in the pipelines, with a warning" {
    "$BIN/lat-randomize-orbit" -q -s 9 -o a.lime "$T/c4.lime"
    "$BIN/lat-randomize-orbit" -q --seed 9 -o b.lime "$T/c4.lime"
    "$BIN/lat-randomize-orbit" -q --seed 8 -o c.lime "$T/c4.lime"
    cmp <(lime_payload a.lime ildg-binary-data) <(lime_payload b.lime ildg-binary-data)
    ! cmp -s <(lime_payload a.lime ildg-binary-data) <(lime_payload c.lime ildg-binary-data) || false
    run --separate-stderr -0 "$PIPE/lat-gaugefix" -n -s 4 -w 1.7 "$T/c4.lime"
    [[ "$stderr" == "lat-gaugefix: warning: -n is the old spelling of --dry-run"* ]]
    [[ "$output" == *"--seed 4"*"--omega 1.7"* ]]
    run --separate-stderr -0 "$PIPE/lat-gaugefix" -q -n "$T/c4.lime"
    [ -z "$stderr" ] && [[ "$output" == *lat-anneal*lat-overrelax* ]]
    run --separate-stderr -0 "$PIPE/lat-gribov-scan" -n 2 --no-sa --no-sr --output best.lime "$T/c4.lime"
    [[ "$stderr" == "lat-gribov-scan: warning: -n is the old spelling of -c/--copies"* ]]
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 3 ] && [ -s best.lime ]
    run --separate-stderr -0 "$PIPE/lat-gribov-scan" -q -c 2 --no-sa --no-sr --best best2.lime "$T/c4.lime"
    [ -z "$stderr" ]
    cmp <(lime_payload best.lime ildg-binary-data) <(lime_payload best2.lime ildg-binary-data)
}
