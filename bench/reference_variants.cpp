// Sweeps variants of the contest reference kernel (contest/reference/mmul_gpu.cl, or any copy of
// it) on one OpenCL device: each variant is a kernel file plus build options, its launch geometry
// read from the -D options (TSM, TSN, WPTM, WPTN, KS). At each N every variant runs on the same
// inputs, is checked like a contest entry (C filled with NaN first; no NaN left, and sampled
// elements within matmul::tolerance(n) of a dot product in double), then the variants take turns
// for --rounds rounds of --per launches each, timed by events. Reported: median and fastest
// launch, GFLOPS of the median, and (NVIDIA, -cl-nv-verbose) ptxas's registers and spills.
//
// Standalone on purpose (OpenCL's C API only, so that it runs on a bare GPU machine with
// nothing but the ICD loader):
//   g++ -O2 -std=c++17 bench/reference_variants.cpp -o reference_variants -lOpenCL
//   reference_variants --plan PLAN --sizes 1024,2048,4096 [--rounds 5] [--per 3] [--platform NVIDIA]
// PLAN: one variant per line, "label | kernel file | build options [| N,N,...]" (the last field,
// if any, lists the only sizes to run it at); '#' starts a comment.
// Output: one line per variant and N: "N label GFLOPS median_us min_us check regs spill".
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

void die(const std::string& what, cl_int err = 0) {
    std::fprintf(stderr, "error: %s (%d)\n", what.c_str(), err);
    std::exit(1);
}
#define CHECK(x)                                          \
    do {                                                  \
        cl_int e_ = (x);                                  \
        if (e_ != CL_SUCCESS) die(#x, e_);                \
    } while (0)

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

struct Variant {
    std::string label, file, options;
    std::vector<int> only;  // sizes to run at (empty: all)
    int tsm = 0, tsn = 0, wptm = 0, wptn = 0, ks = 1;
    cl_program program = nullptr;
    cl_kernel kernel = nullptr;
    std::string build_error, regs = "?", spill = "?";
    double build_s = 0;
};

int define_of(const std::string& options, const std::string& name, int fallback) {
    const std::string key = "-D" + name + "=";
    const auto at = options.find(key);
    return at == std::string::npos ? fallback : std::atoi(options.c_str() + at + key.size());
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) die("cannot read " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
    std::string plan_path, platform_want = "NVIDIA";
    std::vector<int> sizes{1024, 2048, 4096};
    int rounds = 5, per = 3, samples = 48;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--plan") plan_path = v;
        else if (a == "--rounds") rounds = std::atoi(v.c_str());
        else if (a == "--per") per = std::atoi(v.c_str());
        else if (a == "--samples") samples = std::atoi(v.c_str());
        else if (a == "--platform") platform_want = v;
        else if (a == "--sizes") {
            sizes.clear();
            std::stringstream ss(v);
            for (std::string t; std::getline(ss, t, ',');) sizes.push_back(std::atoi(t.c_str()));
        } else die("unknown option " + a);
    }
    if (plan_path.empty()) die("--plan is required");

    // The platform whose name contains platform_want, its first GPU (else its first device).
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(0, nullptr, &np));
    std::vector<cl_platform_id> plats(np);
    CHECK(clGetPlatformIDs(np, plats.data(), nullptr));
    cl_platform_id plat = nullptr;
    bool nvidia = false;
    for (auto p : plats) {
        char name[256] = {};
        clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
        if (!plat || std::strstr(name, platform_want.c_str())) plat = p, nvidia = std::strstr(name, "NVIDIA") != nullptr;
        if (std::strstr(name, platform_want.c_str())) break;
    }
    if (!plat) die("no OpenCL platform");
    cl_device_id dev;
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, nullptr) != CL_SUCCESS)
        CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, nullptr));
    char dname[256] = {}, dver[256] = {};
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, nullptr);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof dver, dver, nullptr);
    std::printf("# device: %s, driver %s\n", dname, dver);
    cl_int err;
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);

    // The plan; every variant built once, before any timing.
    std::vector<Variant> vars;
    {
        std::ifstream in(plan_path);
        if (!in) die("cannot read " + plan_path);
        for (std::string line; std::getline(in, line);) {
            if (const auto h = line.find('#'); h != std::string::npos) line.erase(h);
            if (trim(line).empty()) continue;
            Variant v;
            std::stringstream ss(line);
            std::string f;
            std::getline(ss, f, '|'), v.label = trim(f);
            std::getline(ss, f, '|'), v.file = trim(f);
            std::getline(ss, f, '|'), v.options = trim(f);
            if (std::getline(ss, f)) {
                std::stringstream ns(f);
                for (std::string t; std::getline(ns, t, ',');)
                    if (!trim(t).empty()) v.only.push_back(std::atoi(t.c_str()));
            }
            v.tsm = define_of(v.options, "TSM", 0), v.tsn = define_of(v.options, "TSN", 0);
            v.wptm = define_of(v.options, "WPTM", 0), v.wptn = define_of(v.options, "WPTN", 0);
            v.ks = define_of(v.options, "KS", 1);
            if (!v.tsm || !v.tsn || !v.wptm || !v.wptn) die("variant " + v.label + ": TSM, TSN, WPTM, WPTN needed");
            vars.push_back(v);
        }
    }
    std::map<std::string, std::string> sources;
    for (auto& v : vars) {
        if (!sources.count(v.file)) sources[v.file] = read_file(v.file);
        const char* src = sources[v.file].c_str();
        v.program = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
        CHECK(err);
        const std::string opts = v.options + (nvidia ? " -cl-nv-verbose" : "");
        const auto t0 = std::chrono::steady_clock::now();
        const cl_int berr = clBuildProgram(v.program, 1, &dev, opts.c_str(), nullptr, nullptr);
        v.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::size_t len = 0;
        clGetProgramBuildInfo(v.program, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
        std::string log(len, '\0');
        clGetProgramBuildInfo(v.program, dev, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
        if (const auto r = log.find("Used "); r != std::string::npos) v.regs = std::to_string(std::atoi(log.c_str() + r + 5));
        if (const auto s = log.find("bytes spill stores"); s != std::string::npos) {
            auto b = log.rfind(',', s);
            v.spill = trim(log.substr(b == std::string::npos ? 0 : b + 1, s - (b == std::string::npos ? 0 : b + 1)));
        }
        if (berr != CL_SUCCESS) {
            v.build_error = "build failed: " + log.substr(0, 400);
        } else {
            v.kernel = clCreateKernel(v.program, "mmul", &err);
            if (err != CL_SUCCESS) v.build_error = "no kernel mmul";
        }
        std::printf("# built %-28s %5.1f s regs %s spill %s %s| %s\n", v.label.c_str(), v.build_s, v.regs.c_str(),
                    v.spill.c_str(), v.build_error.c_str(), v.options.c_str());
        std::fflush(stdout);
    }

    std::printf("%6s %-28s %10s %11s %11s %6s %5s %5s\n", "N", "label", "GFLOPS", "median_us", "min_us", "check", "regs",
                "spill");
    std::mt19937_64 gen(20261128);
    for (const int n : sizes) {
        const std::size_t nn = static_cast<std::size_t>(n) * n;
        std::vector<float> a(nn), b(nn), c(nn);
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        for (auto& x : a) x = u(gen);
        for (auto& x : b) x = u(gen);
        cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nn * 4, a.data(), &err);
        CHECK(err);
        cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nn * 4, b.data(), &err);
        CHECK(err);
        cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nn * 4, nullptr, &err);
        CHECK(err);
        // The sampled elements and their dot products in double (the same for every variant).
        std::uniform_int_distribution<int> pick(0, n - 1);
        std::vector<int> si(samples), sj(samples);
        std::vector<double> dot(samples), mag(samples);
        for (int s = 0; s < samples; ++s) {
            si[s] = pick(gen), sj[s] = pick(gen);
            double d = 0, m = 0;
            for (int k = 0; k < n; ++k) {
                const double p = double(a[std::size_t(si[s]) * n + k]) * b[std::size_t(k) * n + sj[s]];
                d += p, m += std::fabs(p);
            }
            dot[s] = d, mag[s] = m;
        }
        const double tol_abs = double(FLT_MIN) * n, tol_rel = (n + 1.0) * std::ldexp(1.0, -24);
        std::vector<std::string> check(vars.size());
        std::vector<std::vector<double>> times(vars.size());
        auto launch = [&](Variant& v, bool timed, std::size_t idx) -> bool {
            const std::size_t lx = v.tsn / v.wptn, ly = v.tsm / v.wptm, lz = v.ks;
            const std::size_t g[3] = {std::size_t((n + v.tsn - 1) / v.tsn) * lx, std::size_t((n + v.tsm - 1) / v.tsm) * ly,
                                      lz};
            const std::size_t l[3] = {lx, ly, lz};
            clSetKernelArg(v.kernel, 0, sizeof(int), &n);
            clSetKernelArg(v.kernel, 1, sizeof(cl_mem), &da);
            clSetKernelArg(v.kernel, 2, sizeof(cl_mem), &db);
            clSetKernelArg(v.kernel, 3, sizeof(cl_mem), &dc);
            cl_event ev;
            const cl_int e = clEnqueueNDRangeKernel(q, v.kernel, 3, nullptr, g, l, 0, nullptr, &ev);
            if (e != CL_SUCCESS) {
                check[idx] = "launch" + std::to_string(e);
                return false;
            }
            clWaitForEvents(1, &ev);
            if (timed) {
                cl_ulong s0 = 0, s1 = 0;
                clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s0, &s0, nullptr);
                clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof s1, &s1, nullptr);
                times[idx].push_back((s1 - s0) * 1e-3);
            }
            clReleaseEvent(ev);
            return true;
        };
        // Check each variant once (C NaN-filled first), warm it up.
        for (std::size_t i = 0; i < vars.size(); ++i) {
            auto& v = vars[i];
            if (!v.kernel) {
                check[i] = "nobuild";
                continue;
            }
            if (!v.only.empty() && std::find(v.only.begin(), v.only.end(), n) == v.only.end()) {
                check[i] = "skip";
                continue;
            }
            const float nan = std::nanf("");
            CHECK(clEnqueueFillBuffer(q, dc, &nan, sizeof nan, 0, nn * 4, 0, nullptr, nullptr));
            CHECK(clFinish(q));
            if (!launch(v, false, i)) continue;
            CHECK(clEnqueueReadBuffer(q, dc, CL_TRUE, 0, nn * 4, c.data(), 0, nullptr, nullptr));
            std::string verdict = "ok";
            for (std::size_t e = 0; e < nn; ++e)
                if (std::isnan(c[e])) {
                    verdict = "NaN@" + std::to_string(e / n) + "," + std::to_string(e % n);
                    break;
                }
            for (int s = 0; s < samples && verdict == "ok"; ++s) {
                const double got = c[std::size_t(si[s]) * n + sj[s]];
                if (!(std::fabs(got - dot[s]) <= tol_abs + tol_rel * mag[s]))
                    verdict = "WRONG@" + std::to_string(si[s]) + "," + std::to_string(sj[s]);
            }
            check[i] = verdict;
            launch(v, false, i);
        }
        // Take turns: each round, every variant `per` launches.
        for (int r = 0; r < rounds; ++r)
            for (std::size_t i = 0; i < vars.size(); ++i)
                if (check[i] == "ok")
                    for (int p = 0; p < per; ++p) launch(vars[i], true, i);
        for (std::size_t i = 0; i < vars.size(); ++i) {
            if (check[i] == "skip") continue;
            auto& t = times[i];
            double med = 0, mn = 0;
            if (!t.empty()) {
                std::sort(t.begin(), t.end());
                med = t[t.size() / 2], mn = t.front();
            }
            const double gf = med > 0 ? 2.0 * n * n * double(n) / (med * 1e-6) / 1e9 : 0;
            std::printf("%6d %-28s %10.1f %11.1f %11.1f %6s %5s %5s\n", n, vars[i].label.c_str(), gf, med, mn,
                        check[i].c_str(), vars[i].regs.c_str(), vars[i].spill.c_str());
        }
        std::fflush(stdout);
        clReleaseMemObject(da), clReleaseMemObject(db), clReleaseMemObject(dc);
    }
    return 0;
}
