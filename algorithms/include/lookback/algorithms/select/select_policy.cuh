#pragma once
// Tuning of the stream compaction kernel, kept apart from the code; bench/select_tuning_bench.cu
// times the alternatives. Measured on an H100 (CUDA 13.0), select_if on 2^28 uint32, 50% / 99% kept
// (CUB 0.779 / 0.967 ms, memcpy 0.717):
//   kept items stored as scalars: 256x16 0.737 / 0.984 ms; 512x16 0.693 / 1.006; 256x32 0.731 /
//     1.030; 128x16 0.764 / 0.986; 512x16 without the 1.1 us wait before the first look-back poll
//     0.785 / 1.046; 512x8 with a 700 ns wait 0.795 / 1.036.
//   stored as 16-byte vectors (the staging shifted to line up with the output): 256x16 0.734 /
//     0.932; 128x16 0.759 / 0.939; 512x16 0.823 / 1.053 (52 registers: two blocks of 512 per SM,
//     against five of 256 at 48); 256x32 0.989 / 1.163 (84 registers).
//   ncu of 256x16 at 1% kept: 48 registers, five blocks an SM (59% occupancy), DRAM 46%, warps
//     stalled at barriers 7 cycles of every 16. Registers capped, 1% / 50% / 99% kept in one run (CUB
//     0.668 / 0.783 / 0.972 ms): 256x16 six blocks an SM (40 registers) 0.574 / 0.698 / 0.925; eight
//     (32, spilling) 0.548 / 0.706 / 0.943; 512x16 four blocks 0.535 / 0.701 / 0.968; 256x8 eight
//     0.758 / 0.859 / 1.03; 512x8 four 0.731 / 0.839 / 1.03; uncapped 256x16 0.63-0.73 / 0.73 / 0.95.
//   2^20 and 2^24, 1% / 50% / 99% kept (CUB 0.017 / 0.017 / 0.018 and 0.057 / 0.064 / 0.077 ms):
//     256x16 six blocks 0.018 / 0.018 / 0.019 and 0.053 / 0.061 / 0.079; 384x16 four blocks 0.014 /
//     0.014 / 0.016 and 0.054 / 0.062 / 0.081; 256x24 four 0.016 / 0.016 / 0.017 and 0.056 / 0.064 /
//     0.074; 128x16 twelve 0.018 / 0.018 / 0.020 and 0.056 / 0.062 / 0.075; 256x16 six with a wait of
//     500 ns 0.017 / 0.017 / 0.018 and 0.054 / 0.062 / 0.080, with none 0.018 / 0.018 / 0.019 and
//     0.056 / 0.066 / 0.083. Hence 384x16 up to 2^21, between the sizes measured.
//   With the largest shared-memory carveout asked for every capped policy (as the scan does), one run
//     (CUB 2^24 0.059 / 0.065 / 0.076, 2^28 0.671 / 0.784 / 0.976): 256x16 six blocks 2^28 0.598 /
//     0.736 / 0.951, 3-5% slower than without; 384x16 four 0.590 / 0.721 / 0.950; 256x24 four 0.622 /
//     0.734 / 0.891 and 2^24 0.059 / 0.067 / 0.077; 256x32 four 0.563 / 0.708 / 0.940 and 2^24
//     0.057 / 0.068 / 0.088; 512x16 four 0.583 / 0.746 / 0.997; 128x16 twelve 0.638 / 0.752 / 0.939.
//     Not kept: no shape wins at every fraction, and 2^24 at 99% kept stays level with CUB at best.
//   Each block prefetching into L2 the input of the tile `distance` ids ahead (thread/l2_prefetch.cuh),
//     1% / 50% / 99% kept, two runs (CUB 2^28 0.666-0.668 / 0.777-0.783 / 0.971-0.975, 2^24 0.055-0.058
//     / 0.063-0.065 / 0.074-0.077; without, 256x16 six blocks 0.570-0.576 / 0.694-0.699 / 0.927-0.928
//     and 0.051-0.055 / 0.059-0.062 / 0.077-0.081): 256x16 six blocks 132 ahead 0.547-0.552 /
//     0.645-0.652 / 0.846-0.854 and 0.051-0.055 / 0.058-0.062 / 0.074-0.079; 264 ahead 0.552 / 0.648 /
//     0.854; 400 ahead 0.553 / 0.653 / 0.864; 256x16 eight blocks 264 ahead 0.537 / 0.694 / 0.915;
//     256x24 four blocks 132 ahead 0.584 / 0.658 / 0.811 and 0.055 / 0.061 / 0.072; 384x16 four blocks
//     132 ahead 0.547 / 0.648 / 0.861 and 0.051 / 0.060 / 0.079.
//   The look-back's lanes each reading 2 or 4 predecessors a poll, large policy, two runs, 1% / 50% /
//     99% kept (with 1: 2^24 0.053 / 0.059 / 0.077-0.079, 2^28 0.553-0.554 / 0.651 / 0.855-0.857): 2
//     0.053-0.055 / 0.061-0.062 / 0.078-0.080 and 0.564-0.565 / 0.671-0.672 / 0.874-0.875; 4 0.063 /
//     0.070-0.071 / 0.085-0.087 and 0.704-0.707 / 0.807-0.813 / 1.03-1.04. Not kept.
//   A thread's keep decisions as the bits of one word instead of a bool an item, byte flags tested
//     four to a word from the loaded vectors (select/selectors.cuh): the flags' kernel no longer
//     spills (32 bytes before, under the 40-register cap), nor the predicate's (8). One machine, two
//     runs each, 1% / 50% / 99% kept at 2^28 (CUB 0.69 / 0.88 / 1.06 ms): select_flagged 0.523-0.527
//     / 0.698-0.705 / 0.949-0.952 against 0.62 / 0.78 / 1.04 before; partition 1% / 99% 0.869-0.873 /
//     0.828-0.832 against 0.890-0.895 / 0.855; select_if 1% 0.530-0.535 against 0.553-0.558.
//   The compacted tile's staging padded by one item every 32: a thread stages its kept items to consecutive slots,
//     so a warp's stores fell 16 to a bank when nearly all are kept. Two runs each, 1% / 50% / 99% kept, select_if
//     2^28 (CUB 0.66-0.67 / 0.78 / 0.97-0.98 ms): never padded 0.527-0.528 / 0.636 / 0.851-0.857, always 0.546-0.549
//     / 0.650 / 0.810-0.812 (the index arithmetic costs sparse tiles more than their conflicts), past half the tile
//     0.527 / 0.642-0.643 / 0.811, past three quarters 0.528-0.529 / 0.635-0.637 / 0.811-0.812; 2^24 never 0.049 /
//     0.057-0.058 / 0.075, past three quarters 0.049-0.050 / 0.057-0.058 / 0.068-0.070 (CUB 0.074-0.075 at 99%). In
//     the main table's rows in the same runs, never against past three quarters: select_flagged 99% 2^28 0.947-0.954
//     -> 0.885-0.886 ms, 2^24 0.079-0.081 -> 0.074; select_if 99% 0.849-0.855 -> 0.810-0.821; 1% and 50% level.
//     Partition (which stages every item) always padded, against never: 1% / 50% / 99% 0.867-0.875 -> 0.847-0.849 /
//     0.825-0.829 -> 0.837 / 0.824-0.827 -> 0.817-0.819 ms. Only 4-byte items were measured; 1- and 2-byte items,
//     whose padded vectors would be gathered in 16 and 8 loads, stage unpadded.
//   The pipelined kernel (select/select_lookahead_kernel.cuh; select_lookahead_config: warps a role x
//     items a thread x stages), select_if of uint32 on an H100 at 2^20 / 2^22 / 2^24 / 2^28, 1% / 50% /
//     99% kept, ms (the look-back kernel's large policy in the same runs: 0.015-0.016 / 0.023-0.027 /
//     0.051 / 0.059 / 0.069 / 0.527 / 0.636 / 0.812; CUB 2^24 0.057 / 0.065 / 0.074, 2^28 0.70 / 0.83 /
//     1.00):
//     First, a warp deciding 32 items a ballot and storing kept items straight from registers: 4x48x6
//       2^24 0.127-0.132, 2^28 1.71-1.76 at every fraction; 8x24x6 0.077-0.079 / 0.99-1.00 (ncu: 0.26
//       issued warps a scheduler, 74% of cycles with none eligible: about 58 instructions for 32 items).
//     Runs a thread compacted over the stage and copied out in bulk, with the command's comparison as
//       a switch an item and the selector read from the parameters: 4x47x6 2^24 0.102-0.103, 2^28
//       1.38-1.40; 8x23x6 0.066-0.070 / 0.82-0.86; byte flags (no comparison) 4x47x6 2^24 0.049 / 0.057
//       / 0.065, 2^28 0.506 / 0.643 / 0.802.
//     With the selector copied, the run read before any decision and the comparison a table lookup:
//       4x47x6 0.012-0.013 / 0.021-0.022 / 0.047 / 0.052 / 0.059 / 0.522 / 0.595 / 0.729; 4x63x6 0.011-
//       0.013 / 0.021-0.023 / 0.045 / 0.052 / 0.059 / 0.490 / 0.558 / 0.718; 4x63x5 0.012-0.013 / 0.020-
//       0.023 / 0.045 / 0.053 / 0.062 / 0.490 / 0.590 / 0.743; 4x31x8 0.015-0.016 / 0.024-0.025 / 0.060-
//       0.065 / 0.72-0.80; 8x23x6 0.012-0.013 / 0.022-0.023 / 0.050 / 0.054 / 0.060 / 0.568 / 0.616 /
//       0.735; 2x63x8 0.016 / 0.027-0.028 / 0.070-0.071 / 0.93; 4x47x6 with two look-ahead chunks 2^24
//       0.050-0.061, 2^28 0.567-0.755. Hence 4x63x6 for select_if; 4x47x6 for flags (4x63's stages
//       and a tile of byte flags beside do not fit a block's shared memory; 2^24 0.048 / 0.056 / 0.065,
//       2^28 0.515 / 0.644 / 0.803 in the main table, CUB 0.057 / 0.068 / 0.080 and 0.685 / 0.875 /
//       1.05) and for partition (4x47x6 2^24 0.065, 2^28 0.796 at every fraction; 4x63x6 in the next
//       run 0.070 and 0.879-0.887, CUB 0.076-0.078 and 1.04-1.06); all from 2^20 items, where they beat
//       the look-back kernel already. 8-byte items were measured later (below).
//     select_flagged and partition on tiles of their own (bench/select_tuning_bench.cu's flags_ and
//       partition_ rows), H100, 2^16 / 2^20 / 2^24 / 2^28, 1% / 50% / 99% kept, ms, against CUB in the
//       same run: flags 4x47x6 2^24 0.049 / 0.058 / 0.066, 2^28 0.516 / 0.647 / 0.808; 4x55x6 0.050 /
//       0.057 / 0.066, 0.505 / 0.637 / 0.805; 4x63x5 0.047 / 0.057 / 0.067, 0.473 / 0.635 / 0.811;
//       4x39x8 0.055 / 0.060 / 0.068, 0.570 / 0.671 / 0.814; 4x31x6 0.058 / 0.063 / 0.073, 0.677 /
//       0.749 / 0.866 (CUB 0.059 / 0.071 / 0.081, 0.694 / 0.881 / 1.06). Hence 4x63x5 for flags
//       (1% kept at 2^24: 1.26x CUB where 4x47x6 gave 1.20x). At 2^16 and 2^20 every shape but 4x31x6
//       beat the look-back kernel (flags 2^16 0.011 against 0.012-0.014; partition 4x47x6 2^16 0.012-0.013
//       against 0.013-0.015), so the pipeline starts at 2^16. H200, one run (CUB 2^24 0.054 / 0.061 /
//       0.068, 2^28 0.644 / 0.770 / 0.878): flags 4x63x5 2^24 0.041 / 0.046 / 0.054, 2^28 0.404 / 0.485 /
//       0.612; 4x47x6 0.044 / 0.049 / 0.054, 0.486 / 0.535 / 0.623. Partition (CUB 2^24 0.068, 2^28
//       0.887-0.900 at every fraction): 4x47x6 0.062, 0.773; 4x47x5 0.063, 0.787-0.792; 4x55x6 0.067-
//       0.068, 0.865-0.869; 4x63x5 0.068, 0.869-0.870; 4x39x8 0.063, 0.752-0.755; 4x31x6 0.067, 0.834-
//       0.853. On the H100, one run, 2^16 / 2^20 / 2^24 / 2^28 at 1% / 50% / 99% kept (CUB 0.013-0.014 /
//       0.016-0.018 / 0.077-0.079 / 1.04-1.05): 4x47x6 0.012 / 0.015-0.016 / 0.065-0.066 / 0.793-0.796;
//       4x39x8 0.012-0.013 / 0.014-0.015 / 0.065 / 0.780-0.782; 4x23x6 (three blocks an SM) 2^20 0.018-
//       0.019, 2^24 0.081, 2^28 1.07. Hence 4x39x8 for partition: level at 2^24, 2-3% faster at 2^28 on
//       both GPUs.
//     8-byte items (uint64), H100, one run, 2^16 / 2^20 / 2^24 / 2^28 at 1% / 50% / 99% kept, ms. CUB:
//       select_if 0.013 / 0.016-0.017 / 0.069 / 0.093 / 0.121 / 0.875 / 1.28 / 1.73; flags 0.013-0.014 /
//       0.016-0.017 / 0.081 / 0.105 / 0.130 / 1.06 / 1.47 / 1.85; partition 0.013 / 0.018-0.020 /
//       0.132-0.133 / 1.94-1.95. The look-back kernel (large): select_if 0.011 / 0.017-0.019 / 0.073 /
//       0.089 / 0.113 / 0.844 / 1.15 / 1.50, below CUB at 2^20 and at 1% of 2^24; flags 0.010 / 0.017-
//       0.018 / 0.074 / 0.094 / 0.121 / 0.893 / 1.22 / 1.58; partition 0.012 / 0.020-0.022 / 0.113-0.116 /
//       1.50-1.53. Pipelined, select_if 4x31x6 0.010-0.011 / 0.016-0.018 / 0.068 / 0.084 / 0.102 / 0.828 /
//       1.08 / 1.42; 4x23x8 0.010 / 0.017-0.018 / 0.080 / 0.091 / 0.105 / 1.01 / 1.17 / 1.43; 4x15x8 0.009-
//       0.010 / 0.018-0.019 / 0.102 / 0.109 / 0.115 / 1.41 / 1.49 / 1.59. Flags 4x31x5 0.011-0.013 / 0.016-
//       0.018 / 0.069 / 0.088 / 0.111 / 0.847 / 1.17 / 1.51; 4x23x6 0.010 / 0.017-0.018 / 0.078 / 0.093 /
//       0.111 / 0.967 / 1.22 / 1.52. Partition 4x31x6 0.012 / 0.018-0.020 / 0.104 / 1.43; 4x23x8 0.011 /
//       0.018 / 0.106 / 1.45; 4x19x8 0.010-0.011 / 0.019 / 0.109-0.112 / 1.50-1.51. Hence 4x31x6, 4x31x5
//       and 4x31x6 from 2^16: 2-10% faster than the look-back kernel at 2^24 and 2^28 and 1.01-1.36x
//       CUB there; at 2^20 level with CUB (0.93-1.05x), where the look-back kernel was 0.88-0.97x.
//       Then at 2^20 / 2^24, one run (CUB select_if 0.017 / 0.017 / 0.019 and 0.072 / 0.096 / 0.123;
//       partition 0.018-0.020 and 0.134): select_if 4x31x6 0.018 at 2^20 and 0.070 / 0.087 / 0.106;
//       4x47x4 0.014 / 0.016 / 0.017 and 0.071 / 0.093 / 0.113; 4x63x3 0.017-0.019 and 0.084 / 0.103 /
//       0.123; 4x31x3 (two blocks an SM) 0.017-0.018 and 0.090-0.136; 2x31x6 0.019-0.020 and 0.095-0.113;
//       4x15x4 0.019-0.020 and 0.109-0.123. Partition 4x31x6 0.019-0.022 and 0.106-0.109; 4x47x4 0.017-
//       0.019 and 0.116-0.118; 4x31x3 0.020-0.022 and 0.145-0.147; 2x31x6 0.022 and 0.118-0.126. Hence
//       4x47x4 up to 2^21 (between the sizes measured) for select_if and partition; flags keep 4x31x5.
//       At 2^16 4x47x4 was slower (partition 0.0124-0.0127 against CUB's 0.0118-0.0120, where 4x31x6 had
//       0.0112-0.0114 and the look-back kernel 0.0119-0.0125 against 0.0129-0.0131), so 8-byte items
//       start on the pipeline at 2^17.
//     What bounds the pipeline (bench/results/compaction-decisions.md), H100, 2^28 uint32 select_if at 1%
//       kept: 0.49 ms, 2.0 TB/s read where a reduction reads 3.0; partition 1.9 us a tile a block at every
//       fraction. The look-ahead reading 8 or 16 x 32 descriptors a poll instead of 4 (a block's next tile
//       lies about 132 ids on): select_if 1% / 50% / 99% 2^28 0.514 / 0.562 / 0.726 and 0.603 / 0.622 /
//       0.723 against 0.491 / 0.561 / 0.721; partition 0.796-0.797 and 0.965-0.970 against 0.783-0.789;
//       uint64 select_if 1% 0.856 and 1.011 against 0.828. Not kept. Each stage released as soon as its
//       copies have read it, instead of a tile later: partition 0.821-0.856 against 0.783. Not kept. The
//       look-ahead starting on the tile id instead of the loaded tile (device/lookahead_pipeline.cuh):
//       select_if 1% 0.489, partition 0.781-0.783, scan 0.725-0.731, level; kept, since the look-ahead is
//       now what the store role waits on (below). ncu then showed the reduce role issuing 18 instructions
//       an item (select_if: 1140 a warp and tile of 63 items, busy 90% of its time) and partition's store
//       role 26: a whole-run path without end tests, decisions in two 32-bit words, slots as pointers, and
//       the benchmark's comparison (typed::compare_predicate) as two compares and two selects an item.
//       After, one run: select_if 1% / 50% / 99% 2^28 0.405 / 0.552 / 0.724, 2^24 0.043 / 0.052 / 0.062;
//       partition 4x39x8 0.746-0.747 and 0.062-0.066; uint64 select_if 1% 0.795, partition 1.428-1.430.
//       ncu of select_if at 1%: 196 M instructions where there were 308 M, DRAM 73% busy where it was 55%,
//       the reduce role waiting on loads and the store role on the look-ahead's prefix, each about a
//       third of its time. CUB runs the same comparison and gained more at 50% kept (2^28 0.83 -> 0.72 ms).
//       The tile shapes again after, one run, 2^24 / 2^28 at 1% / 50% / 99% kept: select_if 4x63x6 0.042 /
//       0.050 / 0.059 and 0.401 / 0.546 / 0.720 led (4x63x5 0.042 / 0.052 / 0.061, 4x47x6 0.045 / 0.052 /
//       0.060, 8x23x6 0.048 / 0.054 / 0.062; 4x31x8 and 2x63x8 0.057-0.067 and 0.66-0.79). Partition:
//       4x55x6 0.063 / 0.061 / 0.061 and 0.725-0.728 (99% of a memcpy), 4x47x6 0.062-0.063 and 0.735-0.741,
//       4x39x8 0.063 and 0.747-0.748, 4x63x5 0.064 and 0.752-0.754, 4x31x6 0.066-0.069 and 0.787-0.795.
//       4x55x6 is 3% faster at 2^28 now, but lost to 4x39x8 on the H200 before (0.865 against 0.752) and
//       has not been measured there since: partition keeps 4x39x8 until it has.
//     select_flagged of uint64 at 2^20, where 4x31x5 stayed level with CUB (1.01x / 0.99x / 1.02x), one run,
//       2^20 / 2^24 at 1% / 50% / 99% kept (bench/results/compaction-flags-small.md): 4x31x5 0.0158 / 0.0165 /
//       0.0175 and 0.069 / 0.087 / 0.108; 4x47x4 0.0124 / 0.0143 / 0.0162 and 0.071 / 0.093 / 0.116; 4x63x3
//       0.0125 / 0.0138 / 0.0154 and 0.081 / 0.102 / 0.122. Hence 4x47x4 up to 2^21 for flags too (main rows
//       at 2^20 1.30x / 1.25x / 1.15x CUB). Partition again in the same run: 4x55x6 0.061-0.063 and 0.726-0.730,
//       4x39x8 0.063-0.064 and 0.750.
//     The look-ahead waiting 100 or 300 ns after a poll that found nothing new, two runs each, select_if
//       4x63x6 at 2^20 / 2^24 / 2^28, 1% / 50% / 99% kept: none 0.0115-0.0125 / 0.0114-0.0134 / 0.0123-
//       0.0139, 0.042-0.043 / 0.050-0.054 / 0.059, 0.401-0.403 / 0.546 / 0.717-0.718; 100 ns 0.0116 /
//       0.0113-0.0125 / 0.0127-0.0130, 0.042-0.043 / 0.049-0.051 / 0.060-0.061, 0.402-0.407 / 0.546-0.553 /
//       0.717-0.718; 300 ns 0.0114-0.0117 / 0.0114-0.0115 / 0.0121-0.0122, 0.042 / 0.049-0.050 / 0.059,
//       0.402-0.403 / 0.545-0.550 / 0.717. Partition 4x39x8 at 2^24 / 2^28: none 0.062-0.063 / 0.746-0.747,
//       100 ns 0.062-0.064 / 0.747-0.755, 300 ns 0.061-0.062 / 0.747-0.751. Level within the spread of two
//       runs of one row (select_if 50% at 2^24: 0.0496 and 0.0538 without a wait); not kept.
//   From here on every row is timed with the stream held while the call is submitted (typed::stream_hold;
//   bench/results/timing-held-stream.md): the GPU's time, not the host's launches.
//     The counter and descriptors cleared by a kernel the compaction launches dependent on
//       (detail/clear_then_launch.cuh), against a memset and a plain launch, one run at 2^16 / 2^20 / 2^24,
//       1% / 50% / 99% kept: select_if 4x63x6 0.0072 / 0.0074 / 0.0078, 0.0085 / 0.0087 / 0.0095, 0.0365 /
//       0.0448 / 0.0536 against 0.0074 / 0.0076 / 0.0081, 0.0091 / 0.0093 / 0.0102, 0.0380 / 0.0463 /
//       0.0551; partition 4x39x8 0.0075-0.0076, 0.0098-0.0099, 0.0569-0.0571 against 0.0078-0.0080,
//       0.0107-0.0108, 0.0584-0.0586; uint64 select_if 4x47x4 at 2^20 0.0096 / 0.0104 / 0.0121 against
//       0.0101 / 0.0109 / 0.0126. Kept.
//     uint64 at 2^16, where the look-back kernel's 128 x 16 tiles ran at 0.84x-0.92x CUB (select_if 0.0084
//       ms, partition 0.0085-0.0089, CUB 0.0074-0.0078), one run at 96e05d7, 1% / 50% / 99% kept:
//       select_if 4x15x8 0.0064 / 0.0064 / 0.0066, 4x23x8 0.0067 / 0.0068 / 0.0071, 4x31x6 0.0068 / 0.0070 /
//       0.0074; flags 4x23x6 0.0065 / 0.0067 / 0.0069, 4x31x5 0.0067 / 0.0070 / 0.0074; partition 4x19x8
//       0.0072 / 0.0072 / 0.0071, 4x23x8 0.0073-0.0075, 4x31x6 0.0078. Hence the pipelined kernel from 2^16
//       for 8-byte items too, on the tiny tiles below 2^17 (lookahead_tiny; sizes between 2^16 and 2^17 not
//       measured). Main rows at b1b99eb, 2^16: select_if 0.0064-0.0066 ms (1.18x-1.23x CUB), select_flagged
//       1% 0.0066 (1.18x), partition 0.0072-0.0073 (1.04x).
//     uint64, tiny against small tiles, one run at a03afdd, 1% / 50% / 99% kept, 2^17 / 2^18 / 2^19:
//       select_if 4x15x8 0.0069 / 0.0069 / 0.0071, 0.0076 / 0.0077 / 0.0079, 0.0091 / 0.0092 / 0.0094
//       against 4x47x4 0.0074 / 0.0079 / 0.0086, 0.0076 / 0.0081 / 0.0088, 0.0082 / 0.0087 / 0.0095; flags
//       4x23x6 0.0068 / 0.0070 / 0.0073, 0.0071 / 0.0072 / 0.0075, 0.0082 / 0.0084 / 0.0089 against 4x47x4
//       0.0071 / 0.0077 / 0.0083, 0.0073 / 0.0078 / 0.0085, 0.0079 / 0.0085 / 0.0093; partition 4x19x8
//       0.0074-0.0075, 0.0080-0.0081, 0.0093-0.0095 against 4x47x4 0.0090-0.0091, 0.0092-0.0094,
//       0.0100-0.0101. Hence tiny tiles below 2^19. At 2^20, two runs at 8-byte items (CUB 0.0099 /
//       0.0104 / 0.0112, flags 0.0107 / 0.0112 / 0.0119, partition 0.0126-0.0128): select_if 4x31x6 0.0095
//       / 0.0098 / 0.0107, 4x47x4 0.0096 / 0.0104 / 0.0121 (0.93x CUB at 99% kept), 4x63x3 0.0098 / 0.0110
//       / 0.0127, 4x31x3 0.0099 / 0.0109 / 0.0121, 4x23x8 0.0102 / 0.0105 / 0.0112, 4x15x8 0.0118-0.0121;
//       flags 4x31x5 0.0097 / 0.0100 / 0.0108, 4x47x4 0.0092 / 0.0101 / 0.0118, 4x63x3 0.0096 / 0.0106 /
//       0.0123, 4x23x6 0.0102 / 0.0104 / 0.0112; partition 4x31x6 0.0110-0.0113, 4x31x3 0.0110-0.0113,
//       4x19x8 and 4x23x8 0.0118-0.0120, 4x47x4 0.0123-0.0126. The 47 KiB tiles chosen for 8-byte items up
//       to 2^21 (timed with the host's launches in the row) lose to the large ones: 8-byte items now take
//       the large tiles from 2^19 on (lookahead_large_min_items). The run after, tiny against large at
//       2^18 / 2^19: select_if 0.0077 / 0.0078 / 0.0080 against 0.0075 / 0.0077 / 0.0082, 0.0092 / 0.0093 /
//       0.0095 against 0.0084 / 0.0086 / 0.0094; flags 0.0071 / 0.0072 / 0.0076 against 0.0073 / 0.0075 /
//       0.0080, 0.0083 / 0.0084 / 0.0090 against 0.0080 / 0.0082 / 0.0089; partition 0.0081-0.0082 against
//       0.0084-0.0085, 0.0093-0.0095 against 0.0096-0.0098 (its own switch at 2^20 would gain 3% at 2^19;
//       not made). Main rows at 2^20: 1.05x-1.14x CUB, from 0.93x-1.17x on the small tiles.
//     uint32 below 2^19, where partition's 4x39x8 measured 0.97x-0.98x CUB at 2^16 (0.0074-0.0076 ms against
//       0.0073-0.0075) while uint64's tiny tiles ran at 0.0071: one run at 696402a, 1% / 50% / 99% kept, ms.
//       Partition at 2^16 / 2^17 / 2^18 / 2^19: 4x39x8 0.0074-0.0075 / 0.0075-0.0076 / 0.0077-0.0079 /
//       0.0084-0.0085; 4x15x8 0.0066 / 0.0068-0.0069 / 0.0077 / 0.0093; 4x19x8 0.0068 / 0.0071 / 0.0076 /
//       0.0086-0.0087; 4x23x8 0.0068-0.0069 / 0.0070-0.0071 / 0.0075-0.0076 / 0.0086-0.0088; 4x63x5 0.0082-
//       0.0085 and 4x31x6 0.0070-0.0071 at 2^16. select_if: 4x63x6 0.0071 / 0.0072 / 0.0077 at 2^16, 0.0072
//       / 0.0074 / 0.0078, 0.0074 / 0.0076 / 0.0080, 0.0077 / 0.0080 / 0.0084; 4x31x8 0.0065 / 0.0065 /
//       0.0066, 0.0066 / 0.0066 / 0.0067, 0.0069 / 0.0070 / 0.0071, 0.0078 / 0.0078 / 0.0080. Flags at 2^16:
//       4x63x5 0.0071 / 0.0072 / 0.0078, 4x39x8 0.0066 / 0.0067 / 0.0070, 4x31x6 0.0065 / 0.0065 / 0.0066.
//       Hence tiny tiles for 4-byte items too, below the same 2^19: 4x31x8, 4x31x6 and 4x15x8.
//   uint64 partition, where 4x31x6 stayed at 1.18x-1.19x CUB at 2^24 (95% of a memcpy), one run at 0687726
//     (bench/results/h100-exact-float-sums-0687726.md), 1% / 50% kept, 2^24 and 2^28: 4x31x6 0.0998 / 0.0997
//     and 1.423 / 1.424; 4x27x7 0.1002 / 0.0999 and 1.419 / 1.420; 4x23x7 0.1017 / 0.1015 and 1.439 / 1.439;
//     4x35x5 0.1016 / 0.1017 and 1.443 / 1.446; 4x39x4 0.1107 / 0.1102 and 1.580 / 1.581. None leads at both
//     sizes; 4x31x6 stays.
//   uint64 with eight warps a role (select_if at 1% kept is bound by its deciding warps: four against two
//     measured 0.070 against 0.095 ms at 2^24 above), one run at d025af8+ (bench/results/
//     h100-verify-memory-d025af8.md), 1% / 50% / 99% kept at 2^20, 2^24 and 2^28, beside 4x31x6 0.0097 /
//     0.0100 / 0.0109, 0.0601 / 0.0773 / 0.0966 and 0.781 / 1.066 / 1.412 (CUB 2^24 0.0631 / 0.0886 / -):
//     select_if 8x19x5 0.0095 / 0.0101 / 0.0113, 0.0579 / 0.0770 / 0.0983 and 0.747 / 1.064 / 1.424; 8x15x6
//     0.0097 / 0.0101 / 0.0113, 0.0612 / 0.0778 / 0.0968 and 0.798 / 1.072 / 1.410; 8x23x4 0.0095 / 0.0104 /
//     0.0120, 0.0594 / 0.0836 / 0.1051 and 0.791 / 1.145 / 1.511; 8x31x3 0.0096 / 0.0109 / 0.0123, 0.0693 /
//     0.0927 / 0.1132 and 0.915 / 1.301 / 1.639. Flags (4x31x5 0.0098 / 0.0101 / 0.0110, 0.0628 / 0.0820 /
//     0.1024, 0.832 / 1.159 / 1.506): 8x15x5 0.0098 / 0.0101 / 0.0113, 0.0633 / 0.0824 / 0.1025, 0.846 / 1.165
//     / 1.506; 8x19x4 0.0093 / 0.0100 / 0.0112, 0.0643 / 0.0880 / 0.1100, 0.883 / 1.237 / 1.606. Partition
//     (4x31x6 0.0113-0.0114, 0.0978-0.0979, 1.420-1.421): 8x15x6 0.0114-0.0117, 0.0975-0.0980, 1.419-1.420;
//     8x19x5 0.0115-0.0117, 0.0993-0.0995, 1.434-1.437. 8x19x5 takes 4% off select_if at 1% kept (1.09x
//     CUB at 2^24, where 1.2x is asked) and adds 1-2% at 99%, whose 1.20x it would lose; partition is level
//     at a memcpy's time. Not kept: 4x31x6 and 4x31x5 stay.
//   Arrays of up to 4 MiB in two kernels that need no clearing (select/select_kernel.cuh: each tile's count,
//     then a kernel launched dependent on it that loads and decides its tile before it waits, then takes
//     its offset from the counts before it), as the scan's small arrays (policy/scan_policy.cuh). Main
//     rows, one run at a3cbd55 plus the change, 16 KiB tiles (256 x 16, uint64 128 x 16), 1% / 50% / 99%
//     kept, ms, CUB beside: uint32 2^16 select_if 0.0063 / 0.0064 / 0.0066 (1.26x-1.29x), select_flagged
//     0.0058 / 0.0060 / 0.0062 (1.30x-1.34x), partition 0.0074 / 0.0074 / 0.0071 (0.98x-1.02x); 2^20
//     select_if 0.0078 / 0.0080 / 0.0087 (1.27x-1.30x), select_flagged 0.0072 / 0.0074 / 0.0081 (1.32x-1.40x),
//     partition 0.0098 / 0.0096 / 0.0092 (1.08x-1.13x); uint64 2^16 select_if 0.0064 / 0.0066 / 0.0068
//     (1.15x-1.16x), partition 0.0074 / 0.0075 / 0.0073 (0.99x-1.04x). Tile shapes, the next run:
//     uint32 2^16 / 2^18 / 2^20, select_if 256x16 0.0063-0.0066 / 0.0065-0.0068 / 0.0078-0.0086, 256x8
//     0.0058-0.0059 / 0.0061-0.0062 / 0.0084-0.0091, 128x8 0.0058-0.0059 / 0.0061-0.0062 / 0.0088-0.0093;
//     flags 256x16 0.0058-0.0061 / 0.0059-0.0062 / 0.0072-0.0080, 256x8 0.0058-0.0059 / 0.0061-0.0062 /
//     0.0083-0.0091, 128x8 0.0057-0.0058 / 0.0060-0.0061 / 0.0094-0.0101; partition 256x16 0.0070-0.0073 /
//     0.0073-0.0075 / 0.0091-0.0097, 256x8 0.0064-0.0065 / 0.0066-0.0067 / 0.0096-0.0102, 128x8 0.0063 /
//     0.0066-0.0067 / 0.0096-0.0101. uint64 128x16 at 2^16 / 2^18 / 2^19: select_if 0.0064-0.0068 /
//     0.0068-0.0073 / 0.0077-0.0089, flags 0.0058-0.0062 / 0.0063-0.0068 / 0.0072-0.0084, partition
//     0.0072-0.0075 / 0.0077-0.0080. Hence 8 KiB tiles up to 1 MiB (more tiles than SMs), 16 KiB to 4 MiB.
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstdint>
#include <type_traits>

namespace lookback::policy {

/// Tile shape; 16-byte vector loads (warp-striped, for aligned arrays); the look-back's wait before
/// its first poll; blocks per SM the registers must allow (0: the compiler's choice; 1 is not the
/// same: it frees the compiler to take 82 registers for 4-byte tiles of 256 x 16); how many tiles ahead
/// each block prefetches input into L2 (0: none; thread/l2_prefetch.cuh); the share of a whole tile,
/// in percent, past which the items it stages (the kept ones; partition stages all) go to a padded staging
/// (items of 4 bytes or more; select/select_kernel.cuh).
template <int Threads, int ItemsPerThread, bool VectorAccess, int InitialDelayNs, int MinBlocks = 0,
          int PrefetchTiles = 0, int PaddedStagingPercent = 75>
struct select_config {
  static constexpr int padded_staging_percent = PaddedStagingPercent;
  static constexpr int prefetch_tiles = PrefetchTiles;
  static constexpr int threads = Threads;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = Threads * ItemsPerThread;
  static constexpr bool vector_access = VectorAccess;
  static constexpr int initial_delay_ns = InitialDelayNs;
};

/// Compaction on the look-ahead pipeline for Hopper and later (select/select_lookahead_kernel.cuh)
/// takes the scan's pipeline shape: `Warps` reduce warps and as many store warps, each thread
/// `ItemsPerThread` consecutive items of a tile (odd, so a warp's reads of shared memory fall on
/// distinct banks; at most 64), `Stages` tiles (and their flags) in shared memory at once, the
/// look-ahead reading `LookaheadChunks` x 32 descriptors a poll and waiting `RetryDelayNs` after a
/// poll that found nothing new.
template <int Warps, int ItemsPerThread, int Stages, int LookaheadChunks = 4, int RetryDelayNs = 0>
using select_lookahead_config = scan_lookahead_config<Warps, ItemsPerThread, Stages, LookaheadChunks, RetryDelayNs>;

/// Large: 4096 items of up to 4 bytes, 2048 of 8, 1024 of 16: 16 KiB tiles, staged in static shared
/// memory with the tile's flags (tiles are sized for the wider of values and flags), each block
/// prefetching the input (and flags) of the tile 132 ids ahead, 2 MiB (measured with 4-byte items). Up to
/// small_max_items, items of up to 4 bytes take tiles of 384 x 16 at four blocks an SM: there all tiles
/// are resident at once, and fewer, larger tiles shorten the look-back's chain.
template <class T>
struct select {
  using large =
      select_config<sizeof(T) <= 4 ? 256 : 128, sizeof(T) <= 8 ? 16 : 8, true, 1100, sizeof(T) <= 4 ? 6 : 0, 132>;
  using small = std::conditional_t<sizeof(T) <= 4, select_config<384, 16, true, 1100, 4>, large>;
  static constexpr std::int64_t small_max_items = std::int64_t{1} << 21;
  /// The pipelined compaction, where it applies (Hopper and later, 4- and 8-byte items, aligned input
  /// and flags, its stages fitting shared memory) past count_then_compact_max_bytes. 4-byte items:
  /// select_if's tiles of 31.5 KiB in six stages; select_flagged's of 31.5 KiB in five (byte flags
  /// beside: 39 KiB a stage); partition's of 19.5 KiB in eight (measured faster than larger ones).
  /// 8-byte items: tiles of 31 KiB, six stages (flags: five). (Its tiny tiles of 7.5 to 23 KiB below 2^19
  /// items, measured above, gave way to the two kernels.)
  static constexpr bool wide = sizeof(T) == 8;
  using lookahead = std::conditional_t<wide, select_lookahead_config<4, 31, 6>, select_lookahead_config<4, 63, 6>>;
  using lookahead_flags = std::conditional_t<wide, select_lookahead_config<4, 31, 5>, select_lookahead_config<4, 63, 5>>;
  using lookahead_partition =
      std::conditional_t<wide, select_lookahead_config<4, 31, 6>, select_lookahead_config<4, 39, 8>>;
  /// Up to count_then_compact_max_bytes (of the wider of values and flags), two kernels that need no
  /// clearing (select/select_kernel.cuh): up to count_then_compact_small_max_bytes, where more tiles
  /// spread the work over more SMs, 8 items a thread (8 KiB tiles of 4- and 8-byte items, 4 KiB of
  /// 2-byte ones; 1-byte items 16, whole vectors, 4 KiB), past it the large look-back tiles' shape
  /// (16 KiB of 4- and 8-byte items, 8 KiB of 2-byte, 4 KiB of 1-byte).
  using count_then_compact_small =
      select_config<sizeof(T) <= 4 ? 256 : 128, sizeof(T) == 1 ? 16 : (sizeof(T) <= 8 ? 8 : 4), true, 0>;
  using count_then_compact = select_config<sizeof(T) <= 4 ? 256 : 128, sizeof(T) <= 8 ? 16 : 8, true, 0>;
  static constexpr std::int64_t count_then_compact_small_max_bytes = std::int64_t{1} << 20;
  static constexpr std::int64_t count_then_compact_max_bytes = std::int64_t{4} << 20;
};

}  // namespace lookback::policy
