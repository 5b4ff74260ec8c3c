# Planted bugs for exercise 03: each is the solution with one mistake students make, and the
# graded test must fail on every one (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(skips_a_step vadd_chain.cpp
  [=[add(launch, buffers.d, buffers.g, buffers.f, count);]=]
  [=[add(launch, buffers.c, buffers.g, buffers.f, count);  // planted bug: d is skipped]=])
workbook_mutant(count_one_short vadd_chain.cpp
  [=[const cl::EnqueueArgs launch(queue, cl::NDRange(count));]=]
  [=[const cl::EnqueueArgs launch(queue, cl::NDRange(count - 1));  // planted bug]=])
# c travels to the host and back between the steps: the device-only buffers must refuse it.
workbook_mutant(host_round_trip vadd_chain.cpp
  [=[    add(launch, buffers.c, buffers.e, buffers.d, count);]=]
  [=[    std::vector<float> c(count);  // planted bug: a host round trip
    queue.enqueueReadBuffer(buffers.c, CL_TRUE, 0, count * sizeof(float), c.data());
    queue.enqueueWriteBuffer(buffers.c, CL_TRUE, 0, count * sizeof(float), c.data());
    add(launch, buffers.c, buffers.e, buffers.d, count);]=])
