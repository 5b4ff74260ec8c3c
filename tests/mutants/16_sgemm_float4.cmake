# Planted bugs for exercise 16 (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(missing_second_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load]=]
  [=[        // planted bug: no barrier before the next load]=] RACE)
# The partial float4 at the right edge is dropped whole: columns past the last multiple of 4 read 0.
workbook_mutant(edge_float4_dropped mmul.cl
  [=[    if (N % 4 == 0 && col < N) return *(__global const float4*)p;]=]
  [=[    if (col + 3 >= N) return (float4)(0.0f);  // planted bug: the partial float4 at the edge is lost
    if (N % 4 == 0 && col < N) return *(__global const float4*)p;]=])
# The second row's sum goes to the first row's place: half of C is never written.
workbook_mutant(second_row_misplaced mmul.cl
  [=[    store4(C, N, first_row + lr + RTS, col, acc1);]=]
  [=[    store4(C, N, first_row + lr + 1, col, acc1);  // planted bug: not the row it summed]=])
# The A tile read as if it were float4-indexed: the wrong element of A for every k.
workbook_mutant(a_tile_index mmul.cl
  [=[            acc0 += As[lr * TS + k] * b;]=]
  [=[            acc0 += As[lr * TSV + k] * b;  // planted bug: a row of the tile is TS floats, not TSV]=])
# The store ignores the edge: the last float4 of a row writes up to three elements past it.
workbook_mutant(store_past_edge mmul.cl
  [=[    p[0] = v.x;
    if (col + 1 < N) p[1] = v.y;]=]
  [=[    p[0] = v.x;
    p[3] = v.w;  // planted bug: no check of the edge
    if (col + 1 < N) p[1] = v.y;]=] ALSO_RACE)
