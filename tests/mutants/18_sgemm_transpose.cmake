# Planted bugs for exercise 18 (see workbook_mutant() in cmake/workbook.cmake).

# No barrier at the end of a tile: a work-item that finishes the k loop first stores its share of
# the next tile over values that others are still reading. A CPU device runs the group's
# work-items in turn and hides it; the race pass reports it.
workbook_mutant(missing_second_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next are stored]=]
  [=[        // planted bug: no barrier before the next tile is stored]=] RACE)
# Not transposed after all for one of the four floats: element (r, k4 + 1) stored at (k4 + 1, r)'s
# place in an untransposed layout.
workbook_mutant(store_not_transposed mmul.cl
  [=[        At[(k4 + 1) * AK + r] = ra[l].y;]=]
  [=[        At[r * AK + k4 + 1] = ra[l].y;  // planted bug: not transposed]=])
# The reads forget the padding: every k-row after the first is read shifted.
workbook_mutant(padding_forgotten mmul.cl
  [=[                const float4 v = AwrkT[(k * AK + lr * WPTM) / 4 + i];]=]
  [=[                const float4 v = AwrkT[(k * TSM + lr * WPTM) / 4 + i];  // planted bug: k-rows are AK long]=])
# Sixteen neighbouring columns read from the B tile, while the sums are stored as four float4s
# RTSN apart: the reads and the stores disagree about which columns a work-item owns.
workbook_mutant(columns_neighbours mmul.cl
  [=[            for (int j = 0; j < WPTN / 4; j++) b[j] = Bwrk[k * (TSN / 4) + j * RTSN + lc];]=]
  [=[            for (int j = 0; j < WPTN / 4; j++) b[j] = Bwrk[k * (TSN / 4) + lc * (WPTN / 4) + j];  // planted bug]=])
# The stores use exercise 17's rows, RTSM apart, while the sums are for neighbouring rows.
workbook_mutant(store_rows_apart mmul.cl
  [=[            store4(C, N, first_row + lr * WPTM + i, first_col + 4 * (j * RTSN + lc), acc[i][j]);]=]
  [=[            store4(C, N, first_row + lr + i * RTSM, first_col + 4 * (j * RTSN + lc), acc[i][j]);  // planted bug]=])
# Each float4 stored to local memory as soon as it is loaded (exercise 17's loop), not all of a
# tile's loads first: the same loads and stores, so the same load counts, but a GPU waits for
# each load in turn (0.66x the solution on the H200, below exercise 17:
# bench/results/2026-11-29-h200-first-use). Where traffic grades (PoCL), its waits for global
# loads are exercise 17's.
workbook_mutant(loads_interleaved mmul.cl
  [=[        fetch_tiles(A, B, N, t, id, first_row, first_col, ra, rb);  // all the loads first ...
        put_tiles(id, ra, rb, (__local float*)AwrkT, Bwrk);          // ... then all the stores]=]
  [=[        // planted bug: each float4 stored as soon as it is loaded
#pragma unroll
        for (int l = 0; l < LOADS_A; l++) {
            const int q = id + l * THREADS;
            const int r = q / (TSK / 4), k4 = 4 * (q % (TSK / 4));
            const float4 v = load4(A, N, first_row + r, t * TSK + k4);
            __local float* At = (__local float*)AwrkT;
            At[(k4 + 0) * AK + r] = v.x;
            At[(k4 + 1) * AK + r] = v.y;
            At[(k4 + 2) * AK + r] = v.z;
            At[(k4 + 3) * AK + r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < LOADS_B; l++) {
            const int q = id + l * THREADS;
            Bwrk[q] = load4(B, N, t * TSK + q / (TSN / 4), first_col + 4 * (q % (TSN / 4)));
        }]=]
  MESSAGE "its work-items wait for their global loads")
