// The instructor's tuned contest kernel: the "reference" row on the board and the last rung of
// the ladder bench. Two sources (contest/reference/mmul_gpu.cl and mmul_cpu.cl) whose tile sizes
// are build options; this file chooses them for a device and writes the submission, declaration
// included, that the judge and the bench run.
//
// The choice depends on the device and on N, through a size class (512, 1024, 1536, 2048, 3072,
// 4096, 6144, 8192: the nearest on a log scale): a result stored by the tuner (`mmul_bench --tune`)
// for this device, driver and size class, if any and still valid; otherwise derived from the
// device's type, native vector width, compute units, local memory and largest work-group, and N.
// WORKBOOK_REFERENCE_KERNEL=gpu (or cpu) picks the source whatever the device type.
#pragma once

#include "workbook/cl.hpp"
#include "workbook/matmul.hpp"

#include <string>
#include <utility>
#include <vector>

namespace workbook::contest {

struct ReferenceParams {
    bool cpu = false;                                 // which source: mmul_cpu.cl or mmul_gpu.cl
    std::vector<std::pair<std::string, int>> values;  // the -D parameters, in order
    int get(const std::string& name) const;
    std::string label() const;                        // "gpu TSM=128 TSN=128 TSK=16 WPTM=8 WPTN=8"
    std::string options() const;                      // "-cl-fast-relaxed-math -DTSM=128 ..."
};

// Where tuning results are kept: $WORKBOOK_TUNING_FILE, else ~/.cache/workbook/mmul_tuning.toml.
std::string tuning_file();
// The device's key in that file: its name and driver version.
std::string device_key(const cl::Device& device);

// The size classes the tuner stores, and the one that N belongs to (the nearest on a log scale).
const std::vector<int>& size_classes();
int size_class(int n);

// The parameters for this device at size N: the tuner's stored choice for N's size class first,
// then the untuned default; `from` says which, and why a stored choice was passed over.
ReferenceParams reference_params(const cl::Device& device, int n, std::string* from = nullptr);
// The same at the contest judge's default ranking size (JudgeOptions::ranking_n).
ReferenceParams reference_params(const cl::Device& device, std::string* from = nullptr);
// The untuned choice for this device and N, from the device's properties alone.
ReferenceParams default_params(const cl::Device& device, int n);
// What the tuner tries on this device at size N; the first is the untuned choice.
std::vector<ReferenceParams> reference_candidates(const cl::Device& device, int n);
// Stores `p` as this device's tuned choice for N's size class (other entries are kept).
void store_tuning(const cl::Device& device, const ReferenceParams& p, double gflops, int n);

// The submission: the // contest: declaration for `p`, then the kernel source.
std::string reference_submission(const ReferenceParams& p);
// The same as a ladder rung (the bench's last row), its geometry read from the declaration.
matmul::Rung reference_rung(const ReferenceParams& p);

}  // namespace workbook::contest
