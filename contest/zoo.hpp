// The contest's zoo (`contest serve --devices zoo.toml`): the devices a contest is judged on, one
// board each. A device is reached either here (`local`: a device of this machine, chosen as every
// program chooses one, by platform and device) or through Slurm (`slurm`: a job per submission on
// a node of a partition, choosing the device there the same way).
//
//   [slurm]                                  # optional; only for slurm devices
//   server = "http://head-node:8080"         # how the jobs reach this server (default: its own address)
//   jobs_dir = "/shared/contest-jobs"        # job scripts, token files, logs (default: <db>.jobs)
//   workbook = "/shared/workbook/bin/workbook"  # on the nodes (default: this program)
//
//   [[device]]
//   name = "PoCL (head node)"                # the board's name: 1-40 printable characters
//   reach = "local"
//   platform = "Portable"                    # optional: as WORKBOOK_PLATFORM
//   device = "0"                             # optional: as WORKBOOK_DEVICE
//
//   [[device]]
//   name = "A100"
//   reach = "slurm"
//   partition = "gpu"                        # optional, as the other two
//   gres = "gpu:a100:1"
//   constraint = "a100"
//   platform = "NVIDIA"
//   result_timeout_s = 1800                  # a job silent this long is cancelled and failed
//   sbatch_options = ["--exclusive", "--account=gpu-course"]   # passed to sbatch as they are
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace workbook::contest {

struct ZooDevice {
    std::string name;
    bool slurm = false;                        // reach = "slurm"; else "local"
    std::string platform, device, device_type;  // the device choice (WORKBOOK_PLATFORM, _DEVICE, _DEVICE_TYPE)
    std::string partition, gres, constraint;    // slurm only
    int result_timeout_s = 1800;                // slurm only
    std::vector<std::string> sbatch_options;    // slurm only: more sbatch options, each "--name[=value]"

    // "WORKBOOK_PLATFORM=..." entries for the judge's processes: this device's choice.
    std::vector<std::string> environment() const;
};

struct Zoo {
    std::vector<ZooDevice> devices;
    std::string server, jobs_dir, workbook;  // [slurm]
    bool has_slurm() const;
    const ZooDevice* find(const std::string& name) const;
};

// Reads and checks a zoo file: throws workbook::Error naming the file, the entry and the fix.
Zoo read_zoo(const std::filesystem::path& file);

}  // namespace workbook::contest
