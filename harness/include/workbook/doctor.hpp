// `workbook doctor` (the verb in cli/main.cpp): checks the OpenCL installation step by step (ICD files, loader, platforms and
// devices, a tiny kernel on every device, the Oclgrind race check) and says what to fix.
#pragma once

namespace workbook {

struct DoctorOptions {
    bool color = false;  // colour the [ok] / [!!] / [--] markers (for a terminal)
};

// Prints the report to stdout; returns 0 when at least one usable device exists (a tiny kernel
// built and ran correctly on it), 2 otherwise.
int run_doctor(const DoctorOptions& options);

}  // namespace workbook
