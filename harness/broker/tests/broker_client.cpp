// The broker tests' client: host code as a runner would write it (CLHPP over the ICD loader,
// which loads only the broker's ICD). Each mode does one thing and prints key=value lines for
// broker_test.cpp to check; it does not judge its own results.
#include <CL/opencl.hpp>

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_file(const std::string& name) {
    std::ifstream in(std::string(WORKBOOK_BROKER_TEST_DIR) + "/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Setup {
    cl::Context context;
    cl::Device device;
    cl::CommandQueue queue;
};

Setup setup(cl_command_queue_properties props = 0) {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    std::vector<cl::Device> devices;
    platforms.at(0).getDevices(CL_DEVICE_TYPE_ALL, &devices);
    cl::Context context(devices.at(0));
    return {context, devices.at(0), cl::CommandQueue(context, devices.at(0), props)};
}

cl::Program built(const Setup& s, const std::string& options = "") {
    cl::Program program(s.context, read_file("broker_test.cl"));
    program.build({s.device}, options.c_str());
    return program;
}

void vadd() {
    Setup s = setup();
    const cl_uint n = 1000003;  // prime: no work-group size divides it
    std::vector<cl_uint> a(n), b(n), c(n, 0);
    for (cl_uint i = 0; i < n; ++i) {
        a[i] = (i * 2654435761u) % 100000u;
        b[i] = i ^ 0x5a5au;
    }
    cl::Buffer da(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(cl_uint), a.data());
    cl::Buffer db(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(cl_uint), b.data());
    cl::Buffer dc(s.context, CL_MEM_WRITE_ONLY, n * sizeof(cl_uint));
    cl::Kernel k(built(s), "vadd_secret");
    k.setArg(0, da);
    k.setArg(1, db);
    k.setArg(2, dc);
    k.setArg(3, n);
    s.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(n), cl::NullRange);
    s.queue.enqueueReadBuffer(dc, CL_TRUE, 0, n * sizeof(cl_uint), c.data());
    std::set<cl_uint> offsets;
    for (cl_uint i = 0; i < n; ++i) offsets.insert(c[i] - a[i] - b[i]);
    std::cout << "count=" << n << "\noffsets=";
    for (auto o : offsets) std::cout << o << (o == *offsets.rbegin() ? "" : ",");
    std::cout << "\n";
}

void matmul() {
    Setup s = setup();
    const int n = 40;
    std::vector<float> a(n * n), b(n * n), c(n * n, -1.0f);
    for (int i = 0; i < n * n; ++i) {
        a[i] = static_cast<float>(i % 7 - 3);
        b[i] = static_cast<float>((i * 5) % 11 - 5);
    }
    cl::Buffer da(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * sizeof(float), a.data());
    cl::Buffer db(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * sizeof(float), b.data());
    cl::Buffer dc(s.context, CL_MEM_WRITE_ONLY, c.size() * sizeof(float));
    cl::KernelFunctor<int, cl::Buffer, cl::Buffer, cl::Buffer, cl::LocalSpaceArg, cl::LocalSpaceArg> mm(
        built(s), "matmul_tiled");
    mm(cl::EnqueueArgs(s.queue, cl::NDRange(n, n), cl::NDRange(8, 8)), n, da, db, dc, cl::Local(64 * sizeof(float)),
       cl::Local(64 * sizeof(float)));
    s.queue.enqueueReadBuffer(dc, CL_TRUE, 0, c.size() * sizeof(float), c.data());
    double worst = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double sum = 0;
            for (int k = 0; k < n; ++k) sum += double(a[i * n + k]) * b[k * n + j];
            worst = std::max(worst, std::abs(sum - c[i * n + j]));
        }
    std::cout << "max_error=" << worst << "\n";
}

void profile() {
    Setup s = setup(CL_QUEUE_PROFILING_ENABLE);
    std::vector<float> x(1 << 16, 1.0f);
    cl::Buffer dx(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * sizeof(float), x.data());
    cl::Kernel k(built(s), "scale");
    k.setArg(0, dx);
    k.setArg(1, 3.0f);
    cl::Event e;
    s.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(x.size()), cl::NullRange, nullptr, &e);
    e.wait();
    std::cout << "start=" << e.getProfilingInfo<CL_PROFILING_COMMAND_START>()
              << "\nend=" << e.getProfilingInfo<CL_PROFILING_COMMAND_END>() << "\n";
}

void map() {
    Setup s = setup();
    const std::size_t n = 1000;
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
    cl::Buffer d(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), x.data());
    auto* p = static_cast<float*>(s.queue.enqueueMapBuffer(d, CL_TRUE, CL_MAP_READ, 0, n * sizeof(float)));
    int read_ok = 1;
    for (std::size_t i = 0; i < n; ++i) read_ok &= p[i] == static_cast<float>(i);
    s.queue.enqueueUnmapMemObject(d, p);
    p = static_cast<float*>(
        s.queue.enqueueMapBuffer(d, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, n * sizeof(float)));
    for (std::size_t i = 0; i < n; ++i) p[i] = 2.0f * static_cast<float>(i) + 1.0f;
    s.queue.enqueueUnmapMemObject(d, p);
    std::vector<float> back(n);
    s.queue.enqueueReadBuffer(d, CL_TRUE, 0, n * sizeof(float), back.data());
    int write_ok = 1;
    for (std::size_t i = 0; i < n; ++i) write_ok &= back[i] == 2.0f * static_cast<float>(i) + 1.0f;

    // USE_HOST_PTR: the kernel's result appears in the host's own array once mapped.
    std::vector<float> host(n, 2.0f);
    cl::Buffer u(s.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof(float), host.data());
    cl::Kernel k(built(s), "scale");
    k.setArg(0, u);
    k.setArg(1, 5.0f);
    s.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(n), cl::NullRange);
    auto* q = static_cast<float*>(s.queue.enqueueMapBuffer(u, CL_TRUE, CL_MAP_READ, 0, n * sizeof(float)));
    int host_ok = q == host.data();
    for (std::size_t i = 0; i < n; ++i) host_ok &= host[i] == 10.0f;
    s.queue.enqueueUnmapMemObject(u, q);
    s.queue.finish();
    std::cout << "map_read_ok=" << read_ok << "\nmap_write_ok=" << write_ok << "\nuse_host_ptr_ok=" << host_ok
              << "\n";
}

bool has_secret(const std::string& text) { return text.find("1234") != std::string::npos; }

void secrets() {
    Setup s = setup();
    const cl::Program program = built(s, "-DCLIENT_OPT=7");
    std::size_t binary_bytes = 0;
    for (const auto& b : program.getInfo<CL_PROGRAM_BINARIES>()) binary_bytes += b.size();
    for (auto size : program.getInfo<CL_PROGRAM_BINARY_SIZES>()) binary_bytes += size;
    const unsigned char fake[16] = {};
    const unsigned char* binaries[] = {fake};
    const std::size_t lengths[] = {sizeof fake};
    cl_device_id device = s.device();
    cl_int err = CL_SUCCESS;
    clCreateProgramWithBinary(s.context(), 1, &device, lengths, binaries, nullptr, &err);
    std::cout << "source_has_secret=" << has_secret(program.getInfo<CL_PROGRAM_SOURCE>())
              << "\nbuild_options=" << program.getBuildInfo<CL_PROGRAM_BUILD_OPTIONS>(s.device)
              << "\nlog_has_secret=" << has_secret(program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(s.device))
              << "\nbinary_bytes=" << binary_bytes << "\nbinary_program_err=" << err
              << "\nkernel_names=" << program.getInfo<CL_PROGRAM_KERNEL_NAMES>() << "\n";
}

// vadd_secret (a + b + its mark) launched over n zeros: its last sum, the mark alone.
cl_uint last_sum_over_zeros(Setup& s, cl::Kernel& k, cl_uint n) {
    std::vector<cl_uint> zeros(n, 0), c(n, 0);
    cl::Buffer da(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(cl_uint), zeros.data());
    cl::Buffer dc(s.context, CL_MEM_WRITE_ONLY, n * sizeof(cl_uint));
    k.setArg(0, da);
    k.setArg(1, da);
    k.setArg(2, dc);
    k.setArg(3, n);
    s.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(n));
    s.queue.enqueueReadBuffer(dc, CL_TRUE, 0, n * sizeof(cl_uint), c.data());
    return c[n - 1];
}

// A runner that tries to learn the secret: its own kernel writing SECRET out, and the checker's
// kernel built with a -D of its own that would make its secret argument a constant.
void leak() {
    Setup s = setup();
    cl::Program own(s.context, "kernel void leak(global uint* out) { out[0] = SECRET; }\n");
    cl_int err = CL_SUCCESS;
    std::string value = "none";
    try {
        own.build({s.device});
        cl::Buffer out(s.context, CL_MEM_WRITE_ONLY, sizeof(cl_uint));
        cl::Kernel k(own, "leak");
        k.setArg(0, out);
        s.queue.enqueueTask(k);
        cl_uint v = 0;
        s.queue.enqueueReadBuffer(out, CL_TRUE, 0, sizeof v, &v);
        value = std::to_string(v);
    } catch (const cl::Error& e) {
        err = e.err();
    }
    const cl::Program checkers = built(s, "-Dworkbook_secret=1");
    cl::Kernel k(checkers, "vadd_secret");
    std::cout << "own_kernel_err=" << err << "\nown_kernel_value=" << value
              << "\noffset_with_client_define=" << last_sum_over_zeros(s, k, 1000) << "\n";
}

// What the client can see of vadd_secret's hidden argument, and a kernel made with
// clCreateKernelsInProgram.
void hidden() {
    Setup s = setup();
    cl::Program program = built(s);
    cl::Kernel k(program, "vadd_secret");
    const cl_uint one = 1;
    char name[64] = {};
    std::cout << "num_args=" << k.getInfo<CL_KERNEL_NUM_ARGS>()
              << "\nset_hidden_err=" << clSetKernelArg(k(), 4, sizeof one, &one)
              << "\nset_past_err=" << clSetKernelArg(k(), 9, sizeof one, &one)
              << "\ninfo_hidden_err=" << clGetKernelArgInfo(k(), 4, CL_KERNEL_ARG_NAME, sizeof name - 1, name, nullptr);
    clGetKernelArgInfo(k(), 3, CL_KERNEL_ARG_NAME, sizeof name - 1, name, nullptr);
    std::cout << "\ninfo_last_name=" << name;
    std::vector<cl::Kernel> all;
    program.createKernels(&all);
    for (auto& kernel : all) {
        const std::string kname = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();
        if (kname == "scale") std::cout << "\nscale_num_args=" << kernel.getInfo<CL_KERNEL_NUM_ARGS>();
        if (kname != "vadd_secret") continue;
        std::cout << "\nall_kernels_offset=" << last_sum_over_zeros(s, kernel, 64);
    }
    std::cout << "\n";
}

// Launches of vadd_secret (bound: every buffer holds n) within and past its buffers.
void bounds() {
    Setup s = setup();
    cl::Program program = built(s);
    cl::Kernel k(program, "vadd_secret");
    const cl_uint n = 100;
    std::vector<cl_uint> zeros(n, 0);
    cl::Buffer a(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(cl_uint), zeros.data());
    cl::Buffer c(s.context, CL_MEM_WRITE_ONLY, n * sizeof(cl_uint));
    k.setArg(0, a);
    k.setArg(1, a);
    k.setArg(2, c);
    const auto launch = [&](cl_uint count) {
        k.setArg(3, count);
        const std::size_t global = 4096;
        return clEnqueueNDRangeKernel(s.queue(), k(), 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
    };
    std::cout << "within=" << launch(n) << "\npast=" << launch(4096);
    cl_mem none = nullptr;
    clSetKernelArg(k(), 1, sizeof none, &none);
    std::cout << "\nnull_buffer=" << launch(n);
    cl::Kernel scale(program, "scale");
    std::vector<float> x(64, 1.0f);
    cl::Buffer dx(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * sizeof(float), x.data());
    scale.setArg(0, dx);
    scale.setArg(1, 2.0f);
    const std::size_t global = x.size();
    std::cout << "\nscale_unbounded=" << clEnqueueNDRangeKernel(s.queue(), scale(), 1, nullptr, &global, nullptr, 0, nullptr, nullptr)
              << "\n";
    s.queue.finish();
}

void build_log() {
    Setup s = setup();
    cl::Program program(s.context, read_file("broker_broken.cl"));
    try {
        program.build({s.device});
        std::cout << "build_err=0\n";
    } catch (const cl::BuildError& e) {
        std::string log;
        for (const auto& [device, text] : e.getBuildLog()) log += text;
        std::cerr << log;
        std::cout << "build_err=" << e.err() << "\nlog_has_line=" << (log.find(":4:") != std::string::npos)
                  << "\nlog_has_secret=" << has_secret(log) << "\n";
    }
}

void no_platform() {
    std::vector<cl::Platform> platforms;
    try {
        cl::Platform::get(&platforms);
        std::cout << "platforms=" << platforms.size() << "\n";
    } catch (const cl::Error& e) {
        std::cout << "platforms=0\nerror=" << e.err() << "\n";
    }
}

// Without CAP_SYS_PTRACE, as a runner in a sandbox would be even under the same uid.
void drop_ptrace_capability() {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capget, &header, data) != 0) return;
    data[0].effective &= ~(1u << CAP_SYS_PTRACE);
    data[0].permitted &= ~(1u << CAP_SYS_PTRACE);
    syscall(SYS_capset, &header, data);
}

const char* open_mem(pid_t pid) {
    const int fd = ::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
    if (fd < 0) return "denied";
    ::close(fd);
    return "ok";
}

void peek(pid_t broker) {
    drop_ptrace_capability();
    // A control: a dumpable process of the same user (our own child) can be opened.
    const pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    std::cout << "mem_open=" << open_mem(broker) << "\ncontrol_open=" << open_mem(child) << "\n";
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    try {
        if (mode == "vadd") vadd();
        else if (mode == "matmul") matmul();
        else if (mode == "profile") profile();
        else if (mode == "map") map();
        else if (mode == "secrets") secrets();
        else if (mode == "leak") leak();
        else if (mode == "buildlog") build_log();
        else if (mode == "hidden") hidden();
        else if (mode == "bounds") bounds();
        else if (mode == "noplatform") no_platform();
        else if (mode == "peek" && argc > 2) peek(static_cast<pid_t>(std::stol(argv[2])));
        else {
            std::cerr << "unknown mode " << mode << "\n";
            return 2;
        }
    } catch (const cl::Error& e) {
        std::cerr << "OpenCL error " << e.err() << " in " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
