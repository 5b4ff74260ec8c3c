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
# No kernel launched: the inputs copied on the device into host-readable buffers of its own, summed
# on the CPU and written back (right values; only the witness's marks are missing).
workbook_mutant(sums_on_cpu_through_staging vadd_chain.cpp
  [=[    add(launch, buffers.a, buffers.b, buffers.c, count);
    add(launch, buffers.c, buffers.e, buffers.d, count);
    add(launch, buffers.d, buffers.g, buffers.f, count);]=]
  [=[    (void)add;  // planted bug: the device only copies, the CPU sums
    (void)launch;
    const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
    const std::size_t bytes = count * sizeof(float);
    std::vector<float> sum(count, 0.0f), part(count);
    for (const cl::Buffer* in : {&buffers.a, &buffers.b, &buffers.e, &buffers.g}) {
        cl::Buffer staging(context, CL_MEM_READ_WRITE, bytes);
        queue.enqueueCopyBuffer(*in, staging, 0, 0, bytes);
        queue.enqueueReadBuffer(staging, CL_TRUE, 0, bytes, part.data());
        for (cl_uint i = 0; i < count; ++i) sum[i] += part[i];
    }
    cl::Buffer staging(context, CL_MEM_READ_WRITE, bytes);
    queue.enqueueWriteBuffer(staging, CL_TRUE, 0, bytes, sum.data());
    queue.enqueueCopyBuffer(staging, buffers.f, 0, 0, bytes);
    queue.finish();]=]
  MESSAGE "without the marks")
