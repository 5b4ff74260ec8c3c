// The witness case of a host exercise: the evidence that the device did the work. Host code could
// compute its results on the CPU and never touch OpenCL, and values alone cannot tell. So one case
// of each host exercise hands the student's host code, through kernel_source() in its runner, a
// kernel of the checker's own in place of the exercise's kernel file: the same name and
// signature, the same sum or product, plus a mark drawn from the secret seed (a whole number
// from 1 to 1021 per element, from a hash of its index). Only host code that builds the kernel
// file it is given and launches it on the device returns results that carry the mark.
#pragma once

#include "workbook/runner.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace workbook::testing {

// A launch the host code must make: of `kernel`, with buffer arguments that hold (from their
// first byte, in any argument places) the watched arrays numbered `inputs`.
struct Launch {
    std::string kernel;
    std::vector<std::size_t> inputs;
    std::string what;  // the inputs in the test's words ("a and b"), for the message
};

struct Witness {
    std::string file;     // the kernel file it stands in for ("vadd.cl")
    std::string source;   // OpenCL C
    std::uint32_t key = 0;
    // The marks show that the kernel given ran, but not on what: host code could run it on zeros
    // and add the marks to sums of its own. Where the broker runs, it copies every launch's
    // buffer arguments as the kernel is about to read them, and the case requires these launches
    // over these arrays (the graded inputs).
    std::vector<std::vector<float>> watched;
    std::vector<Launch> launches;
    // How far each of its kernels indexes its buffers, for the broker (kernel:argument:power, by
    // spaces: "vadd:count:1", "mmul:N:2"): a launch on smaller buffers would read past them, in
    // the broker's memory on a CPU device, and is refused.
    std::string bounds;
};

// The required launches missing from a broker's report (its JSON line), as sentences: "" when
// every one is there. A report that is empty or unreadable misses them all.
std::string missing_launches(const Witness& witness, const std::string& report);

// The device times (END - START, in seconds) of the completed launches of `kernel` in a broker's
// report whose buffer arguments began with every watched array numbered in `inputs`, made on a
// queue with profiling: the times a host function may report for that launch (exercise 06).
std::vector<double> launch_seconds(const std::string& report, const std::string& kernel,
                                   const std::vector<std::size_t>& inputs);

// The mark of element `index`: integer operations only, so the kernel computes it bit for bit.
float witness_mark(std::uint32_t key, std::uint32_t index);

// kernel `kernel_name`(in_0, ..., in_{inputs-1}, out, const unsigned int count):
// out[i] = ((in_0[i] + in_1[i]) + ...) + mark(i), for i < count.
Witness vector_sum_witness(const std::string& file, const std::string& kernel_name, std::size_t inputs);

// kernel mmul(const int N, A, B, C), row-major N x N, one work-item per element of C (dimension
// 0 the column): C[i][j] = sum over k of A[i][k]·B[k][j], plus mark(i·N + j).
Witness matmul_witness(const std::string& file);

// The kernels of file `file` written by the test itself: `kernels` is OpenCL C that may call
// float witness_mark(uint index), each ending its parameter list with WORKBOOK_SECRET_PARAM (the
// broker's hidden key argument, or nothing); the mark's definition is put before it. For exercises
// whose kernels are neither a plain sum nor a product (13's scale and add).
Witness kernels_witness(const std::string& file, const std::string& kernels);

// Puts the witness into a request for the runner (runner_ops.hpp: witness_kernel). `brokered`: the
// runner's OpenCL goes through the broker, which alone holds the key; else the key is written in.
void attach(runner::Message& request, const Witness& witness, bool brokered);

// The broker's part: the key, the hidden last argument of the witness's kernels, for its texts only.
runner::Client::Broker broker_for(const Witness& witness);

// The sentence a failed witness case ends with: what the marks show, and the fix.
std::string witness_failure(const std::string& function, const Witness& witness, bool plain_result);

}  // namespace workbook::testing
