// Writes the program binary (on NVIDIA's OpenCL: the PTX its compiler made) of each variant of a
// reference_variants plan, one file per label, so that two forms of the kernel can be compared
// before ptxas (and, with a ptxas/nvdisasm where the machine has one, after it).
//   g++ -O2 -std=c++17 dump_ptx.cpp -o dump_ptx -lOpenCL
//   dump_ptx PLAN OUTDIR [LABEL...]      (no labels: every variant of PLAN)
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "../../nvidia_platform.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

int main(int argc, char** argv) {
    if (argc < 3) return std::fprintf(stderr, "usage: dump_ptx PLAN OUTDIR [LABEL...]\n"), 2;
    std::vector<std::string> want(argv + 3, argv + argc);
    cl_platform_id plat = nullptr;
    cl_device_id dev = nullptr;
    if (!nvidia_or_first_device(plat, dev)) return std::fprintf(stderr, "no platform or device\n"), 1;
    cl_int err;
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    std::ifstream in(argv[1]);
    for (std::string line; std::getline(in, line);) {
        if (const auto h = line.find('#'); h != std::string::npos) line.erase(h);
        if (trim(line).empty()) continue;
        std::stringstream ss(line);
        std::string label, file, opts;
        std::getline(ss, label, '|'), std::getline(ss, file, '|'), std::getline(ss, opts, '|');
        label = trim(label), file = trim(file), opts = trim(opts);
        if (!want.empty() && std::find(want.begin(), want.end(), label) == want.end()) continue;
        std::ifstream f(file);
        std::stringstream src;
        src << f.rdbuf();
        const std::string s = src.str();
        const char* p = s.c_str();
        cl_program prog = clCreateProgramWithSource(ctx, 1, &p, nullptr, &err);
        if (clBuildProgram(prog, 1, &dev, opts.c_str(), nullptr, nullptr) != CL_SUCCESS) {
            std::printf("%s: build failed\n", label.c_str());
            continue;
        }
        std::size_t size = 0;
        clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
        std::vector<unsigned char> bin(size);
        unsigned char* bp = bin.data();
        clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bp, &bp, nullptr);
        while (size > 0 && bin[size - 1] == 0) --size;  // the PTX text ends in NULs, which ptxas rejects
        const std::string out = std::string(argv[2]) + "/" + label + ".ptx";
        std::ofstream(out, std::ios::binary).write(reinterpret_cast<const char*>(bin.data()), size);
        std::printf("%s: %zu bytes -> %s\n", label.c_str(), size, out.c_str());
        clReleaseProgram(prog);
    }
    return 0;
}
