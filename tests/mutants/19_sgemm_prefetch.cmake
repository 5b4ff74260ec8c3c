# Planted bugs for exercise 19 (see workbook_mutant() in cmake/workbook.cmake).

# Without the barrier at the end of a step, a work-item may read tile t + 1 before the others
# have stored their shares of it, or store tile t + 2 over tile t while others still read it. A CPU
# device runs the group's work-items in turn and hides it; the race pass reports it.
workbook_mutant(missing_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // tile t + 1 complete, and tile t read by everyone]=]
  [=[        // planted bug: no barrier at the end of the step]=] RACE)
# The next tile stored into the set being read: one barrier is no longer enough.
workbook_mutant(same_set mmul.cl
  [=[        if (t + 1 < tiles) { PUT_TILES(s ^ 1) }]=]
  [=[        if (t + 1 < tiles) { PUT_TILES(s) }  // planted bug: the set being read]=] RACE)
# The prefetch fetches the tile being multiplied instead of the next one: tile 0 counted twice,
# the last tile never.
workbook_mutant(prefetch_same_tile mmul.cl
  [=[        if (t + 1 < tiles) { FETCH_TILES(t + 1) }]=]
  [=[        if (t + 1 < tiles) { FETCH_TILES(t) }  // planted bug]=])
# The loop stops when there is no next tile to prefetch, so the last tile is never multiplied.
workbook_mutant(last_tile_dropped mmul.cl
  [=[    for (int t = 0; t < tiles; t++) {]=]
  [=[    for (int t = 0; t + 1 < tiles; t++) {  // planted bug: the last tile is left out]=])
# The barrier kept only where the tiles are 8 deep, as under Oclgrind's default 32 KiB of local
# memory: PoCL and the H100 grade the 16-deep build. The race pass gives Oclgrind the graded
# device's local memory (race_check.cpp), so it checks the build that is graded.
workbook_mutant(barrier_only_when_shallow mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // tile t + 1 complete, and tile t read by everyone]=]
  [=[        if (TSK < 16) barrier(CLK_LOCAL_MEM_FENCE);  // planted bug: only in the 8-deep build]=] RACE)
# The prefetch with each float4 of the next tile stored into the free local set as soon as it is
# loaded, before the multiply-adds: its loads are as hidden as the solution's (the same exposed
# bytes), but a GPU waits for each in turn, undoing rung 18's lesson (0.86x rung 18 on the H200:
# bench/results/2026-11-29-h200-first-use, d19_before). Where traffic grades (PoCL), it waits as
# exercise 17 does: more than twice rung 18's solution.
workbook_mutant(prefetch_stored_as_loaded mmul.cl
  [=[        if (t + 1 < tiles) { FETCH_TILES(t + 1) }]=]
  [=[        if (t + 1 < tiles) {  // planted bug: each float4 of the next tile stored as soon as it is loaded
#pragma unroll
            for (int l = 0; l < LOADS_A; l++) {
                const int q = id + l * THREADS, r = q / (TSK / 4), k = 4 * (q % (TSK / 4));
                const float4 v = at4(A, N, first_row + r, (t + 1) * TSK + k);
                At[s ^ 1][k][r] = v.x;
                At[s ^ 1][k + 1][r] = v.y;
                At[s ^ 1][k + 2][r] = v.z;
                At[s ^ 1][k + 3][r] = v.w;
            }
#pragma unroll
            for (int l = 0; l < LOADS_B; l++) {
                const int q = id + l * THREADS;
                *(__local float4*)&Bt[s ^ 1][q / (TSN / 4)][4 * (q % (TSN / 4))] =
                    at4(B, N, (t + 1) * TSK + q / (TSN / 4), first_col + 4 * (q % (TSN / 4)));
            }
        }
#undef PUT_TILES
#define PUT_TILES(s)  // the step's stores are made above]=]
  MESSAGE "undoes the previous rung's lesson")
