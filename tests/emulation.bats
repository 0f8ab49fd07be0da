#!/usr/bin/env bats
# emulation.bats -- host checks of GPU device code that need neither a GPU
# nor nvcc, only g++ (run on any build, CUDA=0 included): the link storage
# of gpu_field with 12 and 8 reals (scripts/link8-emulation); the heatbath
# kernel of every SU(N) against the CPU backend (scripts/hb-kernel-emulation);
# the GPU gauge-fixing backend of SU(N), N = 2..8, against the CPU backend
# (scripts/sun-emulation); the GPU Wilson-clover operator of every storage
# precision and link compression against the CPU operator
# (scripts/dirac-emulation); the solvers' GPU vector kernels against
# solver_blas_cpu, kernel by kernel and in whole solves (scripts/blas-emulation);
# the GPU staggered operator against the CPU's (scripts/staggered-emulation);
# lat-hmc's GPU solver backend in one HMC trajectory against the CPU path
# (scripts/hmc-gpu-emulation); the GPU HMC gauge kernels, the integrator's
# device path and lat-hmc --nf 0 --device gpu
# against the CPU HMC (scripts/hmc-gauge-emulation).
# (scripts/hmc-gpu-emulation); the GPU HMC gauge kernels and trajectory
# against the CPU HMC (scripts/hmc-gauge-emulation); lat-fourier's GPU
# backend on MPI t-slabs with cuFFT on FFTW, R = 1, 2, 4 against each other
# and the CPU backend (scripts/fourier-emulation).
# (scripts/hmc-gpu-emulation); the GPU HMC gauge kernels and trajectory
# against the CPU HMC (scripts/hmc-gauge-emulation); the GPU Wilson-clover
# operator and its solves on t-slabs of 1, 2, 4 MPI ranks, bit for bit
# across R (scripts/dirac-slab-emulation); the GPU staggered operator and
# its multi-shift solves likewise (scripts/staggered-slab-emulation); the
# GPU HMC's gauge part on t-slabs (scripts/hmc-gauge-slab-emulation).
# (scripts/hmc-gpu-emulation); the GPU HMC gauge kernels and trajectory
# against the CPU HMC (scripts/hmc-gauge-emulation); the staggered
# monomial's device callbacks against its host callbacks
# (scripts/hmc-stag-emulation), and on t-slabs with an emulated lat-hmc
# --device gpu under mpirun (scripts/hmc-stag-slab-emulation); bench/solver_gpu's
# GPU path with the emulated kernels (scripts/solver-profile-emulation).

@test "GPU link storage (12 and 8 reals) on the host: upload layout, accessor load/store, download, halo k_pack" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/link8-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/link8-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^link8-emulation: [0-9]* passed, 0 failed$'
    [ "$(echo "$output" | grep -c 'as the reference')" -eq 5 ]
}

@test "CUDA heatbath kernel on the host, SU(2)..SU(8), double/single/mixed: the CPU backend's links bit for bit" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/hb-kernel-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/hb-kernel-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    for p in d s m; do
        echo "$output" | grep -q "^hb-kernel-emulation $p: [0-9]* passed, 0 failed$"
    done
    # every N in every precision ran its 6 sweeps; bit for bit everywhere but mixed SU(3) (see the .cpp)
    for n in 2 3 4 5 6 7 8; do
        for p in d s m; do
            echo "$output" | grep -q "^SU($n) $p 4^4 .* OR3 .*; links moved"
        done
    done
    [ "$(echo "$output" | grep -c 'HB1 identical OR1 identical HB2 identical OR2 identical HB3 identical OR3 identical')" -eq 20 ]
}

@test "SU(N) on the emulated GPU, N = 2,3,4,5,6,8: gauge-fixing sweeps = CPU (double bit for bit), observables, the one refusal" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/sun-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/sun-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^sun-emulation: [0-9]* passed, 0 failed$'
    # every N ran, double bit-identical where the links are stored whole
    for n in 2 4 5 6 8; do echo "$output" | grep -q "^SU($n): 11 cases: double bit-identical yes"; done
    echo "$output" | grep -q '^SU(3): 11 cases: double within'
    echo "$output" | grep -q 'kernels for SU(2)..SU(8), not SU(9)'
}

@test "GPU Wilson-clover Mhat on the host, double/single/half x 18/12/8-real links: the CPU operator, gamma5-hermiticity, zero padding" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/dirac-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/dirac-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^dirac-emulation: [0-9]* passed, 0 failed$'
    # every (lattice, c_sw, recon) ran in every precision, padding zero;
    # unit links (recon 8's degenerate form) with 12 and 8 reals
    # (half: over 16-bit links, and over the float links nearer the CPU)
    for p in double single "half +\(16-bit links\)" "half +\(32-bit links\)"; do
        for r in 18 12 8; do
            [ "$(echo "$output" | grep -cE "^[0-9x]+ c_sw [0-9.]+ +recon +$r $p *: .*padding zero$")" -eq 4 ]
        done
        case $p in *32-bit*) continue ;; esac
        [ "$(echo "$output" | grep -cE "^unit links [0-9x]+ c_sw [0-9.]+ +recon +(12|8) $p *: .*padding zero$")" -eq 2 ]
    done
    # the half sweeps' 16-bit link format: each recon's round trip, +-pi, the degenerate flag
    [ "$(echo "$output" | grep -cE '^16-bit links recon +(18|12|8): worst stored real 0\.([0-4][0-9]*|5000) steps off')" -eq 3 ]
    echo "$output" | grep -qE '^16-bit links: \+-pi stored as \+-3276[567] within half a step, the unit matrix \(degenerate form\) exact$'
    [ "$(echo "$output" | grep -c '^refusals: SU(2), recon 10$')" -eq 2 ]
    # a NaN input site reaches exactly its 29 two-hop odd sites on 4^4 (self, 4 straight, 24 bent)
    echo "$output" | grep -q '^half NaN: 29 of 128 output sites NaN'
}

@test "solvers' GPU vector kernels on the host: the CPU kernels' bits, fused = unfused bits (BiCGstab's too), BiCGstab's device loop = its host loop's bits, reductions to 1e-13, CG/BiCGstab/CGNE/multi-shift d/s/h as on the CPU" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/blas-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/blas-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^blas-emulation: [0-9]* passed, 0 failed$'
    # both shapes (Wilson 24 reals, staggered 6 in ncomp 8), 45 elementwise cases each, all bit for bit
    echo "$output" | grep -q '^77 sites x 24 reals: 45 of 45 elementwise results the CPU.s bits, padding zero in 45;'
    echo "$output" | grep -q '^45 sites x 6 reals: 45 of 45 elementwise results the CPU.s bits, padding zero in 45;'
    # the fused kernels: every kernel and precision pair gives the unfused sequence's bits (45 x 6: two multi launches)
    # (5 kernels, multi_axpy_caxpby's p's and x_i compared too)
    echo "$output" | grep -q '^77 sites x 24 reals: 47 of 47 fused cases .* give the unfused bits$'
    echo "$output" | grep -q '^45 sites x 6 reals: 47 of 47 fused cases .*; 35 vectors) give the unfused bits$'
    # multi_axpy_caxpby (the multi-shift's x_i, p_i): one launch for 12 shifts, two for 35, in d, s, h
    [ "$(echo "$output" | grep -cE '^(77 sites x 24|45 sites x 6) reals: multi_axpy_caxpby [dsh] p, double x_i: 1 launch for 12 shifts, 2 for 35$')" -eq 6 ]
    # ... and with reduction layouts (6: chunks of 5..2600 sites, 1..6 pieces, parts 1 and 2): the fused
    # layout path = the unfused layout path bit for bit, one launch, the padding written as the unfused axpy does
    [ "$(echo "$output" | grep -cE '^layout of [0-9]+-site chunks .* 47 of 47 fused cases .* give the unfused bits$')" -eq 6 ]
    [ "$(echo "$output" | grep -cE '^layout of .*: axpy_norm2 and axpy_cdot one launch each \(one precision\), yes$')" -eq 6 ]
    [ "$(echo "$output" | grep -cE '^layout of .*: a = NaN \(unfused padding sites NaN: yes\), fused y = unfused y bits: yes$')" -eq 6 ]
    echo "$output" | grep -q '^layout of 1100-site chunks (3 pieces), first 1 of 4, 2 parts: '
    # BiCGstab's fused kernels (cdot_norm2, caxpby_norm2_cdot, caxpby2): every precision set it uses, the
    # unfused GPU bits and one launch, without a layout (2 shapes) and on the 6 layouts; whole BiCGstab
    # solves d/s/h and a breakdown (A = 0) bit for bit with the device loop, the host loop and without
    # the fused kernels (2 shapes, 3 layouts); on a layout the device loop took every solve
    [ "$(echo "$output" | grep -cE ' reals: 12 of 12 BiCGstab fused cases .* give the unfused bits$')" -eq 8 ]
    [ "$(echo "$output" | grep -cE ' reals: bicgstab double-(double|single|half)(, A = 0)? on the GPU kernels, .*: yes$')" -eq 20 ]
    [ "$(echo "$output" | grep -cE 'bicgstab double-half, A = 0 on the GPU kernels, breakdown after 1 iterations')" -eq 5 ]
    [ "$(echo "$output" | grep -E 'layout of .*bicgstab' | grep -c ', 0 parts in the device loop')" -eq 0 ]
    # every solver in every sloppy precision ran on both shapes (multi-shift: 4 shifts)
    for sh in "77 x 24" "45 x 6"; do
        for sv in cg bicgstab cgne; do
            for p in double single half; do echo "$output" | grep -q "^$sh $sv $p: iterations GPU"; done
        done
        [ "$(echo "$output" | grep -c "^$sh multishift .*: iterations GPU")" -eq 12 ]
    done
    echo "$output" | grep -q 'determinism: .* bit-identical$'
}

@test "GPU staggered operator on the host: K = (M^dag M)_ee vs the CPU (double bits with 18 reals), single, half, Hermitian, views, CG and multi-shift CG" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/staggered-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/staggered-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^staggered-emulation: [0-9]* passed, 0 failed$'
    # 3 lattices x 2 masses x 3 recons, each with the 18-real double result the CPU's bits
    [ "$(echo "$output" | grep -c '^[0-9x]* m 0\.[0-9]* recon [ 0-9]*: K vs CPU double')" -eq 18 ]
    [ "$(echo "$output" | grep -c 'recon 18: K vs CPU double 0.00e+00 (bits)')" -eq 6 ]
    # the views in solver_cg and solver_multishift_cg (staged vector kernels): 2 operators x 3 sloppy precisions
    [ "$(echo "$output" | grep -c "^  solvers 4x4x4x4 m .* multi-shift")" -eq 6 ]
    echo "$output" | grep -q '^6x6x6x4 m 0.50 recon  8'
}

@test "lat-hmc's GPU solver backend on the host: one trajectory (N_f = 2 RHMC, N_f = 4 exact) dH within 1e-9 and links within 1e-10 of the CPU path, mixed, condensate; lat-hmc --device gpu (emulated) = --device cpu" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/hmc-gpu-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/hmc-gpu-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^hmc-gpu-emulation: [0-9]* passed, 0 failed$'
    # both fermion modes compared (the GPU path solved), and the condensate
    [ "$(echo "$output" | grep -c '^N_f = [24] .*, double: dH cpu .* iterations cpu [1-9][0-9]* gpu [1-9][0-9]*$')" -eq 2 ]
    echo "$output" | grep -q '^condensate cpu '
    # lat-hmc itself linked with the emulated GPU layer: --device gpu against --device cpu
    echo "$output" | grep -q '^hmc-gpu-emulation lat-hmc: 6 passed, 0 failed$'
}

@test "GPU HMC gauge kernels on the host (4^3x8, 6x4x4x8): momenta, T, S, force, link and momentum updates = CPU HMC; the general integrator's device path = its host path (MD over two scales, its reversal, whole trajectories, a reject restored); lat-hmc --nf 0 --device gpu (emulated) = --device cpu" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/hmc-gauge-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/hmc-gauge-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^hmc-gauge-emulation: [0-9]* passed, 0 failed$'
    # both lattices ran every check; the momenta are the CPU's bits
    for l in 4x4x4x8 6x4x4x8; do
        echo "$output" | grep -q "^$l momenta: .*, bit-identical$"
        echo "$output" | grep -q "^$l force vs numerical derivative"
        echo "$output" | grep -q "^$l MD (beta 5.7, tau 0.5, 5 2MN steps x 2 substeps, two time scales): links GPU vs CPU"
        echo "$output" | grep -q "^$l reversibility: links back to"
        [ "$(echo "$output" | grep -c "^$l trajectory (tau .*accepted GPU \([01]\) CPU \1, links GPU vs CPU")" -eq 2 ]
        echo "$output" | grep -q "^$l trajectory (tau 3.0, 1 steps): .*, rejected: start links restored bit for bit$"
    done
    # SU(2), 12-real links, 0 MD steps, P += eps P, a host-only monomial refused with one line, exit 1
    [ "$(echo "$output" | grep -c '^refusal .*: exit 1, 1 line(s): hmc-gauge-emulation: GPU HMC: ')" -eq 5 ]
    # lat-hmc --nf 0 --device gpu linked with the emulated kernels (the whole trajectory on the device) = --device cpu
    echo "$output" | grep -q '^lat-hmc --nf 0, --device gpu (emulated) vs cpu: '
    echo "$output" | grep -q '^hmc-gauge-emulation lat-hmc: 4 passed, 0 failed$'
}

@test "lat-fourier's GPU backend on t-slabs on the host (cuFFT on FFTW): R = 1,2,4 and 1,3 byte-identical, double = CPU to 1e-12" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/fourier-emulation compiles the device code with it"
    command -v mpirun >/dev/null || skip "mpirun not found: scripts/fourier-emulation runs the backend on 1, 2, 3 and 4 ranks"
    grep -q 'MPI=1' "$BATS_TEST_DIRNAME/../build/.config" || skip "built without MPI (make MPI=0): no slabs to compare"
    grep -q 'FFT=1' "$BATS_TEST_DIRNAME/../build/.config" || skip "built without FFTW (make FFT=0): no CPU backend and no cuFFT stand-in"
    run "$BATS_TEST_DIRNAME/../scripts/fourier-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^fourier-emulation: 9 passed, 0 failed$'
    # every case ran on every R and matched byte for byte
    [ "$(echo "$output" | grep -c 'output and log identical: yes; after [0-9]* logged iterations')" -eq 9 ]
    echo "$output" | grep -q '^4x4x4x8 landau --stall 2 --restarts 2: emulated GPU on R = 1,2,4 (peer), output and log identical: yes'
    echo "$output" | grep -q '^4x4x4x8 coulomb --method cg: emulated GPU on R = 1,2,4 (peer)'
    # Landau's transpose and halo slices both ways: device to device (peer) and staged through the host
    for via in peer host; do
        echo "$output" | grep -q "^4x4x4x8 landau --method cg: emulated GPU on R = 1,2,4 ($via), output and log identical: yes"
        echo "$output" | grep -q "^4x4x4x6 landau --method cg: emulated GPU on R = 1,3 ($via), output and log identical: yes"
    done
}

@test "GPU staggered K and multi-shift CG on t-slabs on the host, mpirun -np 1, 2, 4 (and 2 through the host): the same bytes for every R, = CPU slab operator (18 reals double: its bits), solves to 2e-10" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/staggered-slab-emulation compiles the device code with it"
    command -v mpirun >/dev/null || skip "mpirun is missing: the slabs need MPI ranks"
    grep -q 'MPI=1' "$BATS_TEST_DIRNAME/../build/.config" 2>/dev/null || skip "this build has no MPI (make MPI=1)"
    run "$BATS_TEST_DIRNAME/../scripts/staggered-slab-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^staggered-slab-emulation: [0-9]* passed, 0 failed$'
    [ "$(echo "$output" | grep -c 'give the same bytes')" -eq 3 ]
    for r in 1 2 4; do
        echo "$output" | grep -q "^staggered-slab-emulation R=$r: [0-9]* passed, 0 failed$"
        # double, links in 18 reals: the CPU's bits exactly on every R
        echo "$output" | grep -q "^R=$r recon 18 double: K 0.00e+00 vs the CPU (bound 1e-13), the same bits$"
        # the links refreshed on the device from a halo-sliced HMC field: the same
        echo "$output" | grep -q "^R=$r recon 18 double (device links): K 0.00e+00 vs the CPU (bound 1e-13), the same bits$"
    done
    [ "$(echo "$output" | grep -c '(device links): K ')" -eq 36 ]
    [ "$(echo "$output" | grep -c 'multi-shift CG sloppy .*: converged, ')" -eq 8 ]
}

@test "GPU HMC gauge part on t-slabs on the host, mpirun -np 1, 2, 4 (and 2, 4 through the host): momenta, T, S, two 2MN steps = CPU HMC on the slab, the same bytes for every R; an odd slab refused" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/hmc-gauge-slab-emulation compiles the device code with it"
    command -v mpirun >/dev/null || skip "mpirun is missing: the slabs need MPI ranks"
    grep -q 'MPI=1' "$BATS_TEST_DIRNAME/../build/.config" 2>/dev/null || skip "this build has no MPI (make MPI=1)"
    run "$BATS_TEST_DIRNAME/../scripts/hmc-gauge-slab-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^hmc-gauge-slab-emulation: [0-9]* passed, 0 failed$'
    [ "$(echo "$output" | grep -c 'give the same bytes')" -eq 4 ]
    for r in 1 2 4; do
        echo "$output" | grep -q "^hmc-gauge-slab-emulation R=$r: 11 passed, 0 failed$"
    done
    # the draw keyed by the global site: the CPU's numbers on every R
    [ "$(echo "$output" | grep -c '^momenta draw: largest |GPU - CPU| 0 (owned sites)$')" -eq 5 ]
    echo "$output" | grep -q '^R=8 (1 timeslice a rank) refused: .*even number.*: ok$'
}

@test "GPU Wilson-clover Mhat and solves on t-slabs on the host, mpirun -np 1, 2, 4: the same bytes for every R, = CPU operator (double 1e-13), solves to 2e-10; prepare/reconstruct = CPU bits, residual norms 1e-13; lat-propagator --device gpu R = 1, 2 the same file, --columns together the apart propagator" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/dirac-slab-emulation compiles the device code with it"
    command -v mpirun >/dev/null || skip "mpirun is missing: the slabs need MPI ranks"
    grep -q 'MPI=1' "$BATS_TEST_DIRNAME/../build/.config" 2>/dev/null || skip "this build has no MPI (make MPI=1)"
    run "$BATS_TEST_DIRNAME/../scripts/dirac-slab-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^dirac-slab-emulation: [0-9]* passed, 0 failed$'
    # 4^3x8: R = 1 vs 2, 4 and 4 through the host; 4x4x4x16: 1 vs 4
    [ "$(echo "$output" | grep -c 'give the same bytes')" -eq 4 ]
    for r in 1 2 4; do
        echo "$output" | grep -q "^dirac-slab-emulation R=$r: [0-9]* passed, 0 failed$"
        # double, links in 18 reals: the CPU's bits exactly on every R
        echo "$output" | grep -q "^R=$r recon 18 double: Mhat 0.00e+00 Mhat^dag 0.00e+00"
    done
    # 4^3x8 (R = 1, 2, 4, 4 through the host): CGNE d/s/h, BiCGstab d/h sloppy; 4x4x4x16 (R = 1, 4): CGNE d/h
    [ "$(echo "$output" | grep -c 'converged, ')" -eq 24 ]
    # the even-odd ends lat-propagator runs on the device (clover and Wilson, 6 runs
    # each): prepare and reconstruct the CPU's bits, not a real differing
    [ "$(echo "$output" | grep -c '^R=[124] eo ends \(clover\|Wilson\): prepare 0, reconstruct 0 reals differ')" -eq 12 ]
    # lat-propagator --device gpu with the emulated kernels: one rank and two, the same file
    echo "$output" | grep -q '^lat-propagator --device gpu (emulated) .*: R=1 and R=2 files the same bytes, converged: ok$'
    # --columns together: the apart propagator, and refused on two ranks
    echo "$output" | grep -q '^lat-propagator --columns together (emulated) .*: every column converged; correlators within .* ok$'
    echo "$output" | grep -q '^lat-propagator --columns together on 2 ranks: refused (.*): ok$'
}

@test "staggered monomial device path on the host (4^3x8, 6^3x4): link refresh and noise bit for bit, phi, S, force = host callbacks; force vs numerical derivative" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/hmc-stag-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/hmc-stag-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^hmc-stag-emulation: [0-9]* passed, 0 failed$'
    for l in 4x4x4x8 6x6x6x4; do
        # the operator's links refreshed device to device in every storage
        [ "$(echo "$output" | grep -c "^$l device link refresh, .* differ by 0, float links by 0 ")" -eq 3 ]
        echo "$output" | grep -q "^$l noise: even half bit-identical (0), all sites bit-identical (0)$"
        # both modes compared, the device path really solved
        [ "$(echo "$output" | grep -c "^$l N_f = [24] .*: phi rel .* iterations cpu [1-9][0-9]* gpu [1-9][0-9]*$")" -eq 2 ]
        echo "$output" | grep -q "^$l N_f = 2 RHMC, mixed MD solves (tol 1e-8): force rel "
    done
    # the force against a numerical derivative of action_gpu (4^3x8)
    [ "$(echo "$output" | grep -c "^4x4x4x8 N_f = [24] .*: force vs numerical derivative of action_gpu")" -eq 2 ]
}

@test "staggered monomial's device path on t-slabs on the host, mpirun -np 1, 2, 4 (and 2 through the host): noise bit for bit, phi, S, force = CPU monomial on the slab, the same bytes for every R; emulated lat-hmc --nf 2 --device gpu on 1, 2, 4 ranks: the same file, = --device cpu; --split pseudofermions on 2 ranks: one rank's links; an odd slab refused" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/hmc-stag-slab-emulation compiles the device code with it"
    command -v mpirun >/dev/null || skip "mpirun is missing: the slabs need MPI ranks"
    grep -q 'MPI=1' "$BATS_TEST_DIRNAME/../build/.config" 2>/dev/null || skip "this build has no MPI (make MPI=1)"
    run "$BATS_TEST_DIRNAME/../scripts/hmc-stag-slab-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^hmc-stag-slab-emulation: [0-9]* passed, 0 failed$'
    [ "$(echo "$output" | grep -c '^callbacks: R=1 and R=.* give the same bytes')" -eq 3 ]
    for r in 1 2 4; do
        echo "$output" | grep -q "^hmc-stag-slab-emulation R=$r: [0-9]* passed, 0 failed$"
    done
    [ "$(echo "$output" | grep -c '^noise on the slabs: even half bit-identical (0), all sites bit-identical (0)$')" -eq 4 ]
    [ "$(echo "$output" | grep -c 'the same output file bytes: ok$')" -eq 3 ]
    [ "$(echo "$output" | grep -c 'the same log (physics columns): ok$')" -eq 5 ]
    # --split pseudofermions on two ranks (npf 2 and 3): one rank's links and log
    [ "$(echo "$output" | grep -c '^lat-hmc --npf [23] --device gpu: --split pseudofermions on R=2: one rank.s links: ok$')" -eq 2 ]
    echo "$output" | grep -q '^lat-hmc --device gpu (R=2) = --device cpu to dH 1e-9, links 1e-10: ok$'
    echo "$output" | grep -q '^lat-hmc --device gpu, 4 ranks on 4^3x4 refused: .*even number.*: ok$'
}

@test "bench/solver_gpu's GPU path on the host: wrapped callbacks, device syncs, every Mhat and true residual in its row" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/solver-profile-emulation compiles the device code with it"
    grep -q 'MPI=1' "$BATS_TEST_DIRNAME/../build/.config" 2>/dev/null || skip "this build has no MPI (make MPI=1)"
    run "$BATS_TEST_DIRNAME/../scripts/solver-profile-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^solver-profile-emulation: 9 passed, 0 failed$'
}
