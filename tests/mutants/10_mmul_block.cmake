# Planted bugs for exercise 10 (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(missing_first_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them]=]
  [=[        // planted bug: no barrier after the loads]=] RACE)
workbook_mutant(missing_second_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load]=]
  [=[        // planted bug: no barrier before the next load]=] RACE)
workbook_mutant(tile_index_swapped mmul.cl
  [=[sum += Awrk[lr * TS + k] * Bwrk[k * TS + lc];]=]
  [=[sum += Awrk[k * TS + lr] * Bwrk[k * TS + lc];  // planted bug: A tile read transposed]=])
# Only whole tiles: the blocks at the edges are dropped when N is not a multiple of TS.
workbook_mutant(edge_tiles_dropped mmul.cl
  [=[const int blocks = (N + TS - 1) / TS;]=]
  [=[const int blocks = N / TS;  // planted bug: rounds down]=])
# Early return before the barriers: work-items outside the matrix never reach them.
workbook_mutant(early_return mmul.cl
  [=[    float sum = 0.0f;
    // Rounded up]=]
  [=[    if (row >= N || col >= N) return;  // planted bug: skips the barriers
    float sum = 0.0f;
    // Rounded up]=]
  RACE_MESSAGE "Work-group divergence")
# A kernel that tells the simulator from the device by a pointer's bits (Oclgrind puts the
# buffer's number in the top bits, a device's addresses have none there) keeps its barrier only
# where the race pass looks. The graded test on PoCL 3.1 fails it, as it fails
# missing_first_barrier, but a GPU may get right answers without the barrier; under Oclgrind the
# barrier is there, so no race is seen: only the pointer-bits plugin reports it
# (harness/oclgrind_plugin/fingerprint.cpp; without the plugin this test reports nothing and fails).
workbook_mutant(barrier_only_in_simulator mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them]=]
  [=[        if (((ulong)A >> 47) != 0) barrier(CLK_LOCAL_MEM_FENCE);  // planted bug: a barrier only the simulator sees]=]
  RACE)
# The same trick on the traffic run: the device reads A and B straight from global memory (the
# naive rung's traffic), the simulator counts the tiles. Correct everywhere, so the graded test
# fails it on the traffic check alone, with the plugin's finding.
workbook_mutant(tiles_only_in_simulator mmul.cl
  [=[    for (int t = 0; t < blocks; t++) {]=]
  [=[    if (((ulong)A >> 47) == 0) {  // planted bug: no tiles where the pointer bits say device
        for (int k = 0; k < N; k++)
            if (row < N && col < N) sum += A[row * N + k] * B[k * N + col];
    } else
    for (int t = 0; t < blocks; t++) {]=]
  MESSAGE "reads the bits of a pointer")
# The same, told apart by the order in which work-items run: the simulator (and PoCL) runs a
# group's work-items one after another, a GPU interleaves them, so only there do they arrive out
# of order at an atomic, and only there is the barrier skipped. PoCL keeps it (right answers);
# under Oclgrind no race shows: only the plugin's order rule reports it (fingerprint.cpp), at the
# branch on the flag the atomics left in local memory.
workbook_mutant(barrier_only_in_order mmul.cl
  [=[    float sum = 0.0f;
    // Rounded up: when N is not a multiple of TS the last blocks hang over the edge.
    const int blocks = (N + TS - 1) / TS;
    for (int t = 0; t < blocks; t++) {
        // Each work-item loads one element of each tile; neighbours in dimension 0 read
        // neighbouring addresses. Outside the matrix the tile is padded with zeros, which add
        // nothing to the sum, so the edge blocks need no special loop.
        const int a_col = t * TS + lc;
        const int b_row = t * TS + lr;
        Awrk[lr * TS + lc] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bwrk[lr * TS + lc] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them]=]
  [=[    // planted bug: the first barrier kept only where the group's work-items arrive in order
    __local int arrivals, in_order;
    if (lc == 0 && lr == 0) {
        arrivals = 0;
        in_order = 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_and(&in_order, atomic_inc(&arrivals) == lr * TS + lc);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int sequential = in_order;
    float sum = 0.0f;
    const int blocks = (N + TS - 1) / TS;
    for (int t = 0; t < blocks; t++) {
        const int a_col = t * TS + lc;
        const int b_row = t * TS + lr;
        Awrk[lr * TS + lc] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bwrk[lr * TS + lc] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        if (sequential) barrier(CLK_LOCAL_MEM_FENCE);]=]
  RACE RACE_MESSAGE "order in which work-items ran")
# The order read from what an exchange leaves: the simulator's last work-item is always the
# group's last; no atomic's result is used at all.
workbook_mutant(barrier_only_when_last_is_last mmul.cl
  [=[    float sum = 0.0f;
    // Rounded up: when N is not a multiple of TS the last blocks hang over the edge.
    const int blocks = (N + TS - 1) / TS;
    for (int t = 0; t < blocks; t++) {
        // Each work-item loads one element of each tile; neighbours in dimension 0 read
        // neighbouring addresses. Outside the matrix the tile is padded with zeros, which add
        // nothing to the sum, so the edge blocks need no special loop.
        const int a_col = t * TS + lc;
        const int b_row = t * TS + lr;
        Awrk[lr * TS + lc] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bwrk[lr * TS + lc] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them]=]
  [=[    // planted bug: the first barrier kept only where the last work-item to arrive is the last
    __local int last;
    if (lc == 0 && lr == 0) last = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_xchg(&last, lr * TS + lc);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int sequential = last == TS * TS - 1;
    float sum = 0.0f;
    const int blocks = (N + TS - 1) / TS;
    for (int t = 0; t < blocks; t++) {
        const int a_col = t * TS + lc;
        const int b_row = t * TS + lr;
        Awrk[lr * TS + lc] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bwrk[lr * TS + lc] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        if (sequential) barrier(CLK_LOCAL_MEM_FENCE);]=]
  RACE RACE_MESSAGE "order in which work-items ran")
