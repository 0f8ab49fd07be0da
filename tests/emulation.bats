#!/usr/bin/env bats
# emulation.bats -- host checks of GPU device code that need neither a GPU
# nor nvcc, only g++ (run on any build, CUDA=0 included): the link storage
# of gpu_field with 12 and 8 reals (scripts/link8-emulation).

@test "GPU link storage (12 and 8 reals) on the host: upload layout, accessor load/store, download, halo k_pack" {
    command -v g++ >/dev/null || skip "g++ is missing: scripts/link8-emulation compiles the device code with it"
    run "$BATS_TEST_DIRNAME/../scripts/link8-emulation"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "$output" | grep -q '^link8-emulation: [0-9]* passed, 0 failed$'
    [ "$(echo "$output" | grep -c 'as the reference')" -eq 5 ]
}
