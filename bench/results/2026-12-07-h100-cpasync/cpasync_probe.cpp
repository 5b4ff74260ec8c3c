// Builds probe.cl with -DPROBE=n on the NVIDIA platform, runs it and checks what it wrote; writes
// the PTX NVIDIA's compiler made to PTXFILE. One probe per process: a wrong shared address in a
// cp.async can end the context.
//   g++ -O2 -std=c++17 cpasync_probe.cpp -o cpasync_probe -lOpenCL
//   cpasync_probe probe.cl PROBE PTXFILE [BUILD OPTIONS]
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "../../nvidia_platform.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 4) return std::fprintf(stderr, "usage: cpasync_probe probe.cl PROBE PTXFILE\n"), 2;
    const int probe = std::atoi(argv[2]);
    cl_platform_id plat = nullptr;
    cl_device_id dev = nullptr;
    if (!nvidia_or_first_device(plat, dev)) return std::puts("no platform or device"), 1;
    char dname[256] = {};
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, nullptr);
    // cl_nv_device_attribute_query: compute capability (0x4000 major, 0x4001 minor).
    cl_uint major = 0, minor = 0;
    const cl_int cce = clGetDeviceInfo(dev, 0x4000, sizeof major, &major, nullptr);
    clGetDeviceInfo(dev, 0x4001, sizeof minor, &minor, nullptr);
    std::printf("probe %d on %s: compute capability %u.%u (query %s)\n", probe, dname, major, minor,
                cce == CL_SUCCESS ? "ok" : "failed");
    std::ifstream f(argv[1]);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string src = ss.str();
    const char* p = src.c_str();
    cl_int err;
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &p, nullptr, &err);
    const std::string opts = "-DPROBE=" + std::to_string(probe) + (argc > 4 ? std::string(" ") + argv[4] : "");
    const cl_int berr = clBuildProgram(prog, 1, &dev, opts.c_str(), nullptr, nullptr);
    std::size_t len = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
    std::string log(len, '\0');
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
    if (berr != CL_SUCCESS) return std::printf("probe %d: BUILD FAILED (%d)\n%s\n", probe, berr, log.c_str()), 1;
    std::size_t size = 0;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
    std::vector<unsigned char> bin(size);
    unsigned char* bp = bin.data();
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bp, &bp, nullptr);
    while (size > 0 && bin[size - 1] == 0) --size;
    std::ofstream(argv[3], std::ios::binary).write(reinterpret_cast<const char*>(bin.data()), size);
    cl_kernel k = clCreateKernel(prog, "probe", &err);
    const int groups = 4, local = probe >= 3 ? 64 : 64, n = groups * 128;
    std::vector<float> in(n), out(n + groups, -1.f);
    for (int i = 0; i < n; ++i) in[i] = 1.0f + i;
    cl_mem din = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, in.data(), &err);
    cl_mem dout = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (n + groups) * 4, out.data(), &err);
    clSetKernelArg(k, 0, sizeof din, &din);
    clSetKernelArg(k, 1, sizeof dout, &dout);
    const std::size_t g = std::size_t(groups) * local, l = local;
    err = clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
    const cl_int ferr = clFinish(q);
    const cl_int rerr = clEnqueueReadBuffer(q, dout, CL_TRUE, 0, (n + groups) * 4, out.data(), 0, nullptr, nullptr);
    if (err != CL_SUCCESS || ferr != CL_SUCCESS || rerr != CL_SUCCESS)
        return std::printf("probe %d: RUN FAILED (enqueue %d, finish %d, read %d)\n", probe, err, ferr, rerr), 1;
    int bad = 0;
    for (int i = 0; i < (probe >= 3 ? n : int(g)); ++i) {
        float want;
        if (probe <= 2) want = float(i % 32);
        else {
            const int j = i % 128;
            want = (j < 64 && (j / 4) % 2) ? 0.f : in[i];
        }
        if (out[i] != want && bad++ < 5) std::printf("  out[%d] = %g, want %g\n", i, out[i], want);
    }
    if (probe >= 3)
        for (int gi = 0; gi < groups; ++gi) std::printf("  group %d: (uint)(size_t) of the __local array = %.0f\n", gi, out[n + gi]);
    std::printf("probe %d: %s (%d wrong)\n", probe, bad ? "WRONG" : "OK", bad);
    return bad ? 1 : 0;
}
