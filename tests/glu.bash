# glu.bash -- GLU (R. Hudspith's gauge-fixing code, built for SU(3)) as the
# peer program of the format tests: where it is, an input file for it, a
# run of it, and the numbers it prints on reading a configuration.  Needs
# $ROOT (common.bash's lat_test_paths).
#   need_glu                 skip the test without GLU; else $GLU is it
#   glu_input MODE HEADER STORAGE LX LY LZ LT [KEY=VALUE...]
#   glu_run IN CONF OUT LOG  GLU -i IN -c CONF [-o OUT], its output in LOG
#   glu_read_value LOG plaquette|trace

# GLU is $LAT_TEST_GLU, else $GLU, else ../glu/bin/GLU beside the tree
need_glu() {
    GLU="${LAT_TEST_GLU:-${GLU:-$ROOT/../glu/bin/GLU}}"
    [ -x "$GLU" ] || skip "GLU is absent at $GLU (set LAT_TEST_GLU): the peer-program checks cannot run"
}

# An input file on stdout: read a HEADER file (its extents LX LY LZ LT;
# GLU takes them from the file's header for the formats tested here), run
# MODE (REWRITE, SMEARING with SMITERS = 0 or GAUGE_FIXING with MAX_ITERS =
# 0: the field it read, after its reunitarisation) and write STORAGE.  GLU
# wants every tag present, whatever the mode; KEY=VALUE replaces the value
# of the tag KEY (SMITERS=1: one APE smearing step).
glu_input() { # MODE HEADER STORAGE LX LY LZ LT [KEY=VALUE...]
    local text kv
    text="MODE = $1
HEADER = $2
	DIM_0 = $4
	DIM_1 = $5
	DIM_2 = $6
	DIM_3 = $7
CONFNO = 1
RANDOM_TRANSFORM = NO
SEED = 0
GFTYPE = LANDAU
	GF_TUNE = 0.09
	ACCURACY = 14
	MAX_ITERS = 0
CUTTYPE = GLUON_PROPS
	FIELD_DEFINITION = LINEAR
	MOM_CUT = CYLINDER_CUT
	MAX_T = 7
	MAXMOM = 4
	CYL_WIDTH = 2.0
	ANGLE = 60
	OUTPUT = ./
SMEARTYPE = APE
	DIRECTION = ALL
	SMITERS = 0
	ALPHA1 = 0.6
	ALPHA2 = 0.4
	ALPHA3 = 0.2
U1_MEAS = U1_RECTANGLE
	U1_ALPHA = 0.07957753876221914
	U1_CHARGE = -1.0
CONFIG_INFO = lat_test
	STORAGE = $3
BETA = 6.0
	ITERS = 1
	MEASURE = 1
	OVER_ITERS = 4
	SAVE = 25
	THERM = 100"
    shift 7
    for kv in "$@"; do
        text=$(printf '%s\n' "$text" | awk -v k="${kv%%=*}" -v v="${kv#*=}" '
            { t = $0; sub(/^[ \t]+/, "", t) }
            index(t, k " = ") == 1 { print substr($0, 1, index($0, "=")) " " v; found = 1; next }
            { print }
            END { exit !found }') || { echo "glu_input: no tag ${kv%%=*} in GLU's input file" >&2; return 1; }
    done
    printf '%s\n' "$text"
}

# GLU on CONF, writing OUT (names relative to the current folder, as GLU
# takes them; OUT "": GLU writes no configuration); everything it prints
# goes to LOG, shown when it fails
glu_run() { # IN CONF OUT LOG
    "$GLU" -i "$1" -c "$2" ${3:+-o "$3"} > "$4" 2>&1 || { echo "GLU failed (status $?):"; cat "$4"; return 1; }
}

# the plaquette or the link trace GLU computed of the field it read: its
# first line "[IO] Calculated Trace :: TRACE  || Plaq :: PLAQUETTE"
glu_read_value() { # LOG plaquette|trace
    case $2 in plaquette | trace) ;; *) echo "glu_read_value: '$2' is not plaquette or trace" >&2; return 1 ;; esac
    awk -v w="$2" '/^\[IO\] Calculated Trace :: / { print (w == "trace" ? $5 : $9); found = 1; exit } END { exit !found }' "$1" ||
        { echo "no '[IO] Calculated Trace' line in $1:" >&2; cat "$1" >&2; return 1; }
}
