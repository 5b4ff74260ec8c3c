# Planted bugs for exercise 19 (see workbook_mutant() in cmake/workbook.cmake).

# Without the barrier at the end of a step, the next step's loads overwrite a buffer others still
# read, and others read a tile not yet complete.
workbook_mutant(missing_step_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);
    }]=]
  [=[        // planted bug: no barrier at the end of a step
    }]=] RACE)
# Without the barrier after the first load, the first step may read tile 0 before it is there.
workbook_mutant(missing_first_barrier mmul.cl
  [=[    barrier(CLK_LOCAL_MEM_FENCE);  // the first tiles complete]=]
  [=[    // planted bug: no barrier after the first load]=] RACE)
# The multiply reads the buffer being filled instead of the complete one.
workbook_mutant(wrong_buffer mmul.cl
  [=[        __local const float4* At4 = AwrkT + now * a_floats / 4;]=]
  [=[        __local const float4* At4 = AwrkT + (1 - now) * a_floats / 4;  // planted bug: the buffer being filled]=])
# The next tile goes into the buffer in use: the last step of each pair multiplies a mixture.
workbook_mutant(prefetch_into_current mmul.cl
  [=[            load_tiles(A, B, N, t + 1, id, threads, first_row, first_col, (__local float*)AwrkT + (1 - now) * a_floats,
                       Bwrk + (1 - now) * b_float4s);]=]
  [=[            load_tiles(A, B, N, t + 1, id, threads, first_row, first_col, (__local float*)AwrkT + now * a_floats,
                       Bwrk + now * b_float4s);  // planted bug: overwrites the tile in use]=])
